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
