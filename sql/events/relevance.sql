-- Event logs to grades: the mapping, each event's grade, a (query, item) pair's relevance, and how
-- well events match rankings.

-- _ndcg_mapping(mapping) -> MAP(VARCHAR, DOUBLE)
-- The mapping argument as a MAP from event type to grade (internal): a MAP as given (its values
-- as DOUBLE), a STRUCT literal ({'click': 1}, a common slip for MAP {'click': 1}) and a MAP's
-- text form ('{click=1, purchase=3}', the form gain accepts) as that MAP; NULL stays NULL (the
-- default grades). Anything else is one error naming the form. A grade text that is no number
-- ('{click=x}') becomes NULL, which event_relevance refuses.
CREATE OR REPLACE MACRO _ndcg_mapping(mapping) AS
CASE WHEN mapping IS NULL THEN NULL::MAP(VARCHAR, DOUBLE)
     ELSE coalesce(TRY_CAST(mapping AS MAP(VARCHAR, DOUBLE)),
                   error('duckdb_ndcg: mapping must be a MAP from event type to grade, e.g. '
                         || 'MAP {''click'': 1, ''purchase'': 3}, got ' || mapping::VARCHAR)) END;

-- _ndcg_event_grade(event_type, mapping): the grade of one event type (internal). mapping NULL is
-- the default mapping: impression/view 0, click 1, add_to_cart/cart 2, purchase 3 (the seeds'
-- grades); otherwise mapping is a MAP from event type to grade. NULL for a type the mapping lacks.
CREATE OR REPLACE MACRO _ndcg_event_grade(event_type, mapping) AS
CASE
    WHEN mapping IS NULL THEN
        CASE event_type::VARCHAR
            WHEN 'impression' THEN 0.0 WHEN 'view' THEN 0.0
            WHEN 'click' THEN 1.0
            WHEN 'add_to_cart' THEN 2.0 WHEN 'cart' THEN 2.0
            WHEN 'purchase' THEN 3.0
        END
    ELSE map_extract_value(mapping, event_type::VARCHAR)
END::DOUBLE;

-- _ndcg_value_grades(value_grades) -> MAP(DOUBLE, DOUBLE): the value_grades argument checked
-- (internal): NULL stays NULL (no value grades); a MAP from value threshold to grade (a MAP value
-- or its text form '{30=1, 120=2}') whose thresholds are finite and strictly increasing as
-- written and whose grades are finite and >= 0; anything else is one error naming value_grades.
CREATE OR REPLACE MACRO _ndcg_value_grades(value_grades) AS
CASE
    WHEN value_grades IS NULL THEN NULL::MAP(DOUBLE, DOUBLE)
    -- a threshold that is no number: NULL (DuckDB 2.0) or a NULL key (1.4, 1.5) after the cast
    WHEN TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE)) IS NULL
         OR cardinality(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE))) = 0
         OR len(list_filter(map_keys(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE))),
                            lambda t: t IS NULL)) > 0 THEN
        error('duckdb_ndcg: value_grades must be a MAP from value threshold to grade, e.g. '
              || 'MAP {30: 1, 120: 2}, got ' || value_grades::VARCHAR)
    WHEN NOT list_bool_and(list_transform(
             list_concat(map_keys(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE))),
                         map_values(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE)))),
             lambda v: coalesce(isfinite(v), false))) THEN
        error('duckdb_ndcg: value_grades ' || value_grades::VARCHAR
              || ' has a NaN, infinite or NULL threshold or grade')
    WHEN list_min(map_values(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE)))) < 0 THEN
        error('duckdb_ndcg: value_grades ' || value_grades::VARCHAR
              || ' gives the negative grade '
              || list_min(map_values(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE))))::VARCHAR
              || ': grades are 0 and above')
    WHEN map_keys(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE)))
         <> list_sort(list_distinct(map_keys(TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE)))))
         THEN
        error('duckdb_ndcg: value_grades ' || value_grades::VARCHAR
              || ' must list its thresholds in increasing order, e.g. MAP {30: 1, 120: 2}')
    ELSE TRY_CAST(value_grades AS MAP(DOUBLE, DOUBLE))
END;

-- _ndcg_value_grade(v, grades): the grade of value v under a checked value_grades MAP (internal):
-- the grade of the largest threshold <= v; 0 below every threshold.
CREATE OR REPLACE MACRO _ndcg_value_grade(v, grades) AS
coalesce(list_filter(map_entries(grades), lambda e: e.key <= v)[-1].value, 0.0)::DOUBLE;

-- _ndcg_by_value(value_grades, gain): whether events are graded by their value (internal):
-- value_grades given, or gain := 'value'.
CREATE OR REPLACE MACRO _ndcg_by_value(value_grades, gain) AS
value_grades IS NOT NULL OR coalesce(gain::VARCHAR = 'value', false);

-- _ndcg_event_relevance(events, query_col := ..., item_col := ..., event_col := ..., mapping := ...,
--                       collapse := ..., time_col := ..., unknown := ..., value_col := ...,
--                       value_grades := ..., gain := ..., positive_only := ...)
--   -> TABLE(query_id, item_id, rel DOUBLE)
-- The body of event_relevance (internal; see there for the parameters; gain := 'value' grades
-- an event by its value, as ndcg_report documents; any other gain is not read). positive_only := true
-- leaves out the (query, item) pairs whose grade is not positive before they are grouped, which
-- is exact only where the caller has checked that no grade is negative and collapse is 'max' or
-- 'sum' (the report engine, _ndcg_report_rows, does); the checks of unknown event types and NULL
-- keys still read every event.
CREATE OR REPLACE MACRO _ndcg_event_relevance(events, query_col := NULL, item_col := NULL,
                                              event_col := NULL, mapping := NULL, collapse := NULL,
                                              time_col := NULL, unknown := NULL, value_col := NULL,
                                              value_grades := NULL, gain := NULL,
                                              positive_only := NULL) AS TABLE
WITH _ndcg_typed AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = query_col) AS query_id,
           COLUMNS(lambda c: c = item_col) AS item_id,
           COLUMNS(lambda c: c = event_col)::VARCHAR AS event_type,
           COLUMNS(lambda c: c = coalesce(time_col, event_col)) AS event_time,
           _ndcg_event_grade(COLUMNS(lambda c: c = event_col), mapping) AS type_grade,
           -- the value column is read only when events are graded by value (the event column
           -- stands in otherwise, and is not read); its type is checked below
           CASE WHEN _ndcg_by_value(value_grades, gain) THEN
               TRY_CAST(COLUMNS(lambda c: c = CASE WHEN _ndcg_by_value(value_grades, gain)
                                                   THEN value_col ELSE event_col END) AS DOUBLE)
           END AS event_value
    FROM query_table(events)
),
_ndcg_graded AS NOT MATERIALIZED (
    -- graded by value: an event of a type the mapping grades above 0 gets its value's grade
    -- (value_grades) or its value (gain := 'value'); types graded 0 or less, and unknown types,
    -- keep the mapping's grade (their value is not read)
    SELECT query_id, item_id, event_type, event_time, type_grade, event_value,
           CASE WHEN NOT _ndcg_by_value(value_grades, gain) OR type_grade IS NULL
                     OR type_grade <= 0 THEN type_grade
                WHEN value_grades IS NULL THEN event_value
                ELSE _ndcg_value_grade(event_value, _ndcg_value_grades(value_grades))
           END::DOUBLE AS grade
    FROM _ndcg_typed
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
    -- read from one row: the type of time_col, which collapse := 'last' orders by, and of
    -- value_col (when events are graded by value)
    SELECT typeof(COLUMNS(lambda c: c = coalesce(time_col, event_col))) AS time_type,
           typeof(COLUMNS(lambda c: c = CASE WHEN _ndcg_by_value(value_grades, gain)
                                             THEN value_col ELSE event_col END)) AS value_type
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
               AS itemless_graded,
           -- graded by value: the events of a type graded above 0 whose value is unusable
           count(*) FILTER (WHERE _ndcg_by_value(value_grades, gain) AND type_grade > 0
                                  AND NOT coalesce(event_value >= 0 AND isfinite(event_value),
                                                   false)) AS bad_values,
           min(coalesce(event_value::VARCHAR, 'NULL'))
               FILTER (WHERE _ndcg_by_value(value_grades, gain) AND type_grade > 0
                             AND NOT coalesce(event_value >= 0 AND isfinite(event_value),
                                              false)) AS bad_value
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
           WHEN value_grades IS NOT NULL AND coalesce(gain::VARCHAR = 'value', false) THEN
               error('duckdb_ndcg: gain := ''value'' takes each event''s value as its grade and '
                     || 'value_grades makes grades of it: pass one of them')
           WHEN _ndcg_value_grades(value_grades) IS NULL AND value_grades IS NOT NULL THEN NULL
           WHEN _ndcg_by_value(value_grades, gain) AND value_type IS NOT NULL
                AND NOT _ndcg_is_number_type(value_type) THEN
               error('duckdb_ndcg: value_col ' || value_col || ' of events table '
                     || _events_name || ' is ' || value_type
                     || '; value grades need a number (cast it in a view)')
           WHEN _ndcg_unknown_found.bad_values > 0 THEN
               error('duckdb_ndcg: value_col ' || value_col || ' of events table '
                     || _events_name || ' is NULL, NaN, infinite or negative ('
                     || _ndcg_unknown_found.bad_value || ') on '
                     || _ndcg_unknown_found.bad_values::VARCHAR
                     || ' events of a type the mapping grades above 0: value grades need a '
                     || 'finite value >= 0 (grade such types 0 in mapping, or fill the value)')
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

-- event_relevance(events, query_col := 'query_id', item_col := 'item_id', event_col := 'event_type',
--                 mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error',
--                 value_col := 'value', value_grades := NULL)
--   -> TABLE(query_id, item_id, rel DOUBLE)
-- Graded relevance from a log of user actions: one row per (query, item) of table `events` (a
-- name, quoted as in SQL when it needs quotes; a bare name works too), ready to be joined to a
-- ranking as judgments.
--   query_col, item_col, event_col  names (strings) of the columns of `events` to read.
--   mapping    MAP from event type to grade; NULL = the seeds' default: impression/view 0,
--              click 1, add_to_cart/cart 2, purchase 3 (exact, case-sensitive names). A given map
--              replaces the default. A mapping kept in a table can be passed as a subquery:
--              mapping := (SELECT map(list(event_type), list(grade)) FROM my_mapping).
--              A STRUCT literal ({'click': 1}) or a MAP's text form ('{click=1, purchase=3}', as
--              gain takes) is read as that MAP; any other value is an error.
--   collapse   how the events of one (query, item) become one grade: 'max' (best action), 'sum'
--              (grades add up), 'last' (grade of the latest event by time_col; equal times keep
--              the higher grade; a NULL time counts as earlier than every time). Any other
--              value (NULL, 'mean', 'MAX': choices are exact) is an error, whatever unknown is.
--   time_col   name of the timestamp column; needed by collapse := 'last' only, and must be a
--              date, time, timestamp or number (text would compare alphabetically).
--   unknown    'error': an event type the mapping lacks is an error listing every such type;
--              'ignore': such rows are dropped (a (query, item) with only unknown events is left
--              out, so it is not judged).
--   value_col  name of the numeric column holding each event's value (revenue, dwell seconds,
--              rating; the source adapters' `value`); read only with value_grades (or
--              ndcg_report's gain := 'value').
--   value_grades  MAP from value threshold to grade (MAP {30: 1, 120: 2}, or its text form
--              '{30=1, 120=2}'); NULL (default) = grades by event type alone. Given, an event of a
--              type the mapping grades above 0 is graded by its value instead: the grade of the
--              largest threshold <= value, 0 below every threshold (30 -> 1, 119.9 -> 1, 120 -> 2,
--              29 -> 0); an event of a type the mapping grades 0 (impression) or lacks keeps that
--              grade or unknown's rule, and its value is not read. collapse then combines the
--              grades of a (query, item) as usual. Thresholds must be finite and increasing as
--              written, grades finite and >= 0; value_col must be a number, and NULL, NaN,
--              infinite or negative on an event graded by value: each is one error naming the
--              option or the column.
-- A NULL query key is an error. An event without an item (a search-level event such as
-- search_refine) is dropped when its type's grade is 0 or the type is ignored (unknown :=
-- 'ignore'), and is an error when its type has another grade; evaluate() and the CLI warn with
-- the number dropped (in SQL: count the events whose item is NULL). A NULL event type is an
-- unknown type.
-- Example: SELECT * FROM event_relevance('events', mapping := MAP {'click': 1, 'order': 5});
CREATE OR REPLACE MACRO event_relevance(events, query_col := 'query_id', item_col := 'item_id',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error', value_col := 'value',
                                        value_grades := NULL) AS TABLE
SELECT * FROM _ndcg_event_relevance(events, query_col := query_col, item_col := item_col,
                                    event_col := event_col, mapping := _ndcg_mapping(mapping),
                                    collapse := collapse, time_col := time_col, unknown := unknown,
                                    value_col := value_col, value_grades := value_grades,
                                    gain := 'linear', positive_only := false);

-- event_match(rankings, events, query_col := 'query_id', item_col := 'item_id',
--             event_col := 'event_type', mapping := NULL, sample := 10000)
--   -> TABLE(sampled BIGINT, matched BIGINT)
-- How many of the first `sample` events with a positive grade (by mapping, as in event_relevance)
-- name a (query, item) that `rankings` shows. matched = 0 with sampled > 0 means the events judge
-- nothing that was shown: ids written differently in the two tables ('A12' and 'a12', '007' and
-- '7'), so every NDCG would be 0. One bounded read of the events and one read of the rankings'
-- key columns; evaluate() and the CLI warn from it.
-- Example: SELECT * FROM event_match('shown', 'events');
CREATE OR REPLACE MACRO event_match(rankings, events, query_col := 'query_id',
                                    item_col := 'item_id', event_col := 'event_type',
                                    mapping := NULL, sample := 10000) AS TABLE
WITH _ndcg_graded AS (
    SELECT DISTINCT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _i
    FROM (
        SELECT * FROM query_table(events)
        WHERE _ndcg_event_grade(COLUMNS(lambda c: c = event_col), _ndcg_mapping(mapping)) > 0
        LIMIT sample
    )
),
_ndcg_shown AS (
    SELECT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _i
    FROM query_table(rankings)
)
SELECT count(*) AS sampled,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM _ndcg_shown
                                      WHERE _ndcg_shown._q = _ndcg_graded._q
                                        AND _ndcg_shown._i = _ndcg_graded._i)) AS matched
FROM _ndcg_graded;
