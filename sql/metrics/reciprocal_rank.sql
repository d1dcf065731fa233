-- reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--   empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- 1 / position of the first relevant row (rel >= threshold) among the first k returned, 0.0 when
-- there is none (trec_eval recip_rank). Averaged over queries it is MRR.
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order): the first relevant row lies in the first tie group holding one
--         (start s, n rows, c relevant), at s + i with probability C(n - 1 - i, c - 1) / C(n, c);
--         'key': equal rnk broken by tie_key descending (trec_eval).
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT avg(rr) AS mrr FROM (SELECT reciprocal_rank(rel, rnk) AS rr FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                        tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            coalesce(1.0 / list_position(
                (_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order, 1),
                0.0)
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_rr(r.groups, r.m))[1]
    END,
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
