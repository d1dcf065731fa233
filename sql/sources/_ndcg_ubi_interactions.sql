-- _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base, event_types)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id, session_id,
--            value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every UBI event that names an object or carries a graded type, with the showing it belongs to
-- (its own query_id: UBI needs no attribution) or the reason it has none (internal; ubi_events
-- returns the first, ubi_unattributed the others): 'unknown event' (event_types does not name
-- the action), 'no item' (no event_attributes.object.object_id), 'no query' (query_id NULL),
-- 'never shown' (the query showed other items), 'no position' (the query has no shown list: not
-- in ubi_queries with hit ids, and no impression with an ordinal). Events without an object of
-- a type event_types does not name (a search box's keystrokes) are not interactions: left out.
CREATE OR REPLACE MACRO _ndcg_ubi_interactions(queries_tbl, events_tbl, position_base,
                                               event_types) AS TABLE
WITH _ndcg_shown AS (
    SELECT * FROM _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
),
_ndcg_events AS (
    SELECT e.*, s.position, s.shown_at,
           CASE
               WHEN e.event_type IS NULL THEN 'unknown event'
               WHEN e.item_id IS NULL THEN 'no item'
               WHEN e.query_id IS NULL THEN 'no query'
               WHEN s.position IS NOT NULL THEN NULL
               WHEN e.query_id IN (SELECT query_id FROM _ndcg_shown) THEN 'never shown'
               ELSE 'no position'
           END AS reason
    FROM _ndcg_ubi_rows(events_tbl, event_types) e
    LEFT JOIN _ndcg_shown s ON s.query_id = e.query_id AND s.item_id = e.item_id
    WHERE (e.item_id IS NOT NULL OR e.event_type IS NOT NULL)
)
SELECT query_id, item_id, event_type, event_name,
       event_at, user_id, session_id, NULL::DOUBLE AS value, position, shown_at, reason
FROM _ndcg_events;
