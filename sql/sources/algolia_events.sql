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
FROM _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty log skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
