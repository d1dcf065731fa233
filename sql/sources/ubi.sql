-- OpenSearch User Behavior Insights queries and events as rankings and events.

-- _ndcg_ubi_time(ts) -> TIMESTAMP (UTC)
-- A UBI timestamp as a TIMESTAMP in UTC (internal): ISO 8601 text (with 'Z' or an offset, or
-- without, read as UTC), a DuckDB TIMESTAMP or TIMESTAMPTZ (read_json's guess), or a number of
-- milliseconds since 1970 (the events mapping's epoch_millis). OpenSearch indexes malformed
-- timestamps and ignores them (ignore_malformed): they are NULL here too. The times are carried
-- for the contract's shown_at and event_at; no UBI number depends on them.
CREATE OR REPLACE MACRO _ndcg_ubi_time(ts) AS
CASE
    WHEN _ndcg_json_text(ts) IS NULL THEN NULL
    WHEN regexp_full_match(trim(_ndcg_json_text(ts)), '[0-9]{1,16}') THEN
        make_timestamp(trim(_ndcg_json_text(ts))::BIGINT * 1000)
    WHEN regexp_matches(trim(_ndcg_json_text(ts)), '(Z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN
        make_timestamp(epoch_us(TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMPTZ)))
    ELSE TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMP)
END;

-- _ndcg_ubi_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The UBI action names the adapter reads and the event_type each becomes (internal): NULL is
-- UBI's common actions under their own names (click, add_to_cart, purchase, impression, view:
-- the names ndcg_report's default mapping grades 1, 2, 3, 0, 0); a given MAP replaces it. Any
-- other value is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_ubi_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'click': 'click', 'add_to_cart': 'add_to_cart', 'purchase': 'purchase',
               'impression': 'impression', 'view': 'view'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from UBI action name to event '
                         || 'type, e.g. MAP {''click_through'': ''click''}, got '
                         || event_types::VARCHAR))
END;

-- _ndcg_ubi_rows(events_tbl, event_types)
--   -> TABLE(event_name, event_type, query_id, item_id, session_id, user_id, application VARCHAR,
--            event_at TIMESTAMP, ordinal BIGINT)
-- One row per event of a UBI 1.3.0 ubi_events table (internal), read and checked: action_name,
-- query_id, session_id, client_id (the user), application, timestamp, and from event_attributes
-- object.object_id (text or integer) and position.ordinal (a whole number >= 0, else an error
-- naming it). event_type is event_types' name for action_name (NULL: not named).
-- event_attributes may be a STRUCT, a MAP(VARCHAR, JSON) (read_json's type when the documents'
-- keys differ too much, as in SRW's ESCI UBI sample) or JSON: a subscript ['object'] reads all
-- three, where struct_extract binds on a STRUCT only.
CREATE OR REPLACE MACRO _ndcg_ubi_rows(events_tbl, event_types) AS TABLE
SELECT action_name::VARCHAR AS event_name,
       map_extract_value(_ndcg_ubi_types(event_types), action_name::VARCHAR) AS event_type,
       nullif(query_id::VARCHAR, '') AS query_id,
       nullif(_ndcg_json_text(event_attributes['object']['object_id']), '') AS item_id,
       session_id::VARCHAR AS session_id,
       client_id::VARCHAR AS user_id,
       application::VARCHAR AS application,
       _ndcg_ubi_time("timestamp") AS event_at,
       CASE
           WHEN _ordinal IS NULL THEN NULL
           WHEN regexp_full_match(trim(_ordinal), '[0-9]{1,18}') THEN trim(_ordinal)::BIGINT
           ELSE error('duckdb_ndcg: event_attributes.position.ordinal must be a whole number >= 0, '
                      || 'got ' || _ordinal || ' (query ' || coalesce(query_id::VARCHAR, 'NULL')
                      || ', action ' || coalesce(action_name::VARCHAR, 'NULL') || ')')
       END AS ordinal
FROM (SELECT *,
             _ndcg_json_text(event_attributes['position']['ordinal']) AS _ordinal
      FROM query_table(events_tbl));

-- _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, application, user_id, session_id,
--            shown_at TIMESTAMP, shown_by VARCHAR)
-- What each UBI query showed (internal; ubi_rankings states the rules): a query of ubi_queries
-- with query_response_hit_ids shows those ids in order, positions 1, 2, ... (shown_by 'hits');
-- a query without them (not in ubi_queries, or an empty list) shows the items of its impression
-- events (event_type 'impression' or 'view') at their ordinal (shown_by 'impressions'), read
-- 0-based or 1-based by position_base ('auto': per application and action name, 0-based when
-- the smallest ordinal is 0); an item with several impressions keeps its first position.
CREATE OR REPLACE MACRO _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
AS TABLE
WITH _ndcg_queries AS (
    SELECT nullif(query_id::VARCHAR, '') AS query_id, user_query::VARCHAR AS search_term,
           application::VARCHAR AS application, client_id::VARCHAR AS user_id,
           _ndcg_ubi_time("timestamp") AS shown_at, query_response_hit_ids AS _hits
    FROM query_table(queries_tbl)
),
_ndcg_events AS (
    SELECT * FROM _ndcg_ubi_rows(events_tbl, event_types)
),
_ndcg_sessions AS (
    SELECT query_id, min(session_id) AS session_id FROM _ndcg_events
    WHERE query_id IS NOT NULL GROUP BY query_id
),
_ndcg_listed AS (
    SELECT query_id, item_id, position, search_term, application, user_id, shown_at,
           'hits' AS shown_by
    FROM (SELECT *, unnest(_hits)::VARCHAR AS item_id, generate_subscripts(_hits, 1) AS position
          FROM _ndcg_queries
          WHERE query_id IS NOT NULL AND len(_hits) > 0)
),
_ndcg_impressions AS (
    SELECT query_id, item_id,
           min(ordinal + 1 - CASE position_base::VARCHAR
                                 WHEN '0' THEN 0 WHEN '1' THEN 1
                                 ELSE CASE WHEN _smallest = 0 THEN 0 ELSE 1 END END) AS position,
           min(application) AS application, min(user_id) AS user_id,
           min(event_at) AS shown_at, 'impressions' AS shown_by
    FROM (SELECT *,
                 min(ordinal) OVER (PARTITION BY application, event_name) AS _smallest
          FROM _ndcg_events
          WHERE event_type IN ('impression', 'view') AND query_id IS NOT NULL
            AND item_id IS NOT NULL AND ordinal IS NOT NULL)
    WHERE query_id NOT IN (SELECT query_id FROM _ndcg_listed)
    GROUP BY query_id, item_id
),
_ndcg_checked AS (
    SELECT *,
           CASE WHEN position < 1 THEN
                    error('duckdb_ndcg: event_attributes.position.ordinal 0 read as 1-based '
                          || '(position_base := 1): query ' || query_id || ', item ' || item_id
                          || ' (use position_base := 0 or ''auto'')')
                ELSE position END AS _position
    FROM (SELECT * FROM _ndcg_listed
          UNION ALL BY NAME
          -- the query's own text, application and client when ubi_queries has the query
          SELECT i.query_id, i.item_id, i.position, q.search_term,
                 coalesce(q.application, i.application) AS application,
                 coalesce(q.user_id, i.user_id) AS user_id,
                 coalesce(q.shown_at, i.shown_at) AS shown_at, i.shown_by
          FROM _ndcg_impressions i
          LEFT JOIN (SELECT DISTINCT ON (query_id) * FROM _ndcg_queries) q USING (query_id))
)
SELECT c.query_id, c.item_id, c._position AS position, c.search_term, c.application, c.user_id,
       s.session_id, c.shown_at, c.shown_by
FROM _ndcg_checked c LEFT JOIN _ndcg_sessions s USING (query_id);

-- _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base := ..., event_types := ...,
--                        shown := ...)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id, session_id,
--            value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every UBI event that names an object or carries a graded type, with the showing it belongs to
-- (its own query_id: UBI needs no attribution) or the reason it has none (internal; ubi_events
-- returns the first, ubi_unattributed the others): 'unknown event' (event_types does not name
-- the action), 'no item' (no event_attributes.object.object_id), 'no query' (query_id NULL),
-- 'never shown' (the query showed other items), 'no position' (the query has no shown list: not
-- in ubi_queries with hit ids, and no impression with an ordinal). Events without an object of
-- a type event_types does not name (a search box's keystrokes) are not interactions: left out.
-- shown: NULL computes the shown lists; a table's name reads them from it instead
-- (ubi_rankings with the same options, made once: what evaluate(source=...) passes).
CREATE OR REPLACE MACRO _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base := NULL,
                                               event_types := NULL, shown := NULL) AS TABLE
WITH _ndcg_computed_shown AS (
    SELECT * FROM _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
),
_ndcg_shown AS (
    -- the shown lists: the table named by `shown` (evaluate() passes the ubi_rankings it
    -- made, so they are computed once), else computed here
    SELECT * FROM query_table(coalesce(shown, '_ndcg_computed_shown'))
),
_ndcg_events AS (
    SELECT e.*, s.position, s.shown_at,
           CASE
               WHEN e.event_type IS NULL THEN 'unknown event'
               WHEN e.item_id IS NULL THEN 'no item'
               WHEN e.query_id IS NULL THEN 'no query'
               WHEN s.position IS NOT NULL THEN NULL
               WHEN e.query_id IN (SELECT query_id FROM _ndcg_shown) THEN 'never shown'
               ELSE 'no position'
           END AS reason
    FROM _ndcg_ubi_rows(events_tbl, event_types) e
    LEFT JOIN _ndcg_shown s ON s.query_id = e.query_id AND s.item_id = e.item_id
    WHERE (e.item_id IS NOT NULL OR e.event_type IS NOT NULL)
)
SELECT query_id, item_id, event_type, event_name,
       event_at, user_id, session_id, NULL::DOUBLE AS value, position, shown_at, reason
FROM _ndcg_events;

-- ubi_rankings(queries_tbl, events_tbl, position_base := 'auto', event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            application VARCHAR, user_id VARCHAR, session_id VARCHAR, shown_at TIMESTAMP,
--            shown_by VARCHAR)
-- The shown lists of OpenSearch User Behavior Insights (UBI 1.3.0) in the adapters' contract
-- (README "From GA4 and UBI exports"): `queries_tbl` is the ubi_queries index as it lands in
-- DuckDB (query_id, user_query, client_id, application, timestamp, query_response_hit_ids),
-- `events_tbl` the ubi_events index (action_name, query_id, session_id, client_id, application,
-- timestamp, event_attributes.object.object_id, event_attributes.position.ordinal). One row per
-- item a query showed, position 1 = first, with the slices search_term (user_query) and
-- application, the user (client_id), the session (of the query's events) and the time.
-- A query with query_response_hit_ids shows those ids in that order (shown_by 'hits'); a query
-- without them (absent from ubi_queries, or an empty list) shows the objects of its impression
-- events (those event_types maps to 'impression' or 'view') at their ordinal (shown_by
-- 'impressions'; an object seen twice keeps its first position).
--   position_base  how ordinals count: 'auto' (default): per application and action name, 0-based
--                  when the smallest ordinal is 0 (applications differ within one index), else
--                  1-based; 0 or 1: every ordinal (an ordinal 0 read as 1-based is an error).
--   event_types    as ubi_events: which actions are impressions.
-- An ordinal that is no whole number >= 0 is an error naming event_attributes.position.ordinal.
-- Example: CREATE VIEW shown AS SELECT * FROM ubi_rankings('ubi_queries', 'ubi_events');
CREATE OR REPLACE MACRO ubi_rankings(queries_tbl, events_tbl, position_base := 'auto',
                                     event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base)
           AND _ndcg_ubi_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
-- the options are checked by a branch that always runs (an empty index skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS query_id FROM _ndcg_options WHERE NOT _ok;

-- ubi_events(queries_tbl, events_tbl, position_base := 'auto', event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of OpenSearch UBI 1.3.0 (tables as ubi_rankings reads them) in the adapters'
-- contract: one row per event on an object (event_attributes.object.object_id) that its query
-- (query_id, logged with the event: no attribution needed) showed, with the position
-- ubi_rankings gives it. event_type is the action's name for ndcg_report:
--   event_types  NULL (default): click, add_to_cart, purchase, impression and view as they are,
--                which ndcg_report's default mapping grades 1, 2, 3, 0 and 0; a MAP from UBI
--                action name to event type replaces it (MAP {'click_through': 'click'}).
--   position_base: as ubi_rankings.
-- Every other event on an object, or of a named type, is in ubi_unattributed with its reason
-- ('unknown event', 'no item', 'no query', 'never shown', 'no position'); with ubi_events each
-- such event is counted once.
-- Example: CREATE VIEW events AS SELECT * FROM ubi_events('ubi_queries', 'ubi_events');
CREATE OR REPLACE MACRO ubi_events(queries_tbl, events_tbl, position_base := 'auto',
                                   event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base)
           AND _ndcg_ubi_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base := position_base,
                            event_types := event_types, shown := NULL)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;

-- ubi_unattributed(queries_tbl, events_tbl, position_base := 'auto', event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, reason VARCHAR)
-- The UBI events that ubi_events (same options) leaves out, with the reason: 'unknown event'
-- (an action on an object that event_types does not name), 'no item' (no object_id), 'no
-- query' (query_id NULL), 'never shown' (the query's shown list lacks the object), 'no position'
-- (the query has no shown list: no hit ids in ubi_queries, no impression with an ordinal).
-- Example: SELECT reason, count(*) FROM ubi_unattributed('ubi_queries', 'ubi_events') GROUP BY ALL;
CREATE OR REPLACE MACRO ubi_unattributed(queries_tbl, events_tbl, position_base := 'auto',
                                         event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base)
           AND _ndcg_ubi_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT query_id, item_id, event_type, event_name, event_at, user_id, session_id, reason
FROM _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base := position_base,
                            event_types := event_types, shown := NULL)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
