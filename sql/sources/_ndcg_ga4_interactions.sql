-- _ndcg_ga4_interactions(tbl, attribution, attribution_window, event_types, position_base,
--                        list_name)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id, session_id,
--            value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every item of every GA4 event that carries items, other than the showings (view_search_results,
-- view_item_list), attributed to a search or given the reason it is not (internal; ga4_events
-- returns the attributed ones, ga4_unattributed the others, so every interaction is in exactly
-- one of the two). The showing is the latest ('last') or earliest ('first') showing of the item to
-- the user (user_pseudo_id) in a search at or before the event and within its attribution window.
-- reason: 'unknown event' (event_types does not name the event), 'no item' (item_id NULL or
-- empty), 'no user' (user_pseudo_id NULL), 'never shown' (no search showed the item to the user
-- before), 'outside the window' (shown before, never within the window); NULL: attributed.
CREATE OR REPLACE MACRO _ndcg_ga4_interactions(tbl, attribution, attribution_window, event_types,
                                               position_base, list_name) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_ga4_types(event_types) AS _types
),
_ndcg_shown AS (
    SELECT * FROM _ndcg_ga4_shown(tbl, position_base, list_name)
),
_ndcg_acts AS (
    SELECT row_number() OVER () AS _row, event_name, event_at, user_id, session_id,
           nullif(struct_extract(_item, 'item_id')::VARCHAR, '') AS item_id,
           map_extract_value(_types, event_name) AS event_type,
           coalesce(struct_extract(_item, 'item_revenue'),
                    struct_extract(_item, 'price')
                    * coalesce(struct_extract(_item, 'quantity'), 1))::DOUBLE AS value,
           event_at - _ndcg_attribution_window(attribution_window, event_name) AS _from
    FROM (SELECT *, unnest(items) AS _item
          FROM _ndcg_ga4_rows(tbl)
          WHERE event_name NOT IN ('view_search_results', 'view_item_list'))
    CROSS JOIN _ndcg_options
),
_ndcg_matched AS (
    -- every earlier showing of the item to the user (a hash join, which spills, where an ASOF
    -- join sorted all the showings: 3x slower at 1M events); the latest of them, and the
    -- earliest within the window; equal times ordered by query and position, so the choice
    -- never depends on row order
    SELECT a._row,
           max({'t': s.shown_at, 'q': s.query_id, 'p': s.position}) AS _last,
           min({'t': s.shown_at, 'q': s.query_id, 'p': s.position})
               FILTER (WHERE s.shown_at >= a._from) AS _first
    FROM _ndcg_acts a
    JOIN _ndcg_shown s
        ON a.user_id = s.user_id AND a.item_id = s.item_id AND s.shown_at <= a.event_at
    GROUP BY a._row
),
_ndcg_first AS (
    SELECT a.*, m._last.q AS _last_query, m._last.p AS _last_position, m._last.t AS _last_at,
           m._first.q AS _first_query, m._first.p AS _first_position, m._first.t AS _first_at
    FROM _ndcg_acts a LEFT JOIN _ndcg_matched m USING (_row)
),
_ndcg_reasoned AS (
    SELECT *,
           CASE
               WHEN event_type IS NULL THEN 'unknown event'
               WHEN item_id IS NULL THEN 'no item'
               WHEN user_id IS NULL THEN 'no user'
               WHEN _last_at IS NULL THEN 'never shown'
               WHEN _last_at < _from THEN 'outside the window'
           END AS reason
    FROM _ndcg_first
)
SELECT CASE WHEN reason IS NOT NULL THEN NULL
            WHEN attribution = 'first' THEN _first_query ELSE _last_query END AS query_id,
       item_id, event_type, event_name, event_at, user_id, session_id, value,
       CASE WHEN reason IS NOT NULL THEN NULL
            WHEN attribution = 'first' THEN _first_position ELSE _last_position END AS position,
       CASE WHEN reason IS NOT NULL THEN NULL
            WHEN attribution = 'first' THEN _first_at ELSE _last_at END AS shown_at,
       reason
FROM _ndcg_reasoned;
