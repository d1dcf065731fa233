-- hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--   empty_ideal := 0.0) -> DOUBLE
--   [aggregate]
-- Hit rate@k: 1.0 when a relevant row (rel >= threshold) is among the first k returned, else 0.0
-- (trec_eval success.k). Averaged over queries it is the hit rate.
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order): a tie group straddling k with c of its n rows relevant and w of
--         its positions before the cut hits with probability 1 - C(n - c, w) / C(n, w)
--         (hypergeometric); 'key': equal rnk broken by tie_key descending (trec_eval).
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT avg(hit) FROM (SELECT hit_rate(rel, rnk, 10) AS hit FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                 tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            CASE WHEN list_contains((_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order, 1)
                 THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_hit(r.groups, r.m))[1]
    END,
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
