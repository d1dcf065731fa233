-- precision_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Precision@k (named precision_at_k because PRECISION is an SQL keyword): relevant rows
-- (rel >= threshold) among the first k returned, divided by k
-- (trec_eval P_k: the denominator stays k when fewer rows were returned); k NULL divides by the
-- number of returned rows. With ties = 'average' a tie group straddling k counts its mean.
-- Example: SELECT query_id, precision_at_k(rel, rnk, 3) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO precision_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                  tie_key := NULL) AS
coalesce(_ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
         / nullif(coalesce(_ndcg_checked_k(k), count(rnk)), 0), 0.0);
