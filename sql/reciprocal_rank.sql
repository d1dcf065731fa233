-- reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- 1 / position of the first relevant row (rel >= threshold) among the first k returned, 0.0 when
-- there is none (trec_eval recip_rank). Averaged over queries it is MRR. Tied rank keys within the
-- first k + 1 rows need ties := 'key'.
-- Example: SELECT avg(rr) AS mrr FROM (SELECT reciprocal_rank(rel, rnk) AS rr FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                        tie_key := NULL) AS
coalesce(1.0 / list_position(
    _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, 'reciprocal_rank'), 1), 0.0);
