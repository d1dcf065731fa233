-- _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal): how many of the best grades IDCG sums (internal).
-- k given: k, or least(k, n_ranked) with clamp_k. k NULL: n_ranked, or all (NULL) with full_ideal.
CREATE OR REPLACE MACRO _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal) AS
CASE
    WHEN k IS NOT NULL AND clamp_k THEN least(k, n_ranked)
    WHEN k IS NOT NULL THEN k
    WHEN full_ideal THEN NULL
    ELSE n_ranked
END;
