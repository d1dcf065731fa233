-- Segment ecommerce (spec v2) track calls as rankings and events.

-- _ndcg_segment_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The Segment event names the adapter reads as interactions and the event_type each becomes
-- (internal): NULL is 'Product Clicked' 'click', 'Product Added' 'add_to_cart', 'Order
-- Completed' 'purchase' (the names ndcg_report's default mapping grades 1, 2, 3); a given MAP
-- replaces it. Any other value is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_segment_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'Product Clicked': 'click', 'Product Added': 'add_to_cart',
               'Order Completed': 'purchase'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from Segment event name to event '
                         || 'type, e.g. MAP {''Product Clicked'': ''click''}, got '
                         || event_types::VARCHAR))
END;

-- _ndcg_segment_us(ts) -> BIGINT
-- A Segment timestamp as microseconds since 1970 UTC (internal): ISO 8601 text (with 'Z' or an
-- offset, or without one, read as UTC), or the TIMESTAMP / TIMESTAMP WITH TIME ZONE read_json
-- may have made of it. Anything else (epoch seconds, '14/11/2023', NULL) is an error naming
-- timestamp. typeof folds to a constant, so only one branch runs.
CREATE OR REPLACE MACRO _ndcg_segment_us(ts) AS
coalesce(
    CASE
        WHEN typeof(ts) = 'TIMESTAMP WITH TIME ZONE' THEN epoch_us(TRY_CAST(ts AS TIMESTAMPTZ))
        WHEN typeof(ts) LIKE 'TIMESTAMP%' THEN epoch_us(TRY_CAST(ts AS TIMESTAMP))
        WHEN regexp_matches(trim(_ndcg_json_text(ts)),
                            ':[0-9]{2}(\.[0-9]*)?(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN
            epoch_us(TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMPTZ))
        WHEN regexp_matches(trim(_ndcg_json_text(ts)), '^[0-9]{4}-[0-9]{2}-[0-9]{2}') THEN
            epoch_us(TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMP))
    END,
    error('duckdb_ndcg: timestamp must be ISO 8601 text (''2023-11-14T22:13:20.000Z'') or a '
          || 'TIMESTAMP, got ' || coalesce('''' || _ndcg_json_text(ts) || '''', 'NULL')));

-- _ndcg_segment_rows(tbl) -> TABLE(event_name, event_us BIGINT, event_at TIMESTAMP, user_id,
--                                  anonymous_id, props JSON, search_term, list_id, device VARCHAR)
-- One row per track call of a Segment export (internal), its fields read and checked: event,
-- timestamp (_ndcg_segment_us), the user (userId, else anonymousId), properties as JSON (a
-- STRUCT when read_json agreed on one, JSON or its text when the documents disagree), its query
-- and list_id, and context.device.type. Calls of other types (page, identify) are left out; a
-- call delivered twice (Segment delivers at least once: the same messageId) is read once, its
-- earliest copy (copies are the same call); a column the export lacks is DuckDB's binder error naming it.
CREATE OR REPLACE MACRO _ndcg_segment_rows(tbl) AS TABLE
SELECT * EXCLUDE (_us, _message), _us AS event_us, make_timestamp(_us) AS event_at
FROM (
SELECT "event"::VARCHAR AS event_name,
       _ndcg_segment_us("timestamp") AS _us,
       coalesce(nullif(_ndcg_json_text(userId), ''),
                nullif(_ndcg_json_text(anonymousId), '')) AS user_id,
       nullif(_ndcg_json_text(anonymousId), '') AS anonymous_id,
       properties::JSON AS props,
       json_extract_string(properties::JSON, '$.query') AS search_term,
       json_extract_string(properties::JSON, '$.list_id') AS list_id,
       json_extract_string(context::JSON, '$.device.type') AS device,
       nullif(_ndcg_json_text(messageId), '') AS _message
FROM query_table(tbl)
WHERE "type"::VARCHAR = 'track'
)
QUALIFY _message IS NULL
        OR row_number() OVER (PARTITION BY _message ORDER BY _us, event_name, user_id) = 1;

-- _ndcg_segment_shown(tbl, position_base, list_id)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, device, user_id, session_id,
--            shown_at TIMESTAMP)
-- The searches of a Segment export and what each showed (internal; segment_rankings states the
-- rules): a search is one 'Products Searched' and the 'Product List Viewed' events of the same
-- user after it up to that user's next 'Products Searched' (Segment has no standard session);
-- its pages are those list views in time order, a list view whose products and positions equal
-- an earlier one's counted once. A page reads products[].position as the position (0-based or
-- 1-based: position_base) unless one of its products has none: then the page's own order. A
-- page whose first position is past every position shown before it in the search keeps its
-- positions; a page starting again continues after the largest of them (as GA4's pages).
CREATE OR REPLACE MACRO _ndcg_segment_shown(tbl, position_base, list_id) AS TABLE
WITH _ndcg_views AS (
    SELECT * FROM _ndcg_segment_rows(tbl)
    WHERE event_name IN ('Products Searched', 'Product List Viewed') AND user_id IS NOT NULL
),
_ndcg_searches AS (
    SELECT user_id, event_us AS search_us, min(search_term) AS search_term, min(device) AS device
    FROM _ndcg_views
    WHERE event_name = 'Products Searched'
    GROUP BY user_id, event_us
),
_ndcg_lists AS MATERIALIZED (
    -- a list view's products as [product_id, position] (all a page needs), narrow rows; read
    -- from the JSON once (materialized: the filter on its length below would otherwise be
    -- pushed into this CTE and parse the products three times; benchmarks/segment_adapter.py)
    SELECT user_id, event_us, event_at,
           list_transform(json_extract(props, '$.products[*]'),
                          lambda p: json_extract_string(p, ['$.product_id', '$.position']))
               AS _content
    FROM _ndcg_views
    WHERE event_name = 'Product List Viewed'
      AND (list_id IS NULL OR list_id = _ndcg_views.list_id)
),
_ndcg_pages AS (
    -- each list view belongs to the latest search of its user at or before it (the same
    -- microsecond included); a list view sent twice (same products, same positions) counts
    -- once, at its first time
    SELECT l.user_id, s.search_us, l._content,
           min(l.event_us) AS event_us, min(l.event_at) AS event_at
    FROM _ndcg_lists l
    ASOF JOIN _ndcg_searches s ON l.user_id = s.user_id AND l.event_us >= s.search_us
    WHERE len(l._content) > 0
    GROUP BY l.user_id, s.search_us, l._content
),
_ndcg_page_spans AS (
    -- per page: its number in the search (time order; equal times by a hash of the content),
    -- whether a position is missing (NULL or empty: then the page's own order), and its
    -- smallest and largest position
    SELECT *,
           row_number() OVER (PARTITION BY user_id, search_us
                              ORDER BY event_us, hash(_content)) AS _page,
           len(list_filter(_content, lambda x: x[2] IS NULL OR trim(x[2]) = '')) > 0
               AS _unindexed,
           list_min(list_transform(_content, lambda x: TRY_CAST(trim(x[2]) AS DOUBLE)))::BIGINT
               AS _min_index,
           list_max(list_transform(_content, lambda x: TRY_CAST(trim(x[2]) AS DOUBLE)))::BIGINT
               AS _max_index
    FROM _ndcg_pages
),
_ndcg_based AS (
    SELECT *,
           CASE position_base::VARCHAR
               WHEN '0' THEN 0
               WHEN '1' THEN 1
               -- 'auto': a search whose smallest position (over its positioned pages) is 0
               ELSE CASE WHEN min(CASE WHEN NOT _unindexed THEN _min_index END) OVER (
                                  PARTITION BY user_id, search_us) = 0
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
    -- per page, the largest absolute position of the earlier pages of its search: a page
    -- starting past it keeps its positions, one starting again continues after it
    SELECT user_id, search_us, _page,
           list_reduce(list_prepend({'lo': 0::BIGINT, 'hi': 0::BIGINT}, _spans[1:_page - 1]),
                       lambda done, span: {'lo': 0::BIGINT,
                                           'hi': CASE WHEN span.lo > done.hi
                                                      THEN greatest(done.hi, span.hi)
                                                      ELSE done.hi + span.hi END}).hi AS _before
    FROM _ndcg_spans
    JOIN (SELECT user_id, search_us, list({'lo': _lo, 'hi': _hi} ORDER BY _page) AS _spans
          FROM _ndcg_spans GROUP BY user_id, search_us)
        USING (user_id, search_us)
),
_ndcg_items AS (
    SELECT *,
           CASE
               WHEN _unindexed THEN _order
               WHEN NOT regexp_full_match(trim(_raw), '[0-9]{1,18}(\.0*)?') THEN
                   error('duckdb_ndcg: properties.products[].position must be a whole number '
                         || '>= 0, got ' || _raw || ' (product '
                         || coalesce(item_id, 'NULL') || ', user ' || user_id || ')')
               WHEN TRY_CAST(trim(_raw) AS DOUBLE)::BIGINT = 0 AND _base = 1 THEN
                   error('duckdb_ndcg: properties.products[].position 0 in a search read as '
                         || '1-based (position_base := 1): product ' || coalesce(item_id, 'NULL')
                         || ', user ' || user_id || ' (use position_base := 0 or ''auto'')')
               ELSE TRY_CAST(trim(_raw) AS DOUBLE)::BIGINT + 1 - _base
           END AS _on_page
    FROM (
        SELECT user_id, search_us, event_at, _page, _unindexed, _lo, _base,
               unnest(_content)[1] AS item_id, unnest(_content)[2] AS _raw,
               generate_subscripts(_content, 1) AS _order
        FROM _ndcg_spans
    )
)
SELECT p.user_id || '/' || p.search_us::VARCHAR AS query_id,
       p.item_id,
       p._on_page + CASE WHEN p._lo > o._before THEN 0 ELSE o._before END AS position,
       s.search_term, s.device, p.user_id, NULL::VARCHAR AS session_id, p.event_at AS shown_at
FROM _ndcg_items p
JOIN _ndcg_offsets o USING (user_id, search_us, _page)
JOIN _ndcg_searches s USING (user_id, search_us);

-- _ndcg_segment_interactions(tbl, attribution := ..., attribution_window := ...,
--                            event_types := ..., position_base := ..., list_id := ..., shown := ...)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id, session_id,
--            value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every product of every Segment track call other than the showings ('Products Searched',
-- 'Product List Viewed'), attributed to a search or given the reason it is not (internal;
-- segment_events returns the attributed ones, segment_unattributed the others). A call's
-- products are properties.products[] when it holds one, else the product its properties
-- describe (product_id, price, quantity: 'Product Clicked', 'Product Added'); a call of a type
-- event_types does not name, without a product_id (an 'Order Viewed', 'Signed In'), is no
-- interaction. value is price × quantity (quantity 1 when absent). The showing is the latest
-- ('last') or earliest ('first') showing of the product to the user (userId, else anonymousId;
-- a showing to the call's anonymousId counts too: searched before logging in, bought after) at
-- or before the call and within its attribution window, as _ndcg_ga4_interactions.
-- reason: 'unknown event', 'no item' (product_id NULL or empty), 'no user', 'never shown',
-- 'outside the window'; NULL: attributed.
-- shown: NULL computes the shown lists; a table's name reads them from it instead
-- (segment_rankings with the same options, made once: what evaluate(source=...) passes).
CREATE OR REPLACE MACRO _ndcg_segment_interactions(tbl, attribution := NULL,
                                                   attribution_window := NULL, event_types := NULL,
                                                   position_base := NULL, list_id := NULL,
                                                   shown := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_segment_types(event_types) AS _types
),
_ndcg_computed_shown AS (
    SELECT * FROM _ndcg_segment_shown(tbl, position_base, list_id)
),
_ndcg_shown AS (
    -- the shown lists: the table named by `shown` (evaluate() passes the segment_rankings it
    -- made, so they are computed once), else computed here
    SELECT * FROM query_table(coalesce(shown, '_ndcg_computed_shown'))
),
_ndcg_products AS (
    SELECT event_name, event_at, user_id, anonymous_id,
           map_extract_value(_types, event_name) AS event_type,
           nullif(json_extract_string(_item, '$.product_id'), '') AS item_id,
           json_extract_string(_item, '$.price') AS _price,
           json_extract_string(_item, '$.quantity') AS _quantity
    FROM (SELECT *,
                 unnest(CASE WHEN json_array_length(json_extract(props, '$.products')) > 0
                             THEN json_extract(props, '$.products[*]')
                             ELSE [props] END) AS _item
          FROM _ndcg_segment_rows(tbl)
          WHERE event_name NOT IN ('Products Searched', 'Product List Viewed'))
    CROSS JOIN _ndcg_options
),
_ndcg_acts AS (
    SELECT row_number() OVER () AS _row, event_name, event_at, user_id, anonymous_id,
           NULL::VARCHAR AS session_id, item_id, event_type,
           CASE
               WHEN _price IS NOT NULL AND TRY_CAST(_price AS DOUBLE) IS NULL THEN
                   error('duckdb_ndcg: properties price must be a number, got ''' || _price
                         || ''' (' || event_name || ', product ' || coalesce(item_id, 'NULL')
                         || ')')
               WHEN _quantity IS NOT NULL AND TRY_CAST(_quantity AS DOUBLE) IS NULL THEN
                   error('duckdb_ndcg: properties quantity must be a number, got '''
                         || _quantity || ''' (' || event_name || ', product '
                         || coalesce(item_id, 'NULL') || ')')
               ELSE TRY_CAST(_price AS DOUBLE) * coalesce(TRY_CAST(_quantity AS DOUBLE), 1)
           END AS value,
           event_at - _ndcg_attribution_window(attribution_window, event_name) AS _from
    FROM _ndcg_products
    WHERE event_type IS NOT NULL OR item_id IS NOT NULL
),
_ndcg_identities AS (
    -- an interaction under its userId and under its anonymousId (a search made before logging
    -- in, a purchase after)
    SELECT _row, user_id AS _who, item_id, event_at, _from FROM _ndcg_acts
    UNION ALL
    SELECT _row, anonymous_id, item_id, event_at, _from FROM _ndcg_acts
    WHERE anonymous_id <> user_id
),
_ndcg_matched AS (
    -- the latest showing of the product to the user under either id, and the earliest within
    -- the window (as GA4's)
    SELECT * FROM _ndcg_attributed('_ndcg_identities', '_ndcg_shown', attribution := attribution)
),
_ndcg_reasoned AS (
    SELECT a.*, m._last.q AS _last_query, m._last.p AS _last_position, m._last.t AS _last_at,
           m._first.q AS _first_query, m._first.p AS _first_position, m._first.t AS _first_at,
           CASE
               WHEN a.event_type IS NULL THEN 'unknown event'
               WHEN a.item_id IS NULL THEN 'no item'
               WHEN a.user_id IS NULL THEN 'no user'
               WHEN m._last.t IS NULL THEN 'never shown'
               WHEN m._last.t < a._from THEN 'outside the window'
           END AS reason
    FROM _ndcg_acts a LEFT JOIN _ndcg_matched m USING (_row)
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

-- segment_rankings(tbl, position_base := 'auto', list_id := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            device VARCHAR, user_id VARCHAR, session_id VARCHAR, shown_at TIMESTAMP)
-- The shown lists of Segment ecommerce (spec v2) track calls (table `tbl`, a name, as they land
-- in DuckDB from Segment's raw NDJSON read with read_json: type, event, userId, anonymousId,
-- timestamp ISO 8601, messageId, properties (a STRUCT, or JSON when the documents disagree),
-- context), in
-- the adapters' contract: one row per product a search showed, position 1 = first, with its
-- time and user (userId, else anonymousId), session_id NULL (Segment has no standard session),
-- and the slices search_term (properties.query) and device (context.device.type).
-- A search is one 'Products Searched' and the 'Product List Viewed' events of the same user
-- after it until that user's next 'Products Searched'; query_id is 'user/µs of the search'. Its
-- pages are those list views in time order, and a list view sent twice (same products and
-- positions) counts once. A page reads properties.products[].position as the position; a page
-- with a product without one takes its products' order instead. Positions are absolute across
-- pages: a page whose first position is past every position shown before keeps them, a page
-- whose positions start again continues after the largest of them.
--   position_base  'auto' (default): a search whose smallest position is 0 is 0-based, any other
--                  is 1-based; 0 or 1: every search is (a position 0 read as 1-based is an error).
--   list_id        NULL (default): every list view after a search is one of its pages; an id
--                  ('search_results'): only list views with that properties.list_id.
-- A position that is no whole number >= 0 is an error naming properties.products[].position; a
-- timestamp that is not ISO 8601 is an error naming timestamp.
-- Example: CREATE TABLE shown AS SELECT * FROM segment_rankings('tracks');
CREATE OR REPLACE MACRO segment_rankings(tbl, position_base := 'auto', list_id := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base) AS _ok
)
SELECT * FROM _ndcg_segment_shown(tbl, position_base, list_id)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS query_id FROM _ndcg_options WHERE NOT _ok;

-- segment_events(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--                position_base := 'auto', list_id := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of Segment ecommerce track calls (table `tbl`, as segment_rankings reads it)
-- in the adapters' contract: one row per product of an interaction ('Product Clicked' and
-- 'Product Added' its product_id, 'Order Completed' each of properties.products[]), attributed
-- to the search (query_id of segment_rankings) that showed it, with the call's time, user and
-- value (price × quantity). event_type is the contract's name of the event ('Product Clicked'
-- 'click', 'Product Added' 'add_to_cart', 'Order Completed' 'purchase'), which ndcg_report's
-- default mapping grades 1, 2, 3. Segment calls carry no search: each is attributed by user
-- (its userId, or its anonymousId: a search made before logging in), product and time to a
-- showing in segment_rankings at or before it, within its window:
--   attribution        'last' (default): the latest such showing; 'first': the earliest.
--   attribution_window NULL (default): 1 day for every event; an INTERVAL for all; or a MAP from
--                      Segment event name to INTERVAL (MAP {'Product Clicked': INTERVAL 30
--                      MINUTE}), 1 day for an event it does not name.
--   event_types        NULL (default): the three above; a MAP from Segment event name to the
--                      event_type to return (MAP {'Product Viewed': 'view', ...}).
--   position_base, list_id: as segment_rankings (the showings attributed to).
-- Every other product of a call (the showings aside) is in segment_unattributed with its
-- reason; with segment_events, every such product is counted once.
-- Example: CREATE TABLE events AS SELECT * FROM segment_events('tracks', attribution := 'first');
CREATE OR REPLACE MACRO segment_events(tbl, attribution := 'last', attribution_window := NULL,
                                       event_types := NULL, position_base := 'auto',
                                       list_id := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_segment_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_segment_interactions(tbl, attribution := attribution,
                                attribution_window := attribution_window,
                                event_types := event_types, position_base := position_base,
                                list_id := list_id, shown := NULL)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;

-- segment_unattributed(tbl, attribution := 'last', attribution_window := NULL,
--                      event_types := NULL, position_base := 'auto', list_id := NULL)
--   -> TABLE(item_id VARCHAR, event_type VARCHAR, event_name VARCHAR, event_at TIMESTAMP,
--            user_id VARCHAR, session_id VARCHAR, value DOUBLE, reason VARCHAR)
-- The interactions of Segment track calls that segment_events (same options) could not
-- attribute, one row per product, with the reason: 'unknown event' (event_types does not name
-- the event: 'Product Viewed', 'Checkout Started', ... by default), 'no item' (no product_id),
-- 'no user' (neither userId nor anonymousId), 'never shown' (no search showed the product to
-- the user at or before the call), 'outside the window' (shown, but only before the window).
-- Example: SELECT reason, event_name, count(*) FROM segment_unattributed('tracks') GROUP BY ALL;
CREATE OR REPLACE MACRO segment_unattributed(tbl, attribution := 'last',
                                             attribution_window := NULL, event_types := NULL,
                                             position_base := 'auto', list_id := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_segment_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT item_id, event_type, event_name, event_at, user_id, session_id, value, reason
FROM _ndcg_segment_interactions(tbl, attribution := attribution,
                                attribution_window := attribution_window,
                                event_types := event_types, position_base := position_base,
                                list_id := list_id, shown := NULL)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty export skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
