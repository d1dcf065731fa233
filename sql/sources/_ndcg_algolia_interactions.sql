-- _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id,
--            session_id, value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every object of every Algolia Insights event (internal; algolia_events returns the attributed
-- ones, algolia_unattributed the others): the event's queryID, or for a conversion the queryID
-- its objectData gives that object (one order can mix searches), names the search. reason:
-- 'unknown event' (event_types does not name eventType/eventSubtype), 'no item' (objectID NULL
-- or empty), 'no query' (no queryID: viewedObjectIDs, clickedObjectIDs), 'no position' (the
-- queryID is not in the responses log), 'never shown' (the search's hits lack the object).
CREATE OR REPLACE MACRO _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types)
AS TABLE
WITH _ndcg_shown AS (
    SELECT * FROM _ndcg_algolia_shown(responses_tbl)
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
