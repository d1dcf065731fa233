-- average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- Average precision@k: the sum of precision@p over the positions p <= k of relevant returned rows,
-- divided by all relevant judged rows of the group (trec_eval map, map_cut.k); 0.0 when nothing is
-- relevant. Averaged over queries it is MAP.
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order). By linearity, a relevant row of a tie group (start s, n rows,
--         c relevant, a relevant rows before it) at position q = s + u has expected precision
--         (1 + a + u (c - 1) / (n - 1)) / q, and u is uniform over 0..n-1: the group adds
--         c / n * sum_{q = s .. min(s + n - 1, k)} (1 + a + (q - s) (c - 1) / (n - 1)) / q;
--         'key': equal rnk broken by tie_key descending (trec_eval).
-- Example: SELECT avg(ap) AS map FROM (SELECT average_precision(rel, rnk) AS ap FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                          tie_key := NULL) AS
coalesce(
    CASE
        WHEN ties = 'key' THEN
            list_sum(list_transform(
                list_filter(
                    list_transform(
                        _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key),
                        lambda hit, p: CASE WHEN hit = 1 THEN p END),
                    lambda p: p IS NOT NULL),
                lambda p, j: j / p))
        ELSE
            list_transform([_ndcg_relevant_groups(rel, rnk, k, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_ap_sum(r.groups, r.m))[1]
    END
    / nullif(sum(_ndcg_relevant(rel, threshold)), 0),
    0.0);
