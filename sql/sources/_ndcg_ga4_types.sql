-- _ndcg_ga4_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The GA4 event names the adapter reads as interactions and the event_type each becomes
-- (internal): NULL is select_item 'click', add_to_cart 'add_to_cart', purchase 'purchase' (the
-- names ndcg_report's default mapping grades 1, 2, 3); a given MAP replaces it. Any other value
-- is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_ga4_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'select_item': 'click', 'add_to_cart': 'add_to_cart', 'purchase': 'purchase'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from GA4 event name to event '
                         || 'type, e.g. MAP {''select_item'': ''click''}, got '
                         || event_types::VARCHAR))
END;
