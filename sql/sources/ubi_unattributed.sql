-- ubi_unattributed(queries_tbl, events_tbl, position_base := 'auto', event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, reason VARCHAR)
-- The UBI events that ubi_events (same options) leaves out, with the reason: 'unknown event'
-- (an action on an object that event_types does not name), 'no item' (no object_id), 'no
-- query' (query_id NULL), 'never shown' (the query's shown list lacks the object), 'no position'
-- (the query has no shown list: no hit ids in ubi_queries, no impression with an ordinal).
-- Example: SELECT reason, count(*) FROM ubi_unattributed('ubi_queries', 'ubi_events') GROUP BY ALL;
CREATE OR REPLACE MACRO ubi_unattributed(queries_tbl, events_tbl, position_base := 'auto',
                                         event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base)
           AND _ndcg_ubi_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT query_id, item_id, event_type, event_name, event_at, user_id, session_id, reason
FROM _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base, event_types)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
