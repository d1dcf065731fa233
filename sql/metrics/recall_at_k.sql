-- recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--             denominator := 'relevant', empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- Recall@k: relevant rows (rel >= threshold) among the first k returned, divided by the
-- denominator. With ties = 'average' a tie group straddling k counts its expected share.
--   denominator  'relevant': all relevant judged rows of the group, returned or not (trec_eval
--                recall_k); 'min_k': least(relevant, k), so that a perfect top k scores 1 when
--                there are more relevant rows than k.
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT query_id, recall_at_k(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                               tie_key := NULL, denominator := 'relevant', empty_ideal := 0.0) AS
_ndcg_empty(
    coalesce(_ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
             / nullif(_ndcg_denominator(denominator, ['relevant', 'min_k'],
                                        sum(_ndcg_relevant(rel, threshold)), _ndcg_checked_k(k),
                                        NULL), 0), 0.0),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
