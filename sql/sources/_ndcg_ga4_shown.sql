-- _ndcg_ga4_shown(tbl, position_base, list_name)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, device, event_date DATE, user_id,
--            session_id, shown_at TIMESTAMP)
-- The searches of a GA4 export and what each showed (internal; ga4_rankings states the rules):
-- a search is one view_search_results and the view_item_list events after it in the same
-- session (user_pseudo_id, ga_session_id) up to the next view_search_results; its pages are
-- those list views in time order, a list view whose items and indexes equal an earlier one's
-- counted once. A page reads item_list_index as the position (0-based or 1-based: position_base)
-- unless one of its items has none ('(not set)', NULL, empty): then the page's own order. A page
-- whose first position is past every position shown before it in the search keeps its positions
-- (the site sent absolute indexes); a page starting again continues after the largest of them.
CREATE OR REPLACE MACRO _ndcg_ga4_shown(tbl, position_base, list_name) AS TABLE
WITH _ndcg_views AS (
    SELECT *,
           -- the latest search at or before each event of the session (a list view sent in
           -- the same microsecond as its search belongs to it)
           max(CASE WHEN event_name = 'view_search_results' THEN event_us END) OVER (
               PARTITION BY user_id, session_id ORDER BY event_us) AS search_us
    FROM _ndcg_ga4_rows(tbl)
    WHERE event_name IN ('view_search_results', 'view_item_list')
      AND user_id IS NOT NULL AND session_id IS NOT NULL
),
_ndcg_searches AS (
    SELECT user_id, session_id, search_us, min(search_term) AS search_term,
           min(device) AS device, min(event_date) AS event_date
    FROM _ndcg_views
    WHERE event_name = 'view_search_results'
    GROUP BY user_id, session_id, search_us
),
_ndcg_pages AS (
    SELECT user_id, session_id, search_us, event_at, items,
           row_number() OVER (PARTITION BY user_id, session_id, search_us
                              ORDER BY event_us, _content) AS _page
    FROM (
        SELECT *, list_transform(items, lambda x: [x.item_id::VARCHAR,
                                                   x.item_list_index::VARCHAR]) AS _content
        FROM _ndcg_views
        WHERE event_name = 'view_item_list' AND search_us IS NOT NULL AND len(items) > 0
          AND (list_name IS NULL OR list_name = _ndcg_views.list_name)
        -- a list view sent twice (same items, same indexes) counts once, at its first time
        QUALIFY row_number() OVER (PARTITION BY user_id, session_id, search_us, _content
                                   ORDER BY event_us) = 1
    )
),
_ndcg_items AS (
    SELECT *,
           CASE
               WHEN _raw IS NULL OR trim(_raw) IN ('(not set)', '') THEN NULL
               WHEN regexp_full_match(trim(_raw), '[0-9]{1,18}') THEN trim(_raw)::BIGINT
               ELSE error('duckdb_ndcg: item_list_index must be a whole number >= 0 or '
                          || '''(not set)'', got ''' || _raw || ''' (item '
                          || coalesce(item_id, 'NULL') || ', user ' || user_id || ')')
           END AS _index
    FROM (
        SELECT user_id, session_id, search_us, event_at, _page,
               struct_extract(unnest(items), 'item_id')::VARCHAR AS item_id,
               struct_extract(unnest(items), 'item_list_index')::VARCHAR AS _raw,
               generate_subscripts(items, 1) AS _order
        FROM _ndcg_pages
    )
),
_ndcg_based AS (
    SELECT *,
           bool_or(_index IS NULL) OVER (PARTITION BY user_id, session_id, search_us, _page)
               AS _unindexed
    FROM _ndcg_items
),
_ndcg_paged AS (
    SELECT *,
           CASE WHEN _unindexed THEN _order
                WHEN _index = 0 AND _base = 1 THEN
                    error('duckdb_ndcg: item_list_index 0 in a search read as 1-based '
                          || '(position_base := 1): item ' || coalesce(item_id, 'NULL')
                          || ', user ' || user_id || ' (use position_base := 0 or ''auto'')')
                ELSE _index + 1 - _base END AS _on_page
    FROM (
        SELECT *,
               CASE position_base::VARCHAR
                   WHEN '0' THEN 0
                   WHEN '1' THEN 1
                   -- 'auto': a search whose smallest index (over its indexed pages) is 0
                   ELSE CASE WHEN min(CASE WHEN NOT _unindexed THEN _index END) OVER (
                                      PARTITION BY user_id, session_id, search_us) = 0
                             THEN 0 ELSE 1 END
               END AS _base
        FROM _ndcg_based
    )
),
_ndcg_spans AS (
    SELECT user_id, session_id, search_us, _page, min(_on_page) AS _lo, max(_on_page) AS _hi
    FROM _ndcg_paged
    GROUP BY user_id, session_id, search_us, _page
),
_ndcg_offsets AS (
    -- per page, the largest absolute position of the earlier pages of its search (a scan over
    -- the pages in order): a page starting past it keeps its positions, one starting again
    -- continues after it
    SELECT user_id, session_id, search_us, _page, _lo,
           list_reduce(list_prepend({'lo': 0::BIGINT, 'hi': 0::BIGINT}, _spans[1:_page - 1]),
                       lambda done, span: {'lo': 0::BIGINT,
                                           'hi': CASE WHEN span.lo > done.hi
                                                      THEN greatest(done.hi, span.hi)
                                                      ELSE done.hi + span.hi END}).hi AS _before
    FROM _ndcg_spans
    JOIN (SELECT user_id, session_id, search_us,
                 list({'lo': _lo, 'hi': _hi} ORDER BY _page) AS _spans
          FROM _ndcg_spans GROUP BY user_id, session_id, search_us)
        USING (user_id, session_id, search_us)
)
SELECT p.user_id || '/' || p.session_id || '/' || p.search_us::VARCHAR AS query_id,
       p.item_id,
       p._on_page + CASE WHEN o._lo > o._before THEN 0 ELSE o._before END AS position,
       s.search_term, s.device, s.event_date, p.user_id, p.session_id, p.event_at AS shown_at
FROM _ndcg_paged p
JOIN _ndcg_offsets o USING (user_id, session_id, search_us, _page)
JOIN _ndcg_searches s USING (user_id, session_id, search_us);
