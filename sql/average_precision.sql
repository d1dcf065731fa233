-- average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- Average precision@k: the sum of precision@p over the positions p <= k of relevant returned rows,
-- divided by all relevant judged rows of the group (trec_eval map, map_cut.k); 0.0 when nothing is
-- relevant. Averaged over queries it is MAP. Tied rank keys within the first k + 1 rows need
-- ties := 'key'.
-- Example: SELECT avg(ap) AS map FROM (SELECT average_precision(rel, rnk) AS ap FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                          tie_key := NULL) AS
coalesce(
    list_sum(list_transform(
        list_filter(
            list_transform(
                _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, 'average_precision'),
                lambda hit, p: CASE WHEN hit = 1 THEN p END),
            lambda p: p IS NOT NULL),
        lambda p, j: j / p))
    / nullif(sum(_ndcg_relevant(rel, threshold)), 0),
    0.0);
