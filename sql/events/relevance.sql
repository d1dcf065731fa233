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

-- event_relevance(events, query_col := 'query_id', item_col := 'item_id', event_col := 'event_type',
--                 mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error')
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
-- A NULL query key is an error. An event without an item (a search-level event such as
-- search_refine) is dropped when its type's grade is 0 or the type is ignored (unknown :=
-- 'ignore'), and is an error when its type has another grade; evaluate() and the CLI warn with
-- the number dropped (in SQL: count the events whose item is NULL). A NULL event type is an
-- unknown type.
-- Example: SELECT * FROM event_relevance('events', mapping := MAP {'click': 1, 'order': 5});
CREATE OR REPLACE MACRO event_relevance(events, query_col := 'query_id', item_col := 'item_id',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE
SELECT * FROM _ndcg_event_relevance(events, query_col, item_col, event_col,
                                    _ndcg_mapping(mapping), collapse, time_col, unknown, false);

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
