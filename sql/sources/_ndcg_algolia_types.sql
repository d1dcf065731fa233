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
