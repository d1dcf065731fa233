-- ga4_events(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--            position_base := 'auto', list_name := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of a Google Analytics 4 BigQuery export (table `tbl`, as ga4_rankings reads
-- it), in the adapters' contract: one row per item of an interaction event, attributed to the
-- search (query_id of ga4_rankings) that showed it, with the event's time, user, session and
-- value (item_revenue, else price × quantity). event_type is the contract's name of the GA4
-- event (select_item 'click', add_to_cart 'add_to_cart', purchase 'purchase'), so ndcg_report's
-- default mapping grades GA4's events as is: select_item 1, add_to_cart 2, purchase 3.
-- GA4 interactions carry no search: each is attributed by user (user_pseudo_id), item and time
-- to a showing in ga4_rankings at or before it, within its attribution window:
--   attribution        'last' (default): the latest such showing; 'first': the earliest.
--   attribution_window NULL (default): 1 day for every event type; an INTERVAL for all; or a MAP
--                      from GA4 event name to INTERVAL (MAP {'select_item': INTERVAL 30 MINUTE,
--                      'purchase': INTERVAL 1 DAY}), 1 day for a type it does not name.
--   event_types        NULL (default): MAP {'select_item': 'click', 'add_to_cart': 'add_to_cart',
--                      'purchase': 'purchase'}; a MAP from GA4 event name to the event_type to
--                      return (add 'begin_checkout' and give it a grade in ndcg_report's mapping).
--   position_base, list_name: as ga4_rankings (the showings attributed to).
-- Every other item of an event carrying items (view_search_results and view_item_list aside) is
-- in ga4_unattributed with its reason: an event event_types does not name ('unknown event'), no
-- item id, no user, never shown in a search, or shown only before the window. Nothing is
-- dropped uncounted: ga4_events and ga4_unattributed together hold every such item once.
-- Example: CREATE VIEW events AS SELECT * FROM ga4_events('ga4_export', attribution := 'first');
CREATE OR REPLACE MACRO ga4_events(tbl, attribution := 'last', attribution_window := NULL,
                                   event_types := NULL, position_base := 'auto',
                                   list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_ga4_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_ga4_interactions(tbl, attribution, attribution_window, event_types, position_base,
                            list_name)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
