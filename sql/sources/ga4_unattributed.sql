-- ga4_unattributed(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--                  position_base := 'auto', list_name := NULL)
--   -> TABLE(item_id VARCHAR, event_type VARCHAR, event_name VARCHAR, event_at TIMESTAMP,
--            user_id VARCHAR, session_id VARCHAR, value DOUBLE, reason VARCHAR)
-- The interactions of a GA4 export that ga4_events (same options) could not attribute, one row
-- per item of the event, with the reason: 'unknown event' (event_types does not name the event:
-- view_item, begin_checkout, refund, ... by default), 'no item' (item_id NULL or empty), 'no
-- user' (user_pseudo_id NULL), 'never shown' (no search showed the item to the user at or
-- before the event), 'outside the window' (shown, but only before the attribution window).
-- With ga4_events, every item of every event carrying items (other than view_search_results and
-- view_item_list) is counted once.
-- Example: SELECT reason, event_name, count(*) FROM ga4_unattributed('ga4_export') GROUP BY ALL;
CREATE OR REPLACE MACRO ga4_unattributed(tbl, attribution := 'last', attribution_window := NULL,
                                         event_types := NULL, position_base := 'auto',
                                         list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_ga4_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT item_id, event_type, event_name, event_at, user_id, session_id, value, reason
FROM _ndcg_ga4_interactions(tbl, attribution, attribution_window, event_types, position_base,
                            list_name)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
