-- _ndcg_event_relevance(events, query_col, item_col, event_col, mapping, collapse, time_col, unknown,
--                       positive_only) -> TABLE(query_id, item_id, rel DOUBLE)
-- The body of event_relevance (internal; see there for the parameters). positive_only := true
-- leaves out the (query, item) pairs whose grade is not positive before they are grouped, which
-- is exact only where the caller has checked that no grade is negative and collapse is 'max' or
-- 'sum' (the report engine, _ndcg_report_rows, does); the checks of unknown event types and NULL
-- keys still read every event.
CREATE OR REPLACE MACRO _ndcg_event_relevance(events, query_col, item_col, event_col, mapping,
                                              collapse, time_col, unknown, positive_only) AS TABLE
WITH _ndcg_graded AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = query_col) AS query_id,
           COLUMNS(lambda c: c = item_col) AS item_id,
           COLUMNS(lambda c: c = event_col)::VARCHAR AS event_type,
           COLUMNS(lambda c: c = coalesce(time_col, event_col)) AS event_time,
           _ndcg_event_grade(COLUMNS(lambda c: c = event_col), mapping) AS grade
    FROM query_table(events)
),
_ndcg_collapsed AS (
    SELECT query_id, item_id,
           CASE collapse
               WHEN 'max' THEN max(grade)
               WHEN 'sum' THEN sum(grade)
               WHEN 'last' THEN arg_max(grade, {known: event_time IS NOT NULL, t: event_time, g: grade})
                                   FILTER (WHERE grade IS NOT NULL)
           END AS rel
    FROM _ndcg_graded
    -- positive_only: the caller needs the items with a positive grade only, and every grade
    -- is >= 0 with collapse 'max' or 'sum' (usually most events are impressions of grade 0);
    -- an event without an item (search-level: search_refine) is dropped, or an error below
    WHERE (NOT positive_only OR grade > 0) AND item_id IS NOT NULL
    GROUP BY query_id, item_id
),
_ndcg_time_type AS (
    -- read from one row: the type of time_col, which collapse := 'last' orders by
    SELECT typeof(COLUMNS(lambda c: c = coalesce(time_col, event_col))) AS time_type
    FROM query_table(events) LIMIT 1
),
_ndcg_names AS (
    -- the table's name for the messages below, taken where no column is in scope (a bare name,
    -- events table rel, would otherwise bind as a column of the rows)
    SELECT _ndcg_table_name(events) AS _events_name
),
_ndcg_unknown_found AS (
    -- a second, narrow scan of the events: cheaper than a per-(query, item) list of types
    SELECT list_sort(list(DISTINCT coalesce(event_type, 'NULL')) FILTER (WHERE grade IS NULL))
               AS types,
           count(*) FILTER (WHERE query_id IS NULL) AS null_queries,
           -- an event without an item is dropped when its type's grade is 0 or the type is
           -- unknown (ignored, or the unknown-type error); graded otherwise, it is an error
           list_sort(list(DISTINCT event_type) FILTER (WHERE item_id IS NULL AND grade <> 0))
               AS itemless_graded
    FROM _ndcg_graded
)
SELECT * FROM (
SELECT query_id, item_id,
       CASE
           WHEN collapse IS NULL OR collapse NOT IN ('max', 'sum', 'last') THEN
               error('duckdb_ndcg: collapse must be ''max'', ''sum'' or ''last'', got '
                     || coalesce('''' || collapse || '''', 'NULL'))
           WHEN collapse = 'last' AND time_col IS NULL THEN
               error('duckdb_ndcg: collapse := ''last'' needs time_col := <timestamp column>')
           WHEN collapse = 'last'
                AND NOT regexp_matches(time_type, '^(DATE|TIME|TIMESTAMP|TIMESTAMP_.*|TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE|U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL.*)$') THEN
               error('duckdb_ndcg: time_col ' || time_col || ' of events table '
                     || _events_name || ' is '
                     || time_type || '; collapse := ''last'' needs a date, time, timestamp or '
                     || 'number (cast text times, e.g. ' || time_col || '::TIMESTAMP, in a view)')
           WHEN unknown IS NULL OR unknown NOT IN ('error', 'ignore') THEN
               error('duckdb_ndcg: unknown must be ''error'' or ''ignore'', got '
                     || coalesce('''' || unknown || '''', 'NULL'))
           WHEN NOT coalesce(list_bool_and(list_transform(map_values(mapping),
                                                          lambda g: coalesce(isfinite(g::DOUBLE), false))), true) THEN
               error('duckdb_ndcg: mapping ' || mapping::VARCHAR
                     || ' gives an event type a NaN, infinite or NULL grade')
           WHEN _ndcg_unknown_found.null_queries > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || query_col)
           WHEN len(_ndcg_unknown_found.itemless_graded) > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || item_col
                     || ' on an event of a graded type ('
                     || array_to_string(_ndcg_unknown_found.itemless_graded, ', ')
                     || '): only events whose grade is 0 or whose type is ignored may lack '
                     || 'their item')
           WHEN unknown = 'error' AND len(_ndcg_unknown_found.types) > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name
                     || ' has event types the mapping lacks: '
                     || array_to_string(_ndcg_unknown_found.types, ', ')
                     || ' (give them a grade in mapping, or pass unknown := ''ignore'')')
           ELSE rel
       END AS rel
-- one row more (NULL keys and grade) so that the checks run even when no (query, item) is left
FROM (SELECT query_id, item_id, rel FROM _ndcg_collapsed UNION ALL SELECT NULL, NULL, NULL),
     _ndcg_unknown_found LEFT JOIN _ndcg_time_type ON true CROSS JOIN _ndcg_names
)
-- rel is NULL where every event of the (query, item) was ignored, and on the extra row
WHERE rel IS NOT NULL;
