-- _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, application, user_id, session_id,
--            shown_at TIMESTAMP, shown_by VARCHAR)
-- What each UBI query showed (internal; ubi_rankings states the rules): a query of ubi_queries
-- with query_response_hit_ids shows those ids in order, positions 1, 2, ... (shown_by 'hits');
-- a query without them (not in ubi_queries, or an empty list) shows the items of its impression
-- events (event_type 'impression' or 'view') at their ordinal (shown_by 'impressions'), read
-- 0-based or 1-based by position_base ('auto': per application and action name, 0-based when
-- the smallest ordinal is 0); an item with several impressions keeps its first position.
CREATE OR REPLACE MACRO _ndcg_ubi_shown(queries_tbl, events_tbl, position_base, event_types)
AS TABLE
WITH _ndcg_queries AS (
    SELECT nullif(query_id::VARCHAR, '') AS query_id, user_query::VARCHAR AS search_term,
           application::VARCHAR AS application, client_id::VARCHAR AS user_id,
           _ndcg_ubi_time("timestamp") AS shown_at, query_response_hit_ids AS _hits
    FROM query_table(queries_tbl)
),
_ndcg_events AS (
    SELECT * FROM _ndcg_ubi_rows(events_tbl, event_types)
),
_ndcg_sessions AS (
    SELECT query_id, min(session_id) AS session_id FROM _ndcg_events
    WHERE query_id IS NOT NULL GROUP BY query_id
),
_ndcg_listed AS (
    SELECT query_id, item_id, position, search_term, application, user_id, shown_at,
           'hits' AS shown_by
    FROM (SELECT *, unnest(_hits)::VARCHAR AS item_id, generate_subscripts(_hits, 1) AS position
          FROM _ndcg_queries
          WHERE query_id IS NOT NULL AND len(_hits) > 0)
),
_ndcg_impressions AS (
    SELECT query_id, item_id,
           min(ordinal + 1 - CASE position_base::VARCHAR
                                 WHEN '0' THEN 0 WHEN '1' THEN 1
                                 ELSE CASE WHEN _smallest = 0 THEN 0 ELSE 1 END END) AS position,
           min(application) AS application, min(user_id) AS user_id,
           min(event_at) AS shown_at, 'impressions' AS shown_by
    FROM (SELECT *,
                 min(ordinal) OVER (PARTITION BY application, event_name) AS _smallest
          FROM _ndcg_events
          WHERE event_type IN ('impression', 'view') AND query_id IS NOT NULL
            AND item_id IS NOT NULL AND ordinal IS NOT NULL)
    WHERE query_id NOT IN (SELECT query_id FROM _ndcg_listed)
    GROUP BY query_id, item_id
),
_ndcg_checked AS (
    SELECT *,
           CASE WHEN position < 1 THEN
                    error('duckdb_ndcg: event_attributes.position.ordinal 0 read as 1-based '
                          || '(position_base := 1): query ' || query_id || ', item ' || item_id
                          || ' (use position_base := 0 or ''auto'')')
                ELSE position END AS _position
    FROM (SELECT * FROM _ndcg_listed
          UNION ALL BY NAME
          -- the query's own text, application and client when ubi_queries has the query
          SELECT i.query_id, i.item_id, i.position, q.search_term,
                 coalesce(q.application, i.application) AS application,
                 coalesce(q.user_id, i.user_id) AS user_id,
                 coalesce(q.shown_at, i.shown_at) AS shown_at, i.shown_by
          FROM _ndcg_impressions i
          LEFT JOIN (SELECT DISTINCT ON (query_id) * FROM _ndcg_queries) q USING (query_id))
)
SELECT c.query_id, c.item_id, c._position AS position, c.search_term, c.application, c.user_id,
       s.session_id, c.shown_at, c.shown_by
FROM _ndcg_checked c LEFT JOIN _ndcg_sessions s USING (query_id);
