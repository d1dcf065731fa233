-- hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Hit rate@k: 1.0 when a relevant row (rel >= threshold) is among the first k returned, else 0.0
-- (trec_eval success.k). Averaged over queries it is the hit rate. Tied rank keys within the
-- first k + 1 rows need ties := 'key'.
-- Example: SELECT avg(hit) FROM (SELECT hit_rate(rel, rnk, 10) AS hit FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                 tie_key := NULL) AS
CASE WHEN list_contains(_ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, 'hit_rate'), 1)
     THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END;
