-- _ndcg_report_metric_rows(rankings, events, k, slice_by, query_col, item_col, position_col,
--                          score_col, ties, gain, log_base, empty_ideal, duplicates, event_col,
--                          mapping, collapse, time_col, unknown, metrics, threshold, max_grade,
--                          judged := false)
--   -> TABLE(_key, _k, ndcg, dcg, idcg, shown, shown_relevant, relevant, precision_at_k,
--            recall_at_k, f1_at_k, hit_rate, reciprocal_rank, average_precision, r_precision,
--            err, rbp, judged_at_k DOUBLE)
-- _ndcg_report_rows with the family metrics of ndcg_report and ndcg_summary (internal): each
-- named metric is its aggregate over the ranking's judged run (_ndcg_report_rows' _judged list,
-- unnested) grouped by (ranking, cutoff), with the report's ties (tie_key: the item), threshold,
-- empty_ideal and max_grade; a metric not named is NULL (a constant CASE: DuckDB drops its
-- aggregate); judged_at_k is the engine's column (judged := true or named in metrics: see
-- _ndcg_report_rows). Kept apart from the engine so that compare_rankers, compare_summary and ab_summary
-- do not bind (plan) these aggregates.
-- With only ndcg named (the default) the family is not even bound: the result is one of two
-- CTEs, _ndcg_only (the engine's rows, the family columns NULL) or _ndcg_family, picked by name
-- with query_table from a constant condition on metrics (no user text goes into that name).
-- DuckDB 1.5 and 2.0 bind a CTE only when it is read, so the default report plans without the
-- family's aggregates (binding them took 0.2-0.5 s a call); DuckDB 1.4 binds every CTE of a
-- WITH, read or not, so there both are bound and only the one read is planned and run.
CREATE OR REPLACE MACRO _ndcg_report_metric_rows(rankings, events, k, slice_by, query_col,
                                                 item_col, position_col, score_col, ties, gain,
                                                 log_base, empty_ideal, duplicates, event_col,
                                                 mapping, collapse, time_col, unknown, metrics,
                                                 threshold, max_grade, judged := false) AS TABLE
WITH _ndcg_engine AS NOT MATERIALIZED (
    SELECT *
    FROM _ndcg_report_rows(rankings, events, k, _ndcg_slice_list(slice_by), query_col,
                           item_col, position_col, score_col, ties, gain, log_base, empty_ideal,
                           duplicates, event_col, _ndcg_mapping(mapping), collapse, time_col,
                           unknown,
                           metrics := metrics,
                           threshold := threshold, max_grade := max_grade, judged := judged)
),
_ndcg_only AS NOT MATERIALIZED (
    SELECT _key, _k, ndcg, dcg, idcg, shown, shown_relevant, relevant,
           NULL::DOUBLE AS precision_at_k, NULL::DOUBLE AS recall_at_k, NULL::DOUBLE AS f1_at_k,
           NULL::DOUBLE AS hit_rate, NULL::DOUBLE AS reciprocal_rank,
           NULL::DOUBLE AS average_precision, NULL::DOUBLE AS r_precision, NULL::DOUBLE AS err,
           NULL::DOUBLE AS rbp, judged_at_k
    FROM _ndcg_engine
),
_ndcg_family AS NOT MATERIALIZED (
    -- the report's columns are the same on every row of a group: any_value, not GROUP BY, so that
    -- DuckDB drops those a query does not read (and the window aggregates behind them)
    SELECT _key, _k, any_value(ndcg) AS ndcg, any_value(dcg) AS dcg, any_value(idcg) AS idcg,
           any_value(shown) AS shown, any_value(shown_relevant) AS shown_relevant,
           any_value(relevant) AS relevant,
           CASE WHEN list_contains(metrics, 'precision_at_k') THEN
               precision_at_k(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                              tie_key := _j.i)
           END::DOUBLE AS precision_at_k,
           CASE WHEN list_contains(metrics, 'recall_at_k') THEN
               recall_at_k(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                           tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS recall_at_k,
           CASE WHEN list_contains(metrics, 'f1_at_k') THEN
               f1_at_k(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                       tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS f1_at_k,
           CASE WHEN list_contains(metrics, 'hit_rate') THEN
               hit_rate(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                        tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS hit_rate,
           CASE WHEN list_contains(metrics, 'reciprocal_rank') THEN
               reciprocal_rank(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                               tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS reciprocal_rank,
           CASE WHEN list_contains(metrics, 'average_precision') THEN
               average_precision(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                                 tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS average_precision,
           CASE WHEN list_contains(metrics, 'r_precision') THEN
               r_precision(_j.rel, _j.rnk, threshold := threshold, ties := ties,
                           tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS r_precision,
           CASE WHEN list_contains(metrics, 'err') THEN
               CASE WHEN max(_j.rel) > _max_grade THEN
                        error('duckdb_ndcg: err needs grades between 0 and max_grade '
                              || _max_grade::VARCHAR || ', got ' || max(_j.rel)::VARCHAR
                              || ' (pass max_grade := <number> at least the largest grade; '
                              || 'collapse ''sum'' adds grades up)')
                    ELSE err(_j.rel, _j.rnk, _k, max_grade := _max_grade, ties := ties,
                             tie_key := _j.i)
               END
           END::DOUBLE AS err,
           CASE WHEN list_contains(metrics, 'rbp') THEN
               rbp(_j.rel, _j.rnk, k := _k, threshold := threshold, ties := ties,
                   tie_key := _j.i)
           END::DOUBLE AS rbp,
           any_value(judged_at_k) AS judged_at_k
    FROM (
        -- one row per row of the judged run (one, _j NULL, when no family metric is named)
        SELECT * EXCLUDE (_judged), unnest(coalesce(_judged, [NULL])) AS _j
        FROM _ndcg_engine
    ),
    (SELECT _ndcg_report_max_grade(max_grade, _ndcg_mapping(mapping)) AS _max_grade)
    GROUP BY _key, _k, _max_grade
)
-- the same columns either way, picked by the condition under which _ndcg_report_rows builds
-- the judged runs
SELECT *
FROM query_table(CASE WHEN _ndcg_report_has_family(metrics) THEN '_ndcg_family'
                      ELSE '_ndcg_only' END);
