-- Algolia Insights events as rankings and events.

-- _ndcg_algolia_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The Algolia Insights events the adapter reads, keyed 'eventType' or 'eventType/eventSubtype',
-- and the event_type each becomes (internal): NULL is click 'click', conversion/addToCart
-- 'add_to_cart', conversion/purchase 'purchase', view 'view' (ndcg_report's default mapping
-- grades them 1, 2, 3, 0); a given MAP replaces it ({'conversion': 'purchase'} reads untyped
-- conversions as purchases). Any other value is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_algolia_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'click': 'click', 'conversion/addToCart': 'add_to_cart',
               'conversion/purchase': 'purchase', 'view': 'view'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from Algolia event '
                         || '(''click'', ''conversion/purchase'', ...) to event type, got '
                         || event_types::VARCHAR))
END;

-- _ndcg_algolia_shown(responses_tbl)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, index_name VARCHAR)
-- What each Algolia search showed (internal; algolia_rankings states the rules): one row per hit
-- of a logged search response (queryID, query, index, page, hitsPerPage, hits[].objectID), at
-- its absolute position page × hitsPerPage + its place among the hits (1 = first), the numbering
-- of the Insights API's positions.
CREATE OR REPLACE MACRO _ndcg_algolia_shown(responses_tbl) AS TABLE
SELECT query_id, item_id,
       CASE WHEN _page < 0 OR (_page > 0 AND _per_page IS NULL) THEN
                error('duckdb_ndcg: page must be a whole number >= 0 with hitsPerPage, got page '
                      || _page::VARCHAR || ', hitsPerPage ' || coalesce(_per_page::VARCHAR, 'NULL')
                      || ' (queryID ' || query_id || ')')
            ELSE _page * coalesce(_per_page, 0) + _place END AS position,
       search_term, index_name
FROM (
    SELECT nullif(queryID::VARCHAR, '') AS query_id,
           _ndcg_json_text(struct_extract(unnest(hits), 'objectID')) AS item_id,
           generate_subscripts(hits, 1) AS _place,
           coalesce(TRY_CAST(page AS BIGINT), 0) AS _page,
           TRY_CAST(hitsPerPage AS BIGINT) AS _per_page,
           query::VARCHAR AS search_term, "index"::VARCHAR AS index_name
    FROM query_table(responses_tbl)
    WHERE nullif(queryID::VARCHAR, '') IS NOT NULL
);

-- _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types := ..., shown := ...)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id,
--            session_id, value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every object of every Algolia Insights event (internal; algolia_events returns the attributed
-- ones, algolia_unattributed the others): the event's queryID, or for a conversion the queryID
-- its objectData gives that object (one order can mix searches), names the search. reason:
-- 'unknown event' (event_types does not name eventType/eventSubtype), 'no item' (objectID NULL
-- or empty), 'no query' (no queryID: viewedObjectIDs, clickedObjectIDs), 'no position' (the
-- queryID is not in the responses log), 'never shown' (the search's hits lack the object).
-- shown: NULL computes the shown lists; a table's name reads them from it instead
-- (algolia_rankings with the same options, made once: what evaluate(source=...) passes).
CREATE OR REPLACE MACRO _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types := NULL,
                                                   shown := NULL) AS TABLE
WITH _ndcg_computed_shown AS (
    SELECT * FROM _ndcg_algolia_shown(responses_tbl)
),
_ndcg_shown AS (
    -- the shown lists: the table named by `shown` (evaluate() passes the algolia_rankings it
    -- made, so they are computed once), else computed here
    SELECT * FROM query_table(coalesce(shown, '_ndcg_computed_shown'))
),
_ndcg_objects AS (
    SELECT eventType::VARCHAR || coalesce('/' || eventSubtype::VARCHAR, '') AS event_name,
           nullif(coalesce(struct_extract(objectData[_place], 'queryID')::VARCHAR,
                           queryID::VARCHAR), '') AS query_id,
           nullif(_ndcg_json_text(_object), '') AS item_id,
           coalesce(authenticatedUserToken::VARCHAR, userToken::VARCHAR) AS user_id,
           CASE WHEN "timestamp" IS NULL THEN NULL
                ELSE make_timestamp(TRY_CAST("timestamp" AS BIGINT) * 1000) END AS event_at,
           TRY_CAST(_ndcg_json_text(struct_extract(objectData[_place], 'price')) AS DOUBLE)
               * coalesce(TRY_CAST(struct_extract(objectData[_place], 'quantity') AS DOUBLE), 1)
               AS value
    FROM (SELECT *, unnest(objectIDs) AS _object, generate_subscripts(objectIDs, 1) AS _place
          FROM query_table(events_tbl))
),
_ndcg_events AS (
    SELECT o.*, map_extract_value(_ndcg_algolia_types(event_types), o.event_name) AS event_type,
           s.position
    FROM _ndcg_objects o
    LEFT JOIN _ndcg_shown s ON s.query_id = o.query_id AND s.item_id = o.item_id
)
SELECT query_id, item_id, event_type, event_name, event_at, user_id, NULL::VARCHAR AS session_id,
       value, position, NULL::TIMESTAMP AS shown_at,
       CASE
           WHEN event_type IS NULL THEN 'unknown event'
           WHEN item_id IS NULL THEN 'no item'
           WHEN query_id IS NULL THEN 'no query'
           WHEN position IS NOT NULL THEN NULL
           WHEN query_id IN (SELECT query_id FROM _ndcg_shown) THEN 'never shown'
           ELSE 'no position'
       END AS reason
FROM _ndcg_events;

-- algolia_rankings(responses_tbl)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            index_name VARCHAR)
-- The shown lists of Algolia searches in the adapters' contract (README "From GA4 and UBI
-- exports"). The Insights API holds interactions only, so the lists come from the search
-- responses the site logs (`responses_tbl`, one response a row as Algolia returns it with
-- clickAnalytics: queryID, query, index, page, hitsPerPage, hits[].objectID). One row per hit,
-- query_id its queryID, position absolute across pages: page × hitsPerPage + its place among the
-- hits (1 = first), as the Insights API numbers clicks. A page > 0 without hitsPerPage, or a
-- negative page, is an error naming them. search_term (query) and index_name are slices.
-- Example: CREATE VIEW shown AS SELECT * FROM algolia_rankings('responses');
CREATE OR REPLACE MACRO algolia_rankings(responses_tbl) AS TABLE
SELECT * FROM _ndcg_algolia_shown(responses_tbl);

-- algolia_events(responses_tbl, events_tbl, event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of Algolia Insights events (`events_tbl`, the events as sent to the Insights
-- API: eventType, eventSubtype, eventName, index, userToken, authenticatedUserToken, timestamp
-- in ms, queryID, objectIDs[], positions[], objectData[{queryID, price, quantity}]) in the
-- adapters' contract: one row per object of an event, on the search its queryID names (a
-- purchase's objectData gives each object its own queryID: one order can mix searches), shown
-- in algolia_rankings(responses_tbl); value is price × quantity from objectData.
--   event_types  NULL (default): click 'click', conversion/addToCart 'add_to_cart',
--                conversion/purchase 'purchase', view 'view' (keys eventType or
--                'eventType/eventSubtype'); a MAP replaces it.
-- Every other object of an event is in algolia_unattributed with its reason ('unknown event',
-- 'no item', 'no query': viewedObjectIDs and clickedObjectIDs carry no queryID, 'no position':
-- the queryID is not in the responses log, 'never shown'); each object is counted once.
-- Example: CREATE VIEW events AS SELECT * FROM algolia_events('responses', 'insights_events');
CREATE OR REPLACE MACRO algolia_events(responses_tbl, events_tbl, event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_algolia_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types := event_types,
                                shown := NULL)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty log skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;

-- algolia_unattributed(responses_tbl, events_tbl, event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, value DOUBLE, reason VARCHAR)
-- The objects of Algolia Insights events that algolia_events (same options) leaves out, with the
-- reason: 'unknown event', 'no item', 'no query', 'no position' (queryID not in the responses
-- log), 'never shown' (the search's hits lack the object).
-- Example: SELECT reason, count(*) FROM algolia_unattributed('responses', 'insights_events') GROUP BY ALL;
CREATE OR REPLACE MACRO algolia_unattributed(responses_tbl, events_tbl, event_types := NULL)
AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_algolia_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT query_id, item_id, event_type, event_name, event_at, user_id, value, reason
FROM _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types := event_types,
                                shown := NULL)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty log skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
