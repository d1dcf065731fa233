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
FROM _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base, event_types)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
