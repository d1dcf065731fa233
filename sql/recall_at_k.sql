-- recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Recall@k: relevant rows (rel >= threshold) among the first k returned, divided by all relevant
-- judged rows of the group, returned or not (trec_eval recall_k); 0 when nothing is relevant.
-- Example: SELECT query_id, recall_at_k(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                               tie_key := NULL) AS
coalesce(cg(_ndcg_relevant(rel, threshold), rnk, k, ties := ties, tie_key := tie_key)
         / nullif(sum(_ndcg_relevant(rel, threshold)), 0), 0.0);
