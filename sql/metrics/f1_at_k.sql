-- f1_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--         empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- F1@k: the harmonic mean of precision_at_k and recall_at_k, 2 P R / (P + R), which is
-- 2 hits / (k + relevant) for hits relevant rows (rel >= threshold) among the first k returned
-- and relevant judged rows in all (ranx f1). Precision divides by k even when fewer rows were
-- returned, as precision_at_k (trec_eval P_k; ranx divides by the rows returned then); k NULL:
-- by the returned rows. With ties = 'average' a tie group straddling k counts its expected hits,
-- and F1 is linear in them, so the value is the exact expectation over tied orders.
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT query_id, f1_at_k(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO f1_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    coalesce(2.0 * _ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
             / nullif(coalesce(_ndcg_checked_k(k), count(rnk)) + sum(_ndcg_relevant(rel, threshold)),
                      0), 0.0),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
