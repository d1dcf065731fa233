-- event_relevance(events, query_col := 'query_id', item_col := 'item_id', event_col := 'event_type',
--                 mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error')
--   -> TABLE(query_id, item_id, rel DOUBLE)
-- Graded relevance from a log of user actions: one row per (query, item) of table `events` (a
-- name, quoted as in SQL when it needs quotes), ready to be joined to a ranking as judgments.
--   query_col, item_col, event_col  names (strings) of the columns of `events` to read.
--   mapping    MAP from event type to grade; NULL = the seeds' default: impression/view 0,
--              click 1, add_to_cart/cart 2, purchase 3 (exact, case-sensitive names). A given map
--              replaces the default. A mapping kept in a table can be passed as a subquery:
--              mapping := (SELECT map(list(event_type), list(grade)) FROM my_mapping).
--   collapse   how the events of one (query, item) become one grade: 'max' (best action), 'sum'
--              (grades add up), 'last' (grade of the latest event by time_col; equal times keep
--              the higher grade; a NULL time counts as earlier than every time).
--   time_col   name of the timestamp column; needed by collapse := 'last' only, and must be a
--              date, time, timestamp or number (text would compare alphabetically).
--   unknown    'error': an event type the mapping lacks is an error listing every such type;
--              'ignore': such rows are dropped (a (query, item) with only unknown events is left
--              out, so it is not judged).
-- NULL query or item keys are an error; a NULL event type is an unknown type.
-- Example: SELECT * FROM event_relevance('events', mapping := MAP {'click': 1, 'order': 5});
CREATE OR REPLACE MACRO event_relevance(events, query_col := 'query_id', item_col := 'item_id',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE
WITH graded AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = query_col) AS query_id,
           COLUMNS(lambda c: c = item_col) AS item_id,
           COLUMNS(lambda c: c = event_col)::VARCHAR AS event_type,
           COLUMNS(lambda c: c = coalesce(time_col, event_col)) AS event_time,
           _ndcg_event_grade(COLUMNS(lambda c: c = event_col), mapping) AS grade
    FROM query_table(events)
),
collapsed AS (
    SELECT query_id, item_id,
           CASE collapse
               WHEN 'max' THEN max(grade)
               WHEN 'sum' THEN sum(grade)
               WHEN 'last' THEN arg_max(grade, {known: event_time IS NOT NULL, t: event_time, g: grade})
                                   FILTER (WHERE grade IS NOT NULL)
           END AS rel
    FROM graded
    GROUP BY query_id, item_id
),
time_type AS (
    -- read from one row: the type of time_col, which collapse := 'last' orders by
    SELECT typeof(COLUMNS(lambda c: c = coalesce(time_col, event_col))) AS time_type
    FROM query_table(events) LIMIT 1
),
unknown_found AS (
    -- a second, narrow scan of the events: cheaper than a per-(query, item) list of types
    SELECT list_sort(list(DISTINCT coalesce(event_type, 'NULL')) FILTER (WHERE grade IS NULL))
               AS types,
           count(*) FILTER (WHERE query_id IS NULL OR item_id IS NULL) AS null_keys
    FROM graded
)
SELECT query_id, item_id,
       CASE
           WHEN collapse IS NULL OR collapse NOT IN ('max', 'sum', 'last') THEN
               error('duckdb_ndcg: collapse must be ''max'', ''sum'' or ''last'', got '
                     || coalesce('''' || collapse || '''', 'NULL'))
           WHEN collapse = 'last' AND time_col IS NULL THEN
               error('duckdb_ndcg: collapse := ''last'' needs time_col := <timestamp column>')
           WHEN collapse = 'last'
                AND NOT regexp_matches(time_type, '^(DATE|TIME|TIMESTAMP|TIMESTAMP_.*|TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE|U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL.*)$') THEN
               error('duckdb_ndcg: time_col ' || time_col || ' of events table ' || events || ' is '
                     || time_type || '; collapse := ''last'' needs a date, time, timestamp or '
                     || 'number (cast text times, e.g. ' || time_col || '::TIMESTAMP, in a view)')
           WHEN unknown IS NULL OR unknown NOT IN ('error', 'ignore') THEN
               error('duckdb_ndcg: unknown must be ''error'' or ''ignore'', got '
                     || coalesce('''' || unknown || '''', 'NULL'))
           WHEN NOT coalesce(list_bool_and(list_transform(map_values(mapping),
                                                          lambda g: coalesce(isfinite(g::DOUBLE), false))), true) THEN
               error('duckdb_ndcg: mapping ' || mapping::VARCHAR
                     || ' gives an event type a NaN, infinite or NULL grade')
           WHEN unknown_found.null_keys > 0 THEN
               error('duckdb_ndcg: events table ' || events || ' has NULL in ' || query_col
                     || ' or ' || item_col)
           WHEN unknown = 'error' AND len(unknown_found.types) > 0 THEN
               error('duckdb_ndcg: events table ' || events || ' has event types the mapping lacks: '
                     || array_to_string(unknown_found.types, ', ')
                     || ' (give them a grade in mapping, or pass unknown := ''ignore'')')
           ELSE rel
       END AS rel
FROM collapsed, unknown_found LEFT JOIN time_type ON true
WHERE rel IS NOT NULL OR unknown = 'error' OR unknown_found.null_keys > 0;
