-- _ndcg_click_log(events_tbl, query_col := NULL, item_col := NULL, position_col := NULL,
--                 session_col := NULL, click_col := NULL, action_col := NULL, time_col := NULL,
--                 start_date := NULL, end_date := NULL, max_rank := NULL)
--   -> TABLE(_s, _q, _d, _p BIGINT, _imp INTEGER, _clk INTEGER)
-- The impression/click log that click_grades and position_bias read (internal; the options are
-- theirs, passed by name): one row per row of events_tbl inside the date range whose position is
-- at most max_rank, with its session (NULL without session_col), query, item, position and the
-- counts it adds: the flag form (action_col NULL) is one impression a row, clicked when click_col
-- is true or 1; the event form (action_col given) is one event a row, an impression when its
-- action is 'impression' and a click when it is 'click' (any case, as SRW reads UBI's
-- action_name; other actions add nothing). Every rule of the input is checked here, each an
-- error naming its column or option.
CREATE OR REPLACE MACRO _ndcg_click_log(events_tbl, query_col := NULL, item_col := NULL,
                                        position_col := NULL, session_col := NULL,
                                        click_col := NULL, action_col := NULL, time_col := NULL,
                                        start_date := NULL, end_date := NULL,
                                        max_rank := NULL) AS TABLE
WITH _ndcg_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = coalesce(session_col, query_col)) AS _s,
           COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _d,
           COLUMNS(lambda c: c = position_col) AS _pos,
           -- the flag of the flag form, the action of the event form
           COLUMNS(lambda c: c = coalesce(action_col, click_col)) AS _signal,
           COLUMNS(lambda c: c = coalesce(time_col, query_col)) AS _t
    FROM query_table(events_tbl)
),
_ndcg_typed AS NOT MATERIALIZED (
    SELECT CASE WHEN session_col IS NOT NULL THEN _s END AS _s, _q, _d,
           TRY_CAST(_pos AS BIGINT) AS _p,
           _pos IS NOT NULL AND coalesce(TRY_CAST(_pos AS DOUBLE) <> TRY_CAST(_pos AS BIGINT), true)
               AS _bad_pos,
           CASE WHEN action_col IS NULL THEN 1
                ELSE coalesce(lower(_signal::VARCHAR) = 'impression', false)::INTEGER END AS _imp,
           CASE WHEN action_col IS NULL
                     THEN CASE WHEN _signal::VARCHAR IN ('1', 'true', '1.0') THEN 1
                               WHEN _signal::VARCHAR IN ('0', 'false', '0.0') THEN 0 END
                ELSE coalesce(lower(_signal::VARCHAR) = 'click', false)::INTEGER END AS _clk,
           CASE WHEN time_col IS NOT NULL THEN TRY_CAST(_t AS DATE) END AS _day
    FROM _ndcg_read
),
_ndcg_checks AS (
    SELECT count(*) FILTER (WHERE _q IS NULL) AS _null_q,
           count(*) FILTER (WHERE _d IS NULL) AS _null_d,
           count(*) FILTER (WHERE _p IS NULL AND NOT _bad_pos) AS _null_p,
           count(*) FILTER (WHERE _bad_pos) AS _bad_p,
           count(*) FILTER (WHERE _p < 0) AS _negative_p,
           count(*) FILTER (WHERE session_col IS NOT NULL AND _s IS NULL) AS _null_s,
           count(*) FILTER (WHERE action_col IS NULL AND _clk IS NULL) AS _bad_click,
           count(*) FILTER (WHERE time_col IS NOT NULL AND _day IS NULL) AS _null_day
    FROM _ndcg_typed
),
_ndcg_names AS (
    SELECT _ndcg_table_name(events_tbl) AS _events_name
)
SELECT * FROM (
SELECT _s, _q, _d, _p, _imp,
       CASE
           WHEN TRY_CAST(max_rank AS BIGINT) IS NULL OR TRY_CAST(max_rank AS BIGINT) < 1
                OR TRY_CAST(max_rank AS DOUBLE) <> TRY_CAST(max_rank AS BIGINT) THEN
               error('duckdb_ndcg: max_rank must be a whole number >= 1, got '
                     || coalesce(max_rank::VARCHAR, 'NULL'))
           WHEN (start_date IS NOT NULL OR end_date IS NOT NULL) AND time_col IS NULL THEN
               error('duckdb_ndcg: start_date and end_date need time_col := <the time column>')
           WHEN _null_q > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in ' || query_col)
           WHEN _null_d > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in ' || item_col)
           WHEN _null_s > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || session_col)
           WHEN _null_p > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || position_col)
           WHEN _bad_p > 0 THEN
               error('duckdb_ndcg: ' || position_col || ' of events table ' || _events_name
                     || ' must hold whole numbers (' || _bad_p || ' rows do not)')
           WHEN _negative_p > 0 THEN
               error('duckdb_ndcg: ' || position_col || ' of events table ' || _events_name
                     || ' has negative positions (' || _negative_p || ' rows)')
           WHEN _bad_click > 0 THEN
               error('duckdb_ndcg: ' || click_col || ' of events table ' || _events_name
                     || ' must be true/false or 1/0 (' || _bad_click || ' rows are not; '
                     || 'a log of impression and click events takes action_col := <column>)')
           WHEN _null_day > 0 THEN
               error('duckdb_ndcg: time_col ' || time_col || ' of events table ' || _events_name
                     || ' must hold dates or timestamps (' || _null_day
                     || ' rows are NULL or are not)')
           ELSE _clk
       END AS _clk
-- one row more (NULL keys) so that the checks run even when no row is left; it is dropped by
-- the CASE's own result, which no filter can skip
FROM (SELECT _s, _q, _d, _p, _imp, _clk FROM _ndcg_typed
      WHERE _p <= TRY_CAST(max_rank AS BIGINT)
        AND (start_date IS NULL OR _day >= start_date::DATE)
        AND (end_date IS NULL OR _day <= end_date::DATE)
      UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL),
     _ndcg_checks CROSS JOIN _ndcg_names
)
WHERE _clk IS NOT NULL;
