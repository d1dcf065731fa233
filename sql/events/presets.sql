-- Presets on the event report: a learning-to-rank library's or a search engine's NDCG conventions
-- as the options they fix (the preset overload of ndcg_report and ndcg_summary).

-- _ndcg_preset_row(preset) -> STRUCT(ties, gain VARCHAR, empty_ideal DOUBLE, ranked_ideal,
--   own_order BOOLEAN, rounding INTEGER), NULL for a preset the report does not take (internal)
-- The rows of duckdb_ndcg.conventions.PRESETS that apply to the event report, as
-- evaluate(preset=) applies them (scikit-learn's ndcg_score, LightGBM's and XGBoost's ndcg
-- metric, OpenSearch's Search Relevance Workbench): ties, gain and empty_ideal; ranked_ideal,
-- the ideal from the ranked items' grades only (the events of the shown (query, item) pairs);
-- own_order, equal scores in the tool's own (input) order, so the rank is given (position_col)
-- and ties average over equal positions only; rounding, the decimals of ndcg and dcg (NULL:
-- none). No lambda: its fields are options the report engine reads inside COLUMNS lambdas.
-- Example: _ndcg_preset_row('lightgbm').gain is 'exponential'
CREATE OR REPLACE MACRO _ndcg_preset_row(preset) AS
CASE preset
    WHEN 'sklearn' THEN {ties: 'average', gain: 'linear', empty_ideal: 0.0::DOUBLE,
                         ranked_ideal: true, own_order: false, rounding: NULL::INTEGER}
    WHEN 'lightgbm' THEN {ties: 'average', gain: 'exponential', empty_ideal: 1.0::DOUBLE,
                          ranked_ideal: true, own_order: true, rounding: NULL::INTEGER}
    WHEN 'xgboost' THEN {ties: 'average', gain: 'exponential', empty_ideal: 1.0::DOUBLE,
                         ranked_ideal: true, own_order: true, rounding: NULL::INTEGER}
    WHEN 'opensearch_srw' THEN {ties: 'average', gain: 'exponential', empty_ideal: 0.0::DOUBLE,
                                ranked_ideal: false, own_order: true, rounding: 2::INTEGER}
END;

-- _ndcg_preset(preset, ties, gain, empty_ideal, score_col, metrics, summary) -> the struct of
-- _ndcg_preset_row, checked against the caller's options (internal): one error line for a
-- preset of another surface or none; ties, gain or empty_ideal given otherwise than both the
-- default and the preset's value; a score column under a tool with its own order; a metric
-- other than ndcg and judged_at_k; a rounded preset's mean over queries (summary true).
-- No lambda, as _ndcg_preset_row.
-- Example: _ndcg_preset('sklearn', 'average', 'linear', 0.0, NULL, ['ndcg'], false).gain
CREATE OR REPLACE MACRO _ndcg_preset(preset, ties, gain, empty_ideal, score_col, metrics,
                                     summary) AS
CASE
    WHEN _ndcg_preset_row(preset) IS NULL THEN
        error('duckdb_ndcg: ' || CASE
            WHEN preset::VARCHAR IN ('trec_eval', 'trec_eval_c', 'ir_measures', 'ranx',
                                     'elasticsearch')
                THEN 'preset ''' || preset::VARCHAR || ''' applies to duckdb-ndcg trec (a run '
                     || 'and its qrels), not to the event report'
            ELSE 'preset must be ''sklearn'', ''lightgbm'', ''xgboost'' or ''opensearch_srw'' '
                 || 'on the event report, got ' || coalesce('''' || preset::VARCHAR || '''',
                                                            'NULL')
            END)
    WHEN ties::VARCHAR IS DISTINCT FROM 'average'
         AND ties::VARCHAR IS DISTINCT FROM _ndcg_preset_row(preset).ties THEN
        error('duckdb_ndcg: preset ''' || preset || ''' sets ties := '''
              || _ndcg_preset_row(preset).ties || '''; drop ties := '
              || coalesce('''' || ties::VARCHAR || '''', 'NULL'))
    WHEN gain::VARCHAR IS DISTINCT FROM 'linear'
         AND gain::VARCHAR IS DISTINCT FROM _ndcg_preset_row(preset).gain THEN
        error('duckdb_ndcg: preset ''' || preset || ''' sets gain := '''
              || _ndcg_preset_row(preset).gain || '''; drop gain := '
              || coalesce('''' || gain::VARCHAR || '''', 'NULL'))
    WHEN TRY_CAST(empty_ideal AS DOUBLE) IS DISTINCT FROM 0.0
         AND TRY_CAST(empty_ideal AS DOUBLE)
             IS DISTINCT FROM _ndcg_preset_row(preset).empty_ideal THEN
        error('duckdb_ndcg: preset ''' || preset || ''' sets empty_ideal := '
              || _ndcg_preset_row(preset).empty_ideal::VARCHAR || '; drop empty_ideal := '
              || coalesce(empty_ideal::VARCHAR, 'NULL'))
    WHEN _ndcg_preset_row(preset).own_order AND score_col IS NOT NULL THEN
        error('duckdb_ndcg: preset ''' || preset || ''' orders equal scores as ' || preset
              || ' does (input order), which a score column cannot tell: give the rank '
              || '(position_col)')
    WHEN NOT coalesce(list_has_all(['ndcg', 'judged_at_k'], _ndcg_slice_list(metrics)), false)
        THEN
        error('duckdb_ndcg: preset ''' || preset || ''' fixes NDCG''s conventions only: '
              || 'metrics must be ndcg (or judged_at_k), got '
              || coalesce(metrics::VARCHAR, 'NULL'))
    WHEN summary AND _ndcg_preset_row(preset).rounding IS NOT NULL THEN
        error('duckdb_ndcg: preset ''' || preset || ''' scores each query, rounded to '
              || _ndcg_preset_row(preset).rounding || ' decimals, and has no mean over '
              || 'queries: use ndcg_report')
    ELSE _ndcg_preset_row(preset)
END;

-- _ndcg_preset_events(rankings, events, checked, query_col := NULL, item_col := NULL)
--   -> TABLE(the columns of events)
-- The events a preset's report reads (internal): all of them, or for a tool whose ideal holds
-- the ranked items' grades only (scikit-learn, LightGBM, XGBoost; checked.ranked_ideal) those
-- of the (query, item) pairs rankings shows. checked is _ndcg_preset(...): computed once in a
-- one-row MATERIALIZED CTE that every row goes through, so that its errors are raised on every
-- input, empty ones too (an error() cannot be an option of the report: the engine reads its
-- options inside COLUMNS lambdas, where it is an unsupported expression).
-- Example: WITH e AS (SELECT * FROM _ndcg_preset_events('shown', 'events', checked,
--                                                        query_col := 'query_id'))
CREATE OR REPLACE MACRO _ndcg_preset_events(rankings, events, checked, query_col := NULL,
                                            item_col := NULL) AS TABLE
WITH _ndcg_preset_checked AS MATERIALIZED (
    SELECT checked AS _ndcg_p
)
SELECT * EXCLUDE (_ndcg_pq, _ndcg_pi, _ndcg_p)
FROM (SELECT *, COLUMNS(lambda c: c = query_col) AS _ndcg_pq,
             COLUMNS(lambda c: c = item_col) AS _ndcg_pi
      FROM query_table(events)) AS e
CROSS JOIN _ndcg_preset_checked
WHERE NOT _ndcg_p.ranked_ideal
   OR EXISTS (SELECT 1
              FROM (SELECT COLUMNS(lambda c: c = query_col) AS _q,
                           COLUMNS(lambda c: c = item_col) AS _i
                    FROM query_table(rankings)) AS r
              WHERE r._q = e._ndcg_pq AND r._i = e._ndcg_pi);
