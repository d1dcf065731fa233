-- _ndcg_rbp(marked, rnk, p, k, ties, tie_key): aggregate; the rank-biased weight of the marked
-- rows (marked = 1) among the first k returned: the sum of (1 - p) p^(q - 1) over their positions
-- q (internal; rbp marks the relevant rows, rbp_residual the unjudged ones). With ties =
-- 'average' a tie group (start s, n rows, c marked) adds c / n of the weight of its positions up
-- to the cut m, c / n (p^(s - 1) - p^min(s + n - 1, m)): the exact expectation over tied orders.
-- p must be in (0, 1).
CREATE OR REPLACE MACRO _ndcg_rbp(marked, rnk, p, k, ties, tie_key) AS
CASE
    WHEN coalesce(NOT (TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1), true) THEN
        error('duckdb_ndcg: p must be a number between 0 and 1 (exclusive), got '
              || coalesce(p::VARCHAR, 'NULL'))
    WHEN ties = 'key' THEN
        coalesce(list_sum(list_transform(
            _ndcg_relevant_in_order(marked, rnk, k, 1, ties, tie_key),
            lambda x, q: x * (1.0 - p) * pow(p::DOUBLE, q - 1))), 0.0)
    ELSE
        list_transform([_ndcg_relevant_groups(marked, rnk, k, 1, ties, tie_key)],
            lambda r: coalesce(list_sum(list_transform(r.groups, lambda g:
                g.c::DOUBLE / g.n
                * (pow(p::DOUBLE, g.s - 1) - pow(p::DOUBLE, least(g.s + g.n - 1, r.m))))), 0.0))[1]
END;
