-- judged_at_k(rel, rnk, k := NULL, ties := 'average', tie_key := NULL) -> DOUBLE  [aggregate]
-- Judged@k: the share of the first k returned rows that are judged (rel NOT NULL), divided by
-- the rows there are, least(k, returned) (ir_measures Judged@k); k NULL: every returned row. 0.0
-- when nothing was returned. With ties = 'average' a tie group straddling k counts its expected
-- share of judged rows; 'key': tie_key descending.
-- Example: SELECT avg(j) FROM (SELECT judged_at_k(rel, rnk, 10) AS j FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO judged_at_k(rel, rnk, k := NULL, ties := 'average', tie_key := NULL) AS
coalesce(_ndcg_ranked_count(CASE WHEN rel IS NULL THEN 0 ELSE 1 END, rnk, k, ties, tie_key)
         / nullif(least(_ndcg_checked_k(k), count(rnk)), 0), 0.0);
