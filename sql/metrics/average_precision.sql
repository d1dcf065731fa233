-- average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--                   denominator := 'relevant', empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- Average precision@k: the sum of precision@p over the positions p <= k of relevant returned rows
-- (rel >= threshold), divided by the denominator. Averaged over queries it is MAP.
--   denominator  'relevant': all relevant judged rows, returned or not (trec_eval map,
--                map_cut.k; ranx map@k); 'min_k': least(relevant, k) (Spark
--                meanAveragePrecisionAt, RecBole, Microsoft Recommenders); 'retrieved': the
--                relevant rows among the first k (Hivemall). 0.0 when nothing relevant is returned.
--   empty_ideal  result when the group has no relevant judged row (0.0: trec_eval; 1.0: XGBoost;
--                NULL makes avg() skip the query).
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order). By linearity, a relevant row of a tie group (start s, n rows,
--         c relevant, a relevant rows before it) at position q = s + u has expected precision
--         (1 + a + u (c - 1) / (n - 1)) / q, and u is uniform over 0..n-1: the group adds
--         c / n * sum_{q = s .. min(s + n - 1, k)} (1 + a + (q - s) (c - 1) / (n - 1)) / q.
--         With denominator 'retrieved' the count divided by is random when a tie group straddles
--         k holding relevant and other rows: the result is then E[sum / retrieved] (an order that
--         retrieves no relevant row counting 0.0, as without ties), summed over the hypergeometric
--         number of the group's relevant rows before the cut, each with the expected sum given
--         it: O(k) more work (_ndcg_expected_ap_retrieved).
--         'key': equal rnk broken by tie_key descending (trec_eval).
-- Example: SELECT avg(ap) AS map FROM (SELECT average_precision(rel, rnk) AS ap FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                          tie_key := NULL, denominator := 'relevant',
                                          empty_ideal := 0.0) AS
list_transform(
    [CASE
        WHEN ties = 'key' THEN
            list_transform(
                [(_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order],
                lambda h: {sum: list_sum(list_transform(
                               list_filter(list_transform(h, lambda hit, p: CASE WHEN hit = 1 THEN p END),
                                           lambda p: p IS NOT NULL),
                               lambda p, j: j / p)),
                           hits: list_count(list_filter(h, lambda hit: hit = 1))::DOUBLE,
                           retrieved: NULL::DOUBLE})[1]
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                lambda r: {sum: _ndcg_expected_ap_sum(r.groups, r.m),
                           hits: _ndcg_expected_hits(r.groups, r.m),
                           -- the count divided by is random when the group straddling the cut
                           -- holds relevant and other rows
                           retrieved: CASE WHEN denominator = 'retrieved'
                                            AND coalesce(list_bool_or(list_transform(r.groups,
                                                lambda g: g.c > 0 AND g.c < g.n
                                                          AND g.s + g.n - 1 > r.m)), false)
                                      THEN _ndcg_expected_ap_retrieved(r.groups, r.m) END})[1]
    END],
    lambda a: _ndcg_empty(
        coalesce(a.retrieved,
                 coalesce(a.sum / nullif(_ndcg_denominator(
                     denominator, ['relevant', 'min_k', 'retrieved'],
                     sum(_ndcg_relevant(rel, threshold)), _ndcg_checked_k(k), a.hits), 0), 0.0)),
        sum(_ndcg_relevant(rel, threshold)), empty_ideal))[1];
