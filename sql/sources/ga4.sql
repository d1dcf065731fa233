-- Google Analytics 4 BigQuery exports as rankings and events.

-- _ndcg_ga4_param(params, name) -> VARCHAR
-- The value of GA4's event parameter `name` as text (internal): `params` is the export's
-- event_params, a list of STRUCT(key, value STRUCT(string_value, int_value, float_value,
-- double_value)); the first of the four values that is set (ga_session_id is an int_value,
-- search_term a string_value). NULL when the event has no such parameter.
CREATE OR REPLACE MACRO _ndcg_ga4_param(params, name) AS
list_transform(list_filter(params, lambda p: p.key = name),
               lambda p: coalesce(struct_extract(p.value, 'string_value')::VARCHAR,
                                  struct_extract(p.value, 'int_value')::VARCHAR,
                                  struct_extract(p.value, 'double_value')::VARCHAR,
                                  struct_extract(p.value, 'float_value')::VARCHAR))[1];

-- _ndcg_ga4_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The GA4 event names the adapter reads as interactions and the event_type each becomes
-- (internal): NULL is select_item 'click', add_to_cart 'add_to_cart', purchase 'purchase' (the
-- names ndcg_report's default mapping grades 1, 2, 3); a given MAP replaces it. Any other value
-- is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_ga4_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'select_item': 'click', 'add_to_cart': 'add_to_cart', 'purchase': 'purchase'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from GA4 event name to event '
                         || 'type, e.g. MAP {''select_item'': ''click''}, got '
                         || event_types::VARCHAR))
END;

-- _ndcg_ga4_rows(tbl) -> TABLE(event_name, event_us BIGINT, event_at TIMESTAMP, user_id,
--                             session_id, search_term, list_name VARCHAR, device VARCHAR,
--                             event_date DATE, items)
-- One row per event of a GA4 BigQuery export (internal), its fields read and checked:
-- event_timestamp an integer (or its digits as text, as BigQuery's JSON export writes INT64) of
-- microseconds since 1970 (a value below 10^14, i.e. before 1973, is seconds or milliseconds: an
-- error saying so), event_date 'YYYYMMDD' (or a DATE), ga_session_id, search_term and
-- item_list_name from event_params, device from device.category. A column the export lacks is
-- DuckDB's binder error naming it.
CREATE OR REPLACE MACRO _ndcg_ga4_rows(tbl) AS TABLE
SELECT * EXCLUDE (_us), _us AS event_us, make_timestamp(_us) AS event_at
FROM (
SELECT event_name::VARCHAR AS event_name,
       CASE
           WHEN TRY_CAST(event_timestamp::VARCHAR AS BIGINT) IS NULL THEN
               error('duckdb_ndcg: event_timestamp must be GA4''s INT64 microseconds since 1970, got '
                     || coalesce(event_timestamp::VARCHAR || ' (' || typeof(event_timestamp) || ')',
                                 'NULL') || ' (event ' || coalesce(event_name::VARCHAR, 'NULL') || ')')
           WHEN TRY_CAST(event_timestamp::VARCHAR AS BIGINT) < 100000000000000 THEN
               error('duckdb_ndcg: event_timestamp must be microseconds since 1970, got '
                     || event_timestamp::VARCHAR || ', a time before 1973: seconds or '
                     || 'milliseconds? (multiply by 1000000 or 1000)')
           ELSE TRY_CAST(event_timestamp::VARCHAR AS BIGINT)
       END AS _us,
       user_pseudo_id::VARCHAR AS user_id,
       _ndcg_ga4_param(event_params, 'ga_session_id') AS session_id,
       _ndcg_ga4_param(event_params, 'search_term') AS search_term,
       coalesce(_ndcg_ga4_param(event_params, 'item_list_name'),
                struct_extract(items[1], 'item_list_name')::VARCHAR) AS list_name,
       struct_extract(device, 'category')::VARCHAR AS device,
       coalesce(TRY_STRPTIME(event_date::VARCHAR, '%Y%m%d')::DATE,
                TRY_CAST(event_date::VARCHAR AS DATE),
                error('duckdb_ndcg: event_date must be GA4''s ''YYYYMMDD'' text or a DATE, got '
                      || coalesce('''' || event_date::VARCHAR || '''', 'NULL'))) AS event_date,
       items
FROM query_table(tbl)
);

-- _ndcg_ga4_searches(tbl)
--   -> TABLE(_search BIGINT, user_id, session_id, search_us BIGINT, search_term, device,
--            event_date DATE, query_id)
-- The searches of a GA4 export (internal): one row per view_search_results of a user and session
-- (the same microsecond once), numbered in the order of user and query_id (_search: the key the
-- shown-list step partitions and joins on, the same in every reading; within a user, the order
-- of the query_ids, which the attribution breaks ties by), with its query_id 'user/session/µs'
-- made once.
CREATE OR REPLACE MACRO _ndcg_ga4_searches(tbl) AS TABLE
SELECT row_number() OVER (ORDER BY user_id, query_id) AS _search, *
FROM (
    SELECT user_id, session_id, event_us AS search_us, min(search_term) AS search_term,
           min(device) AS device, min(event_date) AS event_date,
           user_id || '/' || session_id || '/' || event_us::VARCHAR AS query_id
    FROM _ndcg_ga4_rows(tbl)
    WHERE event_name = 'view_search_results' AND user_id IS NOT NULL AND session_id IS NOT NULL
    GROUP BY user_id, session_id, event_us
);

-- _ndcg_ga4_index(raw) -> BIGINT
-- An item_list_index (text) read as a whole number >= 0 (internal), else NULL ('(not set)', NULL,
-- empty, or an index the shown-list step refuses): a digits-only index as its BIGINT prints it
-- (most are) is read without the pattern.
CREATE OR REPLACE MACRO _ndcg_ga4_index(raw) AS
CASE WHEN TRY_CAST(raw AS BIGINT) BETWEEN 0 AND 999999999999999999
          AND TRY_CAST(raw AS BIGINT)::VARCHAR = raw THEN TRY_CAST(raw AS BIGINT)
     WHEN regexp_full_match(trim(raw), '[0-9]{1,18}') THEN trim(raw)::BIGINT
END;

-- _ndcg_ga4_placed(tbl, position_base, list_name, searches)
--   -> TABLE(_search BIGINT, item_id VARCHAR, position BIGINT, shown_at TIMESTAMP)
-- What each search of a GA4 export showed, by search number (internal; _ndcg_ga4_shown adds the
-- search's columns, ga4_rankings states the rules): a search is one view_search_results and the
-- view_item_list events after it in the same session (user_pseudo_id, ga_session_id) up to the
-- next view_search_results; its pages are those list views in time order, a list view whose
-- items and indexes equal an earlier one's counted once. A page reads item_list_index as the
-- position (0-based or 1-based: position_base) unless one of its items has none ('(not set)',
-- NULL, empty): then the page's own order. A page whose first position is past every position
-- shown before it in the search keeps its positions (the site sent absolute indexes); a page
-- starting again continues after the largest of them.
-- searches: NULL reads the searches of tbl (_ndcg_ga4_searches); a table's name reads them from
-- it instead (made once by evaluate(source='ga4'), which keeps the shown rows this narrow).
CREATE OR REPLACE MACRO _ndcg_ga4_placed(tbl, position_base, list_name, searches) AS TABLE
WITH _ndcg_computed_searches AS (
    SELECT * FROM _ndcg_ga4_searches(tbl)
),
_ndcg_searches AS (
    SELECT _search, user_id, session_id, search_us
    FROM query_table(coalesce(searches, '_ndcg_computed_searches'))
),
_ndcg_lists AS MATERIALIZED (
    -- a list view's items as [item_id, item_list_index] (all a page needs) and their hash,
    -- with what its page needs of them (_len, its smallest and largest index, whether one is
    -- missing), so that only the last step reads the item lists again; identified by a random
    -- UUID (_lid; row_number() OVER () ran the scan and the list transforms on one thread),
    -- made once (materialized)
    SELECT *,
           -- the slow test only for a list with an item not read as a whole number
           list_count(_index) < _len
           AND len(list_filter(_content, lambda x: x[2] IS NULL OR trim(x[2]) IN ('(not set)', '')))
               > 0 AS _unindexed,
           list_min(_index) AS _min_index, list_max(_index) AS _max_index
    FROM (
        SELECT *, hash(_content) AS _h, len(_content) AS _len,
               list_transform(_content, lambda x: _ndcg_ga4_index(x[2])) AS _index
        FROM (
            SELECT gen_random_uuid() AS _lid, user_id, session_id, event_us,
                   list_transform(items, lambda x: [x.item_id::VARCHAR,
                                                    x.item_list_index::VARCHAR]) AS _content
            FROM _ndcg_ga4_rows(tbl) AS _ndcg_rows
            WHERE event_name = 'view_item_list' AND len(items) > 0
              AND user_id IS NOT NULL AND session_id IS NOT NULL
              AND (list_name IS NULL OR list_name = _ndcg_rows.list_name)
        )
    )
),
_ndcg_found AS (
    -- each list view's search: the latest of its session at or before it (the same microsecond
    -- included), by an ASOF join of the list views' narrow rows (their items joined after it,
    -- as sorting them with the views cost more)
    SELECT l.*, s._search
    FROM (SELECT _lid, user_id, session_id, event_us, _h, _len, _unindexed, _min_index,
                 _max_index
          FROM _ndcg_lists) l
    ASOF JOIN _ndcg_searches s
        ON l.user_id = s.user_id AND l.session_id = s.session_id AND l.event_us >= s.search_us
),
_ndcg_repeated AS (
    -- a search's content hashes held by more than one of its list views: a list view sent twice
    -- (or two contents of one hash), their items compared below; any other list view is a page
    SELECT _search, _h FROM _ndcg_found GROUP BY _search, _h HAVING count(*) > 1
),
_ndcg_pages AS (
    -- each list view of a search, narrow (its items stay in _ndcg_lists); a list view sent
    -- twice (same items, same indexes) counts once, at its first time (grouped by its items
    -- only where its hash repeats in the search: grouping every page by its item list cost
    -- more), with its user (for the errors below). Numbered (_pid, its first list view's _lid:
    -- what the page's items are joined on at the end)
    SELECT _search, event_us, _h AS _tie, user_id, _lid AS _pid, _len, _unindexed, _min_index,
           _max_index
    FROM _ndcg_found f
    ANTI JOIN _ndcg_repeated r ON f._search = r._search AND f._h = r._h
    UNION ALL
    SELECT f._search, min(f.event_us), min(f._h), min(f.user_id), min(f._lid), min(f._len),
           bool_or(f._unindexed), min(f._min_index), max(f._max_index)
    FROM (SELECT * FROM _ndcg_found f
          SEMI JOIN _ndcg_repeated r ON f._search = r._search AND f._h = r._h) f
    JOIN _ndcg_lists l USING (_lid)
    GROUP BY f._search, l._content
),
_ndcg_ordered AS (
    -- per page, in one window operator over narrow rows (partitioned by search, ordered by
    -- time, equal times by a hash of the content for a stable order): its number in the search,
    -- the search's smallest index over its indexed pages (for the base) and the spans of the
    -- earlier pages; a page's span: whether an index is missing (then the page's own order),
    -- its smallest and largest index, its length
    SELECT _pid, _search, _unindexed, _min_index, user_id, event_us,
           row_number() OVER (PARTITION BY _search ORDER BY event_us, _tie) AS _page,
           min(CASE WHEN NOT _unindexed THEN _min_index END) OVER (
               PARTITION BY _search ORDER BY event_us, _tie
               ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS _search_min,
           list({'at': event_us, 'tie': _tie, 'unindexed': _unindexed,
                 'lo': _min_index, 'hi': _max_index, 'len': _len}) OVER (
               PARTITION BY _search ORDER BY event_us, _tie
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS _earlier
    FROM _ndcg_pages
),
_ndcg_spans AS (
    -- a page's base (the search's: 'auto' reads a search whose smallest index is 0 as 0-based),
    -- its first position, and the largest absolute position of the earlier pages of its search
    -- (a scan over them in order): a page starting past it keeps its positions, one starting
    -- again continues after it (a search's first page: 0; its second: the first's largest,
    -- what the scan gives, as every position is >= 0, without its lambdas)
    SELECT _pid, _search, _base, _unindexed, user_id, event_us,
           CASE WHEN _unindexed THEN 1 ELSE _min_index + 1 - _base END AS _lo,
           CASE
               WHEN _earlier IS NULL THEN 0::BIGINT
               WHEN len(_earlier) = 1 THEN
                   CASE WHEN _earlier[1].unindexed THEN _earlier[1].len
                        ELSE _earlier[1].hi + 1 - _base END
               ELSE list_reduce(
                   list_prepend({'lo': 0::BIGINT, 'hi': 0::BIGINT},
                                list_transform(list_sort(_earlier), lambda e: {
                                    'lo': CASE WHEN e.unindexed THEN 1 ELSE e.lo + 1 - _base END,
                                    'hi': CASE WHEN e.unindexed THEN e.len
                                               ELSE e.hi + 1 - _base END})),
                   lambda done, span: {'lo': 0::BIGINT,
                                       'hi': CASE WHEN span.lo > done.hi
                                                  THEN greatest(done.hi, span.hi)
                                                  ELSE done.hi + span.hi END}).hi
           END AS _before
    FROM (
        SELECT *,
               CASE position_base::VARCHAR
                   WHEN '0' THEN 0
                   WHEN '1' THEN 1
                   ELSE CASE WHEN _search_min = 0 THEN 0 ELSE 1 END
               END AS _base
        FROM _ndcg_ordered
    )
),
_ndcg_items AS (
    -- each page's items (its first list view's, read again by _lid), each index read as in
    -- _ndcg_lists
    SELECT *,
           CASE
               WHEN _unindexed THEN _order
               WHEN _on IS NULL THEN
                   error('duckdb_ndcg: item_list_index must be a whole number >= 0 or '
                         || '''(not set)'', got ''' || _raw || ''' (item '
                         || coalesce(item_id, 'NULL') || ', user ' || user_id || ')')
               WHEN _on = 0 AND _base = 1 THEN
                   error('duckdb_ndcg: item_list_index 0 in a search read as 1-based '
                         || '(position_base := 1): item ' || coalesce(item_id, 'NULL')
                         || ', user ' || user_id || ' (use position_base := 0 or ''auto'')')
               ELSE _on + 1 - _base
           END AS _on_page
    FROM (
        SELECT *, _ndcg_ga4_index(_raw) AS _on
        FROM (
            SELECT o._search, o.user_id, make_timestamp(o.event_us) AS shown_at, o._unindexed,
                   o._lo, o._before, o._base,
                   unnest(l._content)[1] AS item_id, unnest(l._content)[2] AS _raw,
                   generate_subscripts(l._content, 1) AS _order
            FROM _ndcg_spans o
            JOIN _ndcg_lists l ON l._lid = o._pid
        )
    )
)
SELECT _search, item_id, _on_page + CASE WHEN _lo > _before THEN 0 ELSE _before END AS position,
       shown_at
FROM _ndcg_items
-- a position is at least 1: the filter checks every index (the errors above), a count(*) too
WHERE _on_page >= 1;

-- _ndcg_ga4_shown(tbl, position_base, list_name)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, device, event_date DATE, user_id,
--            session_id, shown_at TIMESTAMP)
-- The searches of a GA4 export and what each showed (internal; ga4_rankings states the rules):
-- _ndcg_ga4_placed's rows with their search's columns (_ndcg_ga4_searches).
CREATE OR REPLACE MACRO _ndcg_ga4_shown(tbl, position_base, list_name) AS TABLE
WITH _ndcg_shown_searches AS MATERIALIZED (
    SELECT * FROM _ndcg_ga4_searches(tbl)
)
SELECT s.query_id, p.item_id, p.position, s.search_term, s.device, s.event_date, s.user_id,
       s.session_id, p.shown_at
FROM _ndcg_ga4_placed(tbl, position_base, list_name, '_ndcg_shown_searches') p
JOIN _ndcg_shown_searches s USING (_search);

-- _ndcg_ga4_interactions(tbl, attribution := ..., attribution_window := ..., event_types := ...,
--                        position_base := ..., list_name := ..., searches := ..., placed := ...)
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
-- searches, placed: NULL computes the searches (_ndcg_ga4_searches) and what each showed
-- (_ndcg_ga4_placed); tables' names read them from those instead (made once by
-- evaluate(source='ga4'), with the same options; placed numbered by those searches).
-- The showings are attributed by search number, not query_id (a number sorts narrower than the
-- text): searches are numbered in the order of user and query_id, so at equal times the earlier
-- number of a user is the earlier query_id, the order _ndcg_attributed breaks ties by.
CREATE OR REPLACE MACRO _ndcg_ga4_interactions(tbl, attribution := NULL, attribution_window := NULL,
                                               event_types := NULL, position_base := NULL,
                                               list_name := NULL, searches := NULL,
                                               placed := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_ga4_types(event_types) AS _types
),
_ndcg_interactions_searches AS MATERIALIZED (
    SELECT * FROM _ndcg_ga4_searches(tbl)
),
_ndcg_searches AS (
    SELECT _search, user_id, query_id
    FROM query_table(coalesce(searches, '_ndcg_interactions_searches'))
),
_ndcg_computed_placed AS (
    SELECT * FROM _ndcg_ga4_placed(tbl, position_base, list_name,
                                   coalesce(searches, '_ndcg_interactions_searches'))
),
_ndcg_showings AS (
    -- what each search showed, its search number standing for its query_id
    SELECT s.user_id, p.item_id, p.shown_at, p._search AS query_id, p.position
    FROM query_table(coalesce(placed, '_ndcg_computed_placed')) p
    JOIN _ndcg_searches s USING (_search)
),
_ndcg_acts AS MATERIALIZED (
    -- each item of an interaction event, identified by a random UUID (_row, made once:
    -- materialized; row_number() OVER () would read the export on one thread)
    SELECT gen_random_uuid() AS _row, event_name, event_at, user_id, session_id,
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
_ndcg_identities AS (
    SELECT _row, user_id AS _who, item_id, event_at, _from FROM _ndcg_acts
),
_ndcg_matched AS (
    -- the latest showing of the item to the user, and the earliest within the window
    SELECT * FROM _ndcg_attributed('_ndcg_identities', '_ndcg_showings', attribution := attribution)
),
_ndcg_reasoned AS (
    SELECT a.*, m._last.t AS _last_at,
           CASE
               WHEN event_type IS NULL THEN 'unknown event'
               WHEN item_id IS NULL THEN 'no item'
               WHEN user_id IS NULL THEN 'no user'
               WHEN m._last.t IS NULL THEN 'never shown'
               WHEN m._last.t < _from THEN 'outside the window'
           END AS reason,
           CASE WHEN attribution = 'first' THEN m._first ELSE m._last END AS _chosen
    FROM _ndcg_acts a LEFT JOIN _ndcg_matched m USING (_row)
)
SELECT CASE WHEN reason IS NULL THEN s.query_id END AS query_id,
       item_id, event_type, event_name, event_at, r.user_id, session_id, value,
       CASE WHEN reason IS NULL THEN _chosen.p END AS position,
       CASE WHEN reason IS NULL THEN _chosen.t END AS shown_at,
       reason
FROM _ndcg_reasoned r
LEFT JOIN _ndcg_searches s ON s._search = CASE WHEN r.reason IS NULL THEN r._chosen.q END;

-- ga4_rankings(tbl, position_base := 'auto', list_name := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            device VARCHAR, event_date DATE, user_id VARCHAR, session_id VARCHAR,
--            shown_at TIMESTAMP)
-- The shown lists of a Google Analytics 4 BigQuery export (table `tbl`, a name, as it lands in
-- DuckDB from Parquet or NDJSON: event_name, event_timestamp INT64 microseconds, event_date
-- 'YYYYMMDD', user_pseudo_id, event_params (ga_session_id, search_term), device.category,
-- items[] with item_id and item_list_index), in the adapters' contract: one row per item a
-- search showed, position 1 = first, with its time, user and session, and the slices
-- search_term, device and event_date. ga4_events gives the interactions; with both, ndcg_report,
-- ndcg_summary and compare_rankers run unchanged (README "From GA4 and UBI exports").
-- A search is one view_search_results and the view_item_list events that follow it in the same
-- session (user_pseudo_id, ga_session_id) until the next view_search_results (the same term
-- searched again is a new search); query_id is 'user/session/µs of the search'. Its pages are
-- those list views in time order, and a list view sent twice (same items and indexes) counts
-- once. A page reads item_list_index (a STRING in GA4) as the position on the page; a page with
-- an item whose index is '(not set)', NULL or empty takes its items' order in the list instead.
-- Positions are absolute across pages: a page whose first position is past every position the
-- search showed before keeps them (absolute indexes), a page whose indexes start again continues
-- after the largest of them.
--   position_base  'auto' (default): a search whose smallest index is 0 is 0-based, any other is
--                  1-based; 0 or 1: every search is (an index 0 read as 1-based is an error).
--   list_name      NULL (default): every list view after a search is one of its pages; a name
--                  ('search results'): only list views of that item_list_name.
-- An index that is no whole number >= 0 ('abc', '-1') is an error naming item_list_index; an
-- event_timestamp in seconds or milliseconds is an error saying so; a missing column is DuckDB's
-- binder error naming it. An item shown twice in one search (on two pages) is two rows, which
-- ndcg_report refuses unless duplicates := 'allow'.
-- Example: CREATE VIEW shown AS SELECT * FROM ga4_rankings('ga4_export');
CREATE OR REPLACE MACRO ga4_rankings(tbl, position_base := 'auto', list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base) AS _ok
)
SELECT * FROM _ndcg_ga4_shown(tbl, position_base, list_name)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS query_id FROM _ndcg_options WHERE NOT _ok;

-- ga4_events(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--            position_base := 'auto', list_name := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of a Google Analytics 4 BigQuery export (table `tbl`, as ga4_rankings reads
-- it), in the adapters' contract: one row per item of an interaction event, attributed to the
-- search (query_id of ga4_rankings) that showed it, with the event's time, user, session and
-- value (item_revenue, else price × quantity). event_type is the contract's name of the GA4
-- event (select_item 'click', add_to_cart 'add_to_cart', purchase 'purchase'), so ndcg_report's
-- default mapping grades GA4's events as is: select_item 1, add_to_cart 2, purchase 3.
-- GA4 interactions carry no search: each is attributed by user (user_pseudo_id), item and time
-- to a showing in ga4_rankings at or before it, within its attribution window:
--   attribution        'last' (default): the latest such showing; 'first': the earliest.
--   attribution_window NULL (default): 1 day for every event type; an INTERVAL for all; or a MAP
--                      from GA4 event name to INTERVAL (MAP {'select_item': INTERVAL 30 MINUTE,
--                      'purchase': INTERVAL 1 DAY}), 1 day for a type it does not name.
--   event_types        NULL (default): MAP {'select_item': 'click', 'add_to_cart': 'add_to_cart',
--                      'purchase': 'purchase'}; a MAP from GA4 event name to the event_type to
--                      return (add 'begin_checkout' and give it a grade in ndcg_report's mapping).
--   position_base, list_name: as ga4_rankings (the showings attributed to).
-- Every other item of an event carrying items (view_search_results and view_item_list aside) is
-- in ga4_unattributed with its reason: an event event_types does not name ('unknown event'), no
-- item id, no user, never shown in a search, or shown only before the window. Nothing is
-- dropped uncounted: ga4_events and ga4_unattributed together hold every such item once.
-- Example: CREATE VIEW events AS SELECT * FROM ga4_events('ga4_export', attribution := 'first');
CREATE OR REPLACE MACRO ga4_events(tbl, attribution := 'last', attribution_window := NULL,
                                   event_types := NULL, position_base := 'auto',
                                   list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_ga4_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_ga4_interactions(tbl, attribution := attribution,
                            attribution_window := attribution_window, event_types := event_types,
                            position_base := position_base, list_name := list_name, searches := NULL,
                            placed := NULL)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;

-- ga4_unattributed(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--                  position_base := 'auto', list_name := NULL)
--   -> TABLE(item_id VARCHAR, event_type VARCHAR, event_name VARCHAR, event_at TIMESTAMP,
--            user_id VARCHAR, session_id VARCHAR, value DOUBLE, reason VARCHAR)
-- The interactions of a GA4 export that ga4_events (same options) could not attribute, one row
-- per item of the event, with the reason: 'unknown event' (event_types does not name the event:
-- view_item, begin_checkout, refund, ... by default), 'no item' (item_id NULL or empty), 'no
-- user' (user_pseudo_id NULL), 'never shown' (no search showed the item to the user at or
-- before the event), 'outside the window' (shown, but only before the attribution window).
-- With ga4_events, every item of every event carrying items (other than view_search_results and
-- view_item_list) is counted once.
-- Example: SELECT reason, event_name, count(*) FROM ga4_unattributed('ga4_export') GROUP BY ALL;
CREATE OR REPLACE MACRO ga4_unattributed(tbl, attribution := 'last', attribution_window := NULL,
                                         event_types := NULL, position_base := 'auto',
                                         list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_ga4_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT item_id, event_type, event_name, event_at, user_id, session_id, value, reason
FROM _ndcg_ga4_interactions(tbl, attribution := attribution,
                            attribution_window := attribution_window, event_types := event_types,
                            position_base := position_base, list_name := list_name, searches := NULL,
                            placed := NULL)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
