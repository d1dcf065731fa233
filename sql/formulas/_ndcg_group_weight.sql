-- _ndcg_group_weight(weights, s, n, m) -> DOUBLE (internal): the weight a tie group of n rows at
-- positions s .. s + n - 1 gives each of its rows: the mean of its positions' weights, those past
-- the cut m counting 0 (McSherry & Najork: the expectation over the orders of its rows). An
-- untied row (n = 1, s <= m) gets weights[s]. weights: _ndcg_weights, at least m long. No lambda,
-- so a per-row CASE may hold it at no cost to the rows that do not take it; but a slice copies
-- its whole list, so long rankings read their groups' weights one position at a time instead
-- (_ndcg_weighted_sum).
-- Example: _ndcg_group_weight(_ndcg_weights(10, 'log', 2), 2, 2, 10) = (1 / log2(3) + 0.5) / 2
CREATE OR REPLACE MACRO _ndcg_group_weight(weights, s, n, m) AS
coalesce(list_sum(list_slice(weights, s, least(s + n - 1, m))), 0.0) / n;
