-- _ndcg_attribution_window(attribution_window, event_name) -> INTERVAL
-- How long after a showing an interaction of type `event_name` is still attributed to it
-- (internal): attribution_window NULL is 1 day for every type; an INTERVAL (or its text) is that
-- for every type; a MAP from event name to INTERVAL gives each named type its own, and 1 day to
-- the types it does not name.
CREATE OR REPLACE MACRO _ndcg_attribution_window(attribution_window, event_name) AS
coalesce(TRY_CAST(attribution_window AS INTERVAL),
         map_extract_value(TRY_CAST(attribution_window AS MAP(VARCHAR, INTERVAL)), event_name),
         INTERVAL 1 DAY);
