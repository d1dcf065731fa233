-- _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col, position_col, score_col,
--                   ties, gain, log_base, empty_ideal, duplicates, event_col, mapping, collapse,
--                   time_col, unknown)
--   -> TABLE(_key STRUCT(query and slice columns), _k, ndcg, dcg, idcg, shown, shown_relevant,
--            relevant)
-- The engine of ndcg_report and compare_rankers (internal; see ndcg_report for the parameters).
-- One join of the rankings with the graded events, one aggregation per (slice, query) building
-- the ranking once down to the deepest cutoff (core _ndcg_top_*, as dcg does), every cutoff read
-- off it (core _ndcg_dcg_at), and the ideal from the graded events of the query (core
-- _ndcg_ideal_gains, as idcg does), so shown and unshown graded items both count in it.
-- Measured at 5M shown rows: about 1.7x the core ndcg aggregate over a bare LEFT JOIN (the extra
-- is the duplicate check, list(_i), and the ideal; count(DISTINCT) was 3x slower than list_distinct).
CREATE OR REPLACE MACRO _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col,
                                          position_col, score_col, ties, gain, log_base,
                                          empty_ideal, duplicates, event_col, mapping, collapse,
                                          time_col, unknown) AS TABLE
WITH graded AS (
    SELECT query_id AS _q, item_id AS _i, rel
    FROM event_relevance(events, query_col := query_col, item_col := item_col,
                         event_col := event_col, mapping := mapping, collapse := collapse,
                         time_col := time_col, unknown := unknown)
),
shown AS (
    SELECT struct_pack(*COLUMNS(lambda c: c = query_col OR list_contains(slice_by, c))) AS _key,
           COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _i,
           CASE WHEN score_col IS NULL THEN 1 ELSE -1 END
               * COLUMNS(lambda c: c = coalesce(score_col, position_col)) AS _rnk
    FROM query_table(rankings)
),
ranked AS (
    SELECT _key, _q,
           CASE WHEN _ndcg_rank_error(_rnk, ties, _i) IS NULL
                THEN _ndcg_top_keys(_rnk, _ndcg_report_depth(_ndcg_report_cuts(k)), ties)
           END AS top_keys,
           _ndcg_top_grades(rel, _rnk, _ndcg_report_depth(_ndcg_report_cuts(k)), ties, _i) AS top_grades,
           _ndcg_tie_keys(_rnk, _ndcg_report_depth(_ndcg_report_cuts(k)), ties) AS tie_keys,
           _ndcg_tie_grades(rel, _rnk, _ndcg_report_depth(_ndcg_report_cuts(k)), gain, ties) AS tie_grades,
           count(*) AS shown,
           count(*) FILTER (WHERE rel > 0) AS shown_relevant,
           list(_i) AS items,
           bool_or(_q IS NULL OR _i IS NULL OR _rnk IS NULL) AS null_keys
    FROM shown LEFT JOIN graded USING (_q, _i)
    GROUP BY _key, _q
),
ideal AS (
    SELECT _q,
           CASE WHEN _ndcg_grade_error(rel, gain, 'error') IS NULL
                THEN _ndcg_ideal_gains(rel, _ndcg_report_depth(_ndcg_report_cuts(k)), gain)
           END AS ideal_gains,
           count(*) FILTER (WHERE rel > 0) AS relevant
    FROM graded
    GROUP BY _q
)
SELECT _key, cut.k AS _k,
       CASE
           WHEN duplicates NOT IN ('error', 'allow') THEN
               error('duckdb_ndcg: duplicates must be ''error'' or ''allow'', got '''
                     || duplicates || '''')
           WHEN list_any_value(list_filter(slice_by, lambda s: NOT list_contains(struct_keys(_key), s)))
                IS NOT NULL THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' has no column '
                     || list_any_value(list_filter(slice_by,
                                                   lambda s: NOT list_contains(struct_keys(_key), s)))
                     || ' (named in slice_by)')
           WHEN null_keys THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' has NULL in ' || query_col || ', '
                     || item_col || ' or ' || coalesce(score_col, position_col)
                     || ' (query ' || coalesce(_q::VARCHAR, 'NULL') || ')')
           WHEN duplicates = 'error' AND len(list_distinct(items)) < shown THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' shows ' || item_col || ' '
                     || list_filter(items, lambda x, p: list_position(items, x) < p)[1]::VARCHAR
                     || ' more than once in ranking ' || _key::VARCHAR
                     || ' (pass duplicates := ''allow'' to score every impression)')
           ELSE coalesce(_ndcg_dcg_at(top_keys, top_grades, least(cut.k, shown), tie_keys, tie_grades, gain, log_base)
                         / nullif(_ndcg_sum_discounted(coalesce(ideal_gains, []), cut.k, log_base), 0),
                         empty_ideal)
       END AS ndcg,
       _ndcg_dcg_at(top_keys, top_grades, least(cut.k, shown), tie_keys, tie_grades, gain, log_base) AS dcg,
       _ndcg_sum_discounted(coalesce(ideal_gains, []), cut.k, log_base) AS idcg,
       shown,
       shown_relevant,
       coalesce(relevant, 0) AS relevant
FROM ranked LEFT JOIN ideal USING (_q), unnest(_ndcg_report_cuts(k)) AS cut(k);
