-- _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal): how many of the best grades IDCG sums (internal).
-- k given: k, or least(k, n_ranked) with clamp_k. k NULL: n_ranked, or all (NULL) with full_ideal.
-- A NULL clamp_k or full_ideal is an error naming it (read as false it would pass for a choice).
CREATE OR REPLACE MACRO _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal) AS
CASE
    WHEN clamp_k IS NULL THEN error('duckdb_ndcg: clamp_k must be true or false, got NULL')
    WHEN full_ideal IS NULL THEN error('duckdb_ndcg: full_ideal must be true or false, got NULL')
    WHEN k IS NOT NULL AND clamp_k THEN least(k, n_ranked)
    WHEN k IS NOT NULL THEN k
    WHEN full_ideal THEN NULL
    ELSE n_ranked
END;
