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
    SELECT * FROM _ndcg_ga4_rows(tbl)
    WHERE event_name IN ('view_search_results', 'view_item_list')
      AND user_id IS NOT NULL AND session_id IS NOT NULL
),
_ndcg_searches AS (
    SELECT user_id, session_id, event_us AS search_us, min(search_term) AS search_term,
           min(device) AS device, min(event_date) AS event_date
    FROM _ndcg_views
    WHERE event_name = 'view_search_results'
    GROUP BY user_id, session_id, event_us
),
_ndcg_lists AS (
    -- a list view's items as [item_id, item_list_index] (all a page needs), narrow rows
    SELECT user_id, session_id, event_us, event_at,
           list_transform(items, lambda x: [x.item_id::VARCHAR, x.item_list_index::VARCHAR])
               AS _content
    FROM _ndcg_views
    WHERE event_name = 'view_item_list' AND len(items) > 0
      AND (list_name IS NULL OR list_name = _ndcg_views.list_name)
),
_ndcg_pages AS (
    -- each list view belongs to the latest search of its session at or before it (the same
    -- microsecond included); a list view sent twice (same items, same indexes) counts once,
    -- at its first time
    SELECT l.user_id, l.session_id, s.search_us, l._content,
           min(l.event_us) AS event_us, min(l.event_at) AS event_at
    FROM _ndcg_lists l
    ASOF JOIN _ndcg_searches s
        ON l.user_id = s.user_id AND l.session_id = s.session_id AND l.event_us >= s.search_us
    GROUP BY l.user_id, l.session_id, s.search_us, l._content
),
_ndcg_page_spans AS (
    -- per page: its number in the search (time order; equal times by a hash of the content, for
    -- a stable order), whether an index is missing ('(not set)', NULL, empty: then the page's
    -- own order), and its smallest and largest index
    SELECT *,
           row_number() OVER (PARTITION BY user_id, session_id, search_us
                              ORDER BY event_us, hash(_content)) AS _page,
           len(list_filter(_content, lambda x: x[2] IS NULL OR trim(x[2]) IN ('(not set)', '')))
               > 0 AS _unindexed,
           list_min(list_transform(_content, lambda x: TRY_CAST(trim(x[2]) AS BIGINT)))
               AS _min_index,
           list_max(list_transform(_content, lambda x: TRY_CAST(trim(x[2]) AS BIGINT)))
               AS _max_index
    FROM _ndcg_pages
),
_ndcg_based AS (
    SELECT *,
           CASE position_base::VARCHAR
               WHEN '0' THEN 0
               WHEN '1' THEN 1
               -- 'auto': a search whose smallest index (over its indexed pages) is 0
               ELSE CASE WHEN min(CASE WHEN NOT _unindexed THEN _min_index END) OVER (
                                  PARTITION BY user_id, session_id, search_us) = 0
                         THEN 0 ELSE 1 END
           END AS _base
    FROM _ndcg_page_spans
),
_ndcg_spans AS (
    SELECT *,
           CASE WHEN _unindexed THEN 1 ELSE _min_index + 1 - _base END AS _lo,
           CASE WHEN _unindexed THEN len(_content) ELSE _max_index + 1 - _base END AS _hi
    FROM _ndcg_based
),
_ndcg_offsets AS (
    -- per page, the largest absolute position of the earlier pages of its search (a scan over
    -- the pages in order): a page starting past it keeps its positions, one starting again
    -- continues after it
    SELECT user_id, session_id, search_us, _page,
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
),
_ndcg_items AS (
    SELECT *,
           CASE
               WHEN _unindexed THEN _order
               WHEN NOT regexp_full_match(trim(_raw), '[0-9]{1,18}') THEN
                   error('duckdb_ndcg: item_list_index must be a whole number >= 0 or '
                         || '''(not set)'', got ''' || _raw || ''' (item '
                         || coalesce(item_id, 'NULL') || ', user ' || user_id || ')')
               WHEN trim(_raw)::BIGINT = 0 AND _base = 1 THEN
                   error('duckdb_ndcg: item_list_index 0 in a search read as 1-based '
                         || '(position_base := 1): item ' || coalesce(item_id, 'NULL')
                         || ', user ' || user_id || ' (use position_base := 0 or ''auto'')')
               ELSE trim(_raw)::BIGINT + 1 - _base
           END AS _on_page
    FROM (
        SELECT user_id, session_id, search_us, event_at, _page, _unindexed, _lo, _base,
               unnest(_content)[1] AS item_id, unnest(_content)[2] AS _raw,
               generate_subscripts(_content, 1) AS _order
        FROM _ndcg_spans
    )
)
SELECT p.user_id || '/' || p.session_id || '/' || p.search_us::VARCHAR AS query_id,
       p.item_id,
       p._on_page + CASE WHEN p._lo > o._before THEN 0 ELSE o._before END AS position,
       s.search_term, s.device, s.event_date, p.user_id, p.session_id, p.event_at AS shown_at
FROM _ndcg_items p
JOIN _ndcg_offsets o USING (user_id, session_id, search_us, _page)
JOIN _ndcg_searches s USING (user_id, session_id, search_us);
