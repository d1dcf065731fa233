-- ubi_rankings(queries_tbl, events_tbl, position_base := 'auto', event_types := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            application VARCHAR, user_id VARCHAR, session_id VARCHAR, shown_at TIMESTAMP,
--            shown_by VARCHAR)
-- The shown lists of OpenSearch User Behavior Insights (UBI 1.3.0) in the adapters' contract
-- (README "From GA4 and UBI exports"): `queries_tbl` is the ubi_queries index as it lands in
-- DuckDB (query_id, user_query, client_id, application, timestamp, query_response_hit_ids),
-- `events_tbl` the ubi_events index (action_name, query_id, session_id, client_id, application,
-- timestamp, event_attributes.object.object_id, event_attributes.position.ordinal). One row per
-- item a query showed, position 1 = first, with the slices search_term (user_query) and
-- application, the user (client_id), the session (of the query's events) and the time.
-- A query with query_response_hit_ids shows those ids in that order (shown_by 'hits'); a query
-- without them (absent from ubi_queries, or an empty list) shows the objects of its impression
-- events (those event_types maps to 'impression' or 'view') at their ordinal (shown_by
-- 'impressions'; an object seen twice keeps its first position).
--   position_base  how ordinals count: 'auto' (default): per application and action name, 0-based
--                  when the smallest ordinal is 0 (applications differ within one index), else
--                  1-based; 0 or 1: every ordinal (an ordinal 0 read as 1-based is an error).
--   event_types    as ubi_events: which actions are impressions.
-- An ordinal that is no whole number >= 0 is an error naming event_attributes.position.ordinal.
-- Example: CREATE VIEW shown AS SELECT * FROM ubi_rankings('ubi_queries', 'ubi_events');
CREATE OR REPLACE MACRO ubi_rankings(queries_tbl, events_tbl, position_base := 'auto',
                                     event_types := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base)
           AND _ndcg_ubi_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
-- the options are checked by a branch that always runs (an empty index skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS query_id FROM _ndcg_options WHERE NOT _ok;
