-- r_precision(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL, empty_ideal := 0.0)
--   -> DOUBLE  [aggregate]
-- R-precision: the relevant rows (rel >= threshold) among the first R returned, divided by R, the
-- number of relevant judged rows of the group, returned or not (trec_eval Rprec, ranx
-- r_precision). Reads whole rankings (R is known only at the end).
--   ties         'average': a tie group straddling position R counts its expected share of
--                relevant rows (exact, like precision_at_k); 'key': tie_key descending.
--   empty_ideal  result when R = 0 (0.0, as trec_eval; NULL skips the query in avg()).
-- Example: SELECT avg(rp) FROM (SELECT r_precision(rel, rnk) AS rp FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO r_precision(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL,
                                    empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            -- coalesce: a query that returned no row has no list, and no hit
            coalesce(list_count(list_filter(
                list_slice(
                    (_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)).in_order,
                    1, sum(_ndcg_relevant(rel, threshold))),
                lambda hit: hit = 1)), 0)::DOUBLE
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_hits(r.groups,
                                                         sum(_ndcg_relevant(rel, threshold))))[1]
    END / sum(_ndcg_relevant(rel, threshold)),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
