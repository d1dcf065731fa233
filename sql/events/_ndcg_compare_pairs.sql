-- _ndcg_compare_pairs(rankings_a, rankings_b, events, k, slice_by, query_set, missing, query_col,
--                     item_col, position_col, score_col, ties, gain, log_base, empty_ideal,
--                     duplicates, event_col, mapping, collapse, time_col, unknown,
--                     judged := false)
--   -> TABLE(_key STRUCT(query and slice columns), _k, ndcg_a, ndcg_b DOUBLE, filled VARCHAR,
--            _in BOOLEAN, judged_a, judged_b DOUBLE)
-- The per-query NDCG of two rankers side by side (internal; compare_rankers, compare_summary):
-- every (slice, query, cutoff) either ranker showed, a ranker that did not show it scoring 0
-- (`filled` names it), and _in, whether query_set keeps the row. missing = 'error' raises on a
-- kept row that needed filling. judged := true adds each ranker's judged@k of the query
-- (_ndcg_report_rows' judged_at_k; NULL for a ranker that did not show it, and when judged is
-- false). See compare_rankers for the parameters.
CREATE OR REPLACE MACRO _ndcg_compare_pairs(rankings_a, rankings_b, events, k, slice_by,
                                            query_set, missing, query_col, item_col,
                                            position_col, score_col, ties, gain, log_base,
                                            empty_ideal, duplicates, event_col, mapping,
                                            collapse, time_col, unknown,
                                            judged := false) AS TABLE
SELECT coalesce(a._key, b._key) AS _key, coalesce(a._k, b._k) AS _k,
       CASE WHEN a._key IS NULL THEN 0.0 ELSE a.ndcg END AS ndcg_a,
       CASE WHEN b._key IS NULL THEN 0.0 ELSE b.ndcg END AS ndcg_b,
       CASE
           WHEN query_set IS NULL OR query_set NOT IN ('both', 'either', 'a', 'b') THEN
               error('duckdb_ndcg: query_set must be ''both'', ''either'', ''a'' or ''b'', got '
                     || coalesce('''' || query_set || '''', 'NULL'))
           WHEN missing IS NULL OR missing NOT IN ('zero', 'error') THEN
               error('duckdb_ndcg: missing must be ''zero'' or ''error'', got '
                     || coalesce('''' || missing || '''', 'NULL'))
           WHEN (a._key IS NULL AND query_set IN ('either', 'b')
                 OR b._key IS NULL AND query_set IN ('either', 'a')) AND missing = 'error' THEN
               error('duckdb_ndcg: query ' || to_json(coalesce(a._key, b._key))
                     || ' was shown by ranker ' || CASE WHEN a._key IS NULL THEN 'B' ELSE 'A' END
                     || ' only (query_set := ''' || query_set
                     || '''; pass missing := ''zero'' to score it 0 for the other)')
           WHEN a._key IS NULL THEN 'a'
           WHEN b._key IS NULL THEN 'b'
       END AS filled,
       (a._key IS NOT NULL OR query_set IN ('either', 'b'))
           AND (b._key IS NOT NULL OR query_set IN ('either', 'a')) AS _in,
       a.judged_at_k AS judged_a, b.judged_at_k AS judged_b
FROM _ndcg_report_rows(rankings_a, events, k, _ndcg_slice_list(slice_by), query_col,
                       item_col, position_col, score_col, ties, gain, log_base, empty_ideal,
                       duplicates, event_col, _ndcg_mapping(mapping), collapse, time_col,
                       unknown, judged := judged) AS a
FULL JOIN _ndcg_report_rows(rankings_b, events, k, _ndcg_slice_list(slice_by), query_col,
                            item_col, position_col, score_col, ties, gain, log_base, empty_ideal,
                            duplicates, event_col, _ndcg_mapping(mapping), collapse, time_col,
                            unknown, judged := judged) AS b
    ON a._key = b._key AND a._k IS NOT DISTINCT FROM b._k;
