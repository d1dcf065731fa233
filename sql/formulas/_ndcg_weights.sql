-- _ndcg_weights(n, weight, param) -> DOUBLE[] (internal): the weights of positions 1 .. n
-- (_ndcg_weight: 'log' with its base, 'none', 'geometric'); a log base that is not a number > 1
-- is an error naming log_base (_ndcg_discount). With constant arguments DuckDB computes the list
-- once, when it plans the query; so callers build it outside every lambda body (inside one
-- nothing is folded) and index it per row: a position's weight is then one array lookup.
-- Example: _ndcg_weights(3, 'log', 2) = [1.0, 1 / log2(3), 0.5]
CREATE OR REPLACE MACRO _ndcg_weights(n, weight, param) AS
CASE
    -- never true: _ndcg_discount raises the error for a bad base, folded away for a good one
    WHEN weight = 'log' AND _ndcg_discount(1, param) IS NULL THEN NULL
    ELSE list_transform(range(1, n + 1), lambda q: _ndcg_weight(q, weight, param))
END;
