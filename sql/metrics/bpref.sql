-- bpref(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL, empty_ideal := 0.0)
--   -> DOUBLE  [aggregate]
-- bpref (Buckley & Voorhees): for each relevant returned row (rel >= threshold),
-- 1 - min(y, R) / min(N, R) with y the judged non-relevant rows (rel < threshold) ranked above
-- it, summed and divided by R; R and N count the relevant and judged non-relevant rows of the
-- group, returned or not; unjudged rows (rel NULL) are skipped (trec_eval bpref, ranx bpref).
-- Whole rankings, no cutoff.
--   ties         'average': a relevant row's place among the non-relevant rows of its tie group
--                is uniform, which gives the exact expectation over tied orders; 'key': tie_key
--                descending (trec_eval).
--   empty_ideal  result when R = 0 (0.0; NULL skips the query in avg()).
-- Example: SELECT avg(b) FROM (SELECT bpref(rel, rnk) AS b FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO bpref(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL,
                              empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            list_transform(
                [{rel: (_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)).in_order,
                  non: (_ndcg_relevant_ranking(
                           CASE WHEN rel IS NOT NULL AND _ndcg_relevant(rel, threshold) = 0
                                THEN 1 ELSE 0 END, rnk, NULL, 1, ties, tie_key)).in_order}],
                -- one tie group per position: the groups' counts come from the same merge
                lambda h: _ndcg_bpref_sum(
                    _ndcg_tie_groups({
                        m: len(h.rel), keys: range(1, len(h.rel) + 1), straddle: NULL,
                        rows: list_transform(list_filter(range(1, len(h.rel) + 1),
                                                         lambda i: h.rel[i] = 1),
                                             lambda i: {r: i, g: 1.0})}),
                    _ndcg_tie_groups({
                        m: len(h.rel), keys: range(1, len(h.rel) + 1), straddle: NULL,
                        rows: list_transform(list_filter(range(1, len(h.rel) + 1),
                                                         lambda i: h.non[i] = 1),
                                             lambda i: {r: i, g: 1.0})}),
                    sum(_ndcg_relevant(rel, threshold)),
                    count(rel) FILTER (WHERE _ndcg_relevant(rel, threshold) = 0)))[1]
        ELSE
            list_transform(
                [{rel: _ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key),
                  non: _ndcg_relevant_ranking(
                           CASE WHEN rel IS NOT NULL AND _ndcg_relevant(rel, threshold) = 0
                                THEN 1 ELSE 0 END, rnk, NULL, 1, ties, tie_key)}],
                lambda r: _ndcg_bpref_sum(
                    r.rel.groups, r.non.groups, sum(_ndcg_relevant(rel, threshold)),
                    count(rel) FILTER (WHERE _ndcg_relevant(rel, threshold) = 0)))[1]
    END / sum(_ndcg_relevant(rel, threshold)),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);
