-- _ndcg_weighted_list(items, m, weight, param) -> DOUBLE (internal): the sum of items[q] x
-- weight(q) over the first m positions of a list in rank order (all of them when m is NULL), each
-- position weighed by _ndcg_weight ('log' with its base, 'none', 'geometric'); 0 for an
-- empty or NULL list; a log base that is not a number > 1 is an error naming log_base. Ideal
-- DCGs and the list metrics. Each term is item x weight, as in _ndcg_weighted_sum, so a ranking
-- in ideal order has DCG equal to its ideal DCG to the last bit (NDCG exactly 1).
-- Example: _ndcg_weighted_list([3.0, 2.0, 0.0], 2, 'log', 2) = 3 / log2(2) + 2 / log2(3)
CREATE OR REPLACE MACRO _ndcg_weighted_list(items, m, weight, param) AS
CASE
    -- never true: _ndcg_discount raises the error for a bad base, folded away for a good one
    WHEN weight = 'log' AND _ndcg_discount(1, param) IS NULL THEN NULL
    ELSE coalesce(
        list_aggregate(list_transform(
            list_slice(items, 1, coalesce(m, 9223372036854775807)),
            lambda x, q: x * _ndcg_weight(q, weight, param)), 'fsum'),
        0.0)::DOUBLE
END;
