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
FROM _ndcg_algolia_interactions(responses_tbl, events_tbl, event_types)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty log skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
