-- Snowplow ecommerce events (the atomic events table) as rankings and events.

-- _ndcg_snowplow_types(event_types) -> MAP(VARCHAR, VARCHAR)
-- The Snowplow ecommerce action types the adapter reads as interactions and the event_type each
-- becomes (internal): NULL is list_click 'click', add_to_cart 'add_to_cart', transaction
-- 'purchase' (the names ndcg_report's default mapping grades 1, 2, 3); a given MAP replaces it.
-- Any other value is an error naming event_types.
CREATE OR REPLACE MACRO _ndcg_snowplow_types(event_types) AS
CASE WHEN event_types IS NULL
     THEN MAP {'list_click': 'click', 'add_to_cart': 'add_to_cart', 'transaction': 'purchase'}
     ELSE coalesce(TRY_CAST(event_types AS MAP(VARCHAR, VARCHAR)),
                   error('duckdb_ndcg: event_types must be a MAP from Snowplow ecommerce action '
                         || 'type to event type, e.g. MAP {''list_click'': ''click''}, got '
                         || event_types::VARCHAR))
END;

-- _ndcg_snowplow_rows(tbl) -> TABLE(event_id, is_action BOOLEAN, action, action_name,
--                                   is_search BOOLEAN, search_term, event_at TIMESTAMP, user_id,
--                                   session_id, products)
-- One row per event of a Snowplow atomic events table (internal), its fields read and checked.
-- The column names are those of Snowplow's Snowflake and Databricks loaders (one column per
-- schema and major version, as the dbt-snowplow-ecommerce models read them); the schemas are
-- Iglu Central's (snowplow/iglu-central, schemas/com.snowplowanalytics.snowplow.ecommerce/):
--   unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1
--       snowplow_ecommerce_action 1-0-2: STRUCT(type, name), type one of add_to_cart,
--       remove_from_cart, product_view, list_click, list_view, promo_click, promo_view,
--       checkout_step, transaction, refund, trns_error; name the list's name
--   contexts_com_snowplowanalytics_snowplow_ecommerce_product_1
--       product 1-0-0 entities: LIST(STRUCT(id, name, category, price, list_price, quantity,
--       size, variant, brand, inventory_status, position, currency, creative_id)); position an
--       integer >= 0 or null ("the position the product was presented in a list"), a STRING in
--       Databricks' loader
--   unstruct_event_com_snowplowanalytics_snowplow_site_search_1
--       site_search 1-0-0 (com.snowplowanalytics.snowplow): STRUCT(terms[], filters,
--       total_results, page_results)
-- is_action: the event is an ecommerce action; is_search: a site search. user_id is
-- domain_userid, else user_id; session_id domain_sessionid; search_term the terms joined by a
-- space. derived_tstamp is a TIMESTAMP (UTC, as Snowplow writes it), a TIMESTAMP WITH TIME
-- ZONE or ISO 8601 text in UTC (text with another UTC offset, a number or NULL: an error naming
-- derived_tstamp). A column the table lacks is DuckDB's
-- binder error naming it.
CREATE OR REPLACE MACRO _ndcg_snowplow_rows(tbl) AS TABLE
SELECT event_id::VARCHAR AS event_id,
       unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1
           IS NOT NULL AS is_action,
       struct_extract(
           unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1,
           'type')::VARCHAR AS action,
       struct_extract(
           unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1,
           'name')::VARCHAR AS action_name,
       unstruct_event_com_snowplowanalytics_snowplow_site_search_1 IS NOT NULL AS is_search,
       nullif(array_to_string(
           struct_extract(unstruct_event_com_snowplowanalytics_snowplow_site_search_1, 'terms'),
           ' '), '') AS search_term,
       CASE
           -- text only (typeof folds to a constant): a TIMESTAMP WITH TIME ZONE prints its
           -- session's offset
           WHEN typeof(derived_tstamp) = 'VARCHAR'
                AND regexp_matches(derived_tstamp::VARCHAR, '[+-][0-9]{2}(:?[0-9]{2})?$')
                AND NOT regexp_matches(derived_tstamp::VARCHAR, '[+-]00(:?00)?$') THEN
               error('duckdb_ndcg: derived_tstamp must be UTC (Snowplow writes it so), got '''
                     || derived_tstamp::VARCHAR || ''' (event '
                     || coalesce(event_id::VARCHAR, 'NULL') || ')')
           -- a TIMESTAMP WITH TIME ZONE (read_json's type for ISO text ending in Z) as UTC,
           -- whatever the session's TimeZone (through its epoch: no ICU function needed)
           WHEN typeof(derived_tstamp) = 'TIMESTAMP WITH TIME ZONE' THEN
               make_timestamp(epoch_us(TRY_CAST(derived_tstamp AS TIMESTAMPTZ)))
           ELSE coalesce(TRY_CAST(derived_tstamp AS TIMESTAMP),
                         error('duckdb_ndcg: derived_tstamp must be a TIMESTAMP or ISO 8601 text, '
                               || 'got ' || coalesce('''' || derived_tstamp::VARCHAR || ''' ('
                                                     || typeof(derived_tstamp) || ')', 'NULL')
                               || ' (event ' || coalesce(event_id::VARCHAR, 'NULL') || ')'))
       END AS event_at,
       coalesce(domain_userid::VARCHAR, user_id::VARCHAR) AS user_id,
       domain_sessionid::VARCHAR AS session_id,
       contexts_com_snowplowanalytics_snowplow_ecommerce_product_1 AS products
FROM query_table(tbl);

-- _ndcg_snowplow_shown(tbl, position_base, list_name)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, user_id, session_id,
--            shown_at TIMESTAMP)
-- The searches of a Snowplow events table and what each showed (internal; snowplow_rankings
-- states the rules): a search is one site_search event and the list_view actions after it in the
-- same session (domain_userid, domain_sessionid) up to the next site_search; its pages are those
-- list views in time order, a list view whose products and positions equal an earlier one's
-- counted once. The same rules as _ndcg_ga4_shown (sql/sources/ga4.sql), on the product
-- entities' position instead of GA4's item_list_index.
CREATE OR REPLACE MACRO _ndcg_snowplow_shown(tbl, position_base, list_name) AS TABLE
WITH _ndcg_views AS (
    SELECT * FROM _ndcg_snowplow_rows(tbl)
    WHERE (is_search OR action = 'list_view') AND user_id IS NOT NULL AND session_id IS NOT NULL
),
_ndcg_searches AS (
    -- a search sent twice at the same time is one; its query_id is its event_id
    SELECT user_id, session_id, event_at AS search_at,
           coalesce(min(event_id),
                    error('duckdb_ndcg: event_id is NULL on a site_search event (user '
                          || user_id || ', session ' || session_id || ')')) AS query_id,
           min(search_term) AS search_term
    FROM _ndcg_views
    WHERE is_search
    GROUP BY user_id, session_id, event_at
),
_ndcg_lists AS (
    -- a list view's products as [id, position] (all a page needs), narrow rows
    SELECT user_id, session_id, event_at,
           list_transform(products, lambda x: [x.id::VARCHAR, x.position::VARCHAR]) AS _content
    FROM _ndcg_views
    WHERE NOT is_search AND len(products) > 0
      AND (list_name IS NULL OR list_name = action_name)
),
_ndcg_pages AS (
    -- each list view belongs to the latest search of its session at or before it; a list view
    -- sent twice (same products, same positions) counts once, at its first time
    SELECT l.user_id, l.session_id, s.search_at, l._content, min(l.event_at) AS event_at
    FROM _ndcg_lists l
    ASOF JOIN _ndcg_searches s
        ON l.user_id = s.user_id AND l.session_id = s.session_id AND l.event_at >= s.search_at
    GROUP BY l.user_id, l.session_id, s.search_at, l._content
),
_ndcg_page_spans AS (
    -- per page: its number in the search (time order; equal times by a hash of the content),
    -- whether a position is missing (NULL or empty: then the page's own order), and its
    -- smallest and largest position
    SELECT *,
           row_number() OVER (PARTITION BY user_id, session_id, search_at
                              ORDER BY event_at, hash(_content)) AS _page,
           len(list_filter(_content, lambda x: x[2] IS NULL OR trim(x[2]) = '')) > 0
               AS _unindexed,
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
               -- 'auto': a search whose smallest position (over its positioned pages) is 0
               ELSE CASE WHEN min(CASE WHEN NOT _unindexed THEN _min_index END) OVER (
                                  PARTITION BY user_id, session_id, search_at) = 0
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
    SELECT user_id, session_id, search_at, _page,
           list_reduce(list_prepend({'lo': 0::BIGINT, 'hi': 0::BIGINT}, _spans[1:_page - 1]),
                       lambda done, span: {'lo': 0::BIGINT,
                                           'hi': CASE WHEN span.lo > done.hi
                                                      THEN greatest(done.hi, span.hi)
                                                      ELSE done.hi + span.hi END}).hi AS _before
    FROM _ndcg_spans
    JOIN (SELECT user_id, session_id, search_at,
                 list({'lo': _lo, 'hi': _hi} ORDER BY _page) AS _spans
          FROM _ndcg_spans GROUP BY user_id, session_id, search_at)
        USING (user_id, session_id, search_at)
),
_ndcg_items AS (
    SELECT *,
           CASE
               WHEN _unindexed THEN _order
               WHEN NOT regexp_full_match(trim(_raw), '[0-9]{1,18}') THEN
                   error('duckdb_ndcg: position of a product entity must be a whole number >= 0 '
                         || 'or NULL, got ''' || _raw || ''' (product '
                         || coalesce(item_id, 'NULL') || ', user ' || user_id || ')')
               WHEN trim(_raw)::BIGINT = 0 AND _base = 1 THEN
                   error('duckdb_ndcg: product position 0 in a search read as 1-based '
                         || '(position_base := 1): product ' || coalesce(item_id, 'NULL')
                         || ', user ' || user_id || ' (use position_base := 0 or ''auto'')')
               ELSE trim(_raw)::BIGINT + 1 - _base
           END AS _on_page
    FROM (
        SELECT user_id, session_id, search_at, event_at, _page, _unindexed, _lo, _base,
               unnest(_content)[1] AS item_id, unnest(_content)[2] AS _raw,
               generate_subscripts(_content, 1) AS _order
        FROM _ndcg_spans
    )
)
SELECT s.query_id, p.item_id,
       p._on_page + CASE WHEN p._lo > o._before THEN 0 ELSE o._before END AS position,
       s.search_term, p.user_id, p.session_id, p.event_at AS shown_at
FROM _ndcg_items p
JOIN _ndcg_offsets o USING (user_id, session_id, search_at, _page)
JOIN _ndcg_searches s USING (user_id, session_id, search_at);

-- _ndcg_snowplow_interactions(tbl, attribution := ..., attribution_window := ...,
--                             event_types := ..., position_base := ..., list_name := ...,
--                             shown := ...)
--   -> TABLE(query_id, item_id, event_type, event_name, event_at TIMESTAMP, user_id, session_id,
--            value DOUBLE, position BIGINT, shown_at TIMESTAMP, reason VARCHAR)
-- Every product entity of every ecommerce action other than list_view, attributed to a search or
-- given the reason it is not (internal; snowplow_events returns the attributed ones,
-- snowplow_unattributed the others). event_name is the action's type (list_click, transaction);
-- value is the product's price × quantity (quantity NULL: 1). The attribution is
-- _ndcg_ga4_interactions' (sql/sources/ga4.sql): the latest ('last') or earliest ('first')
-- showing of the item to the user at or before the action and within its attribution window;
-- reason 'unknown event', 'no item', 'no user', 'never shown' or 'outside the window'.
-- shown: NULL computes the shown lists; a table's name reads them from it instead
-- (snowplow_rankings with the same options, made once: what evaluate(source=...) passes).
CREATE OR REPLACE MACRO _ndcg_snowplow_interactions(tbl, attribution := NULL,
                                                    attribution_window := NULL, event_types := NULL,
                                                    position_base := NULL, list_name := NULL,
                                                    shown := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_snowplow_types(event_types) AS _types
),
_ndcg_computed_shown AS (
    SELECT * FROM _ndcg_snowplow_shown(tbl, position_base, list_name)
),
_ndcg_shown AS (
    -- the shown lists: the table named by `shown` (evaluate() passes the snowplow_rankings it
    -- made, so they are computed once), else computed here
    SELECT * FROM query_table(coalesce(shown, '_ndcg_computed_shown'))
),
_ndcg_acts AS (
    SELECT row_number() OVER () AS _row, action AS event_name, event_at, user_id, session_id,
           nullif(struct_extract(_item, 'id')::VARCHAR, '') AS item_id,
           map_extract_value(_types, action) AS event_type,
           (TRY_CAST(struct_extract(_item, 'price') AS DOUBLE)
            * coalesce(TRY_CAST(struct_extract(_item, 'quantity') AS DOUBLE), 1)) AS value,
           event_at - _ndcg_attribution_window(attribution_window, action) AS _from
    FROM (SELECT *, unnest(products) AS _item
          FROM _ndcg_snowplow_rows(tbl)
          WHERE is_action AND action IS DISTINCT FROM 'list_view')
    CROSS JOIN _ndcg_options
),
_ndcg_identities AS (
    SELECT _row, user_id AS _who, item_id, event_at, _from FROM _ndcg_acts
),
_ndcg_matched AS (
    -- the latest showing of the item to the user, and the earliest within the window
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

-- snowplow_rankings(tbl, position_base := 'auto', list_name := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            user_id VARCHAR, session_id VARCHAR, shown_at TIMESTAMP)
-- The shown lists of a Snowplow atomic events table with the ecommerce plugin's events (table
-- `tbl`, a name, as it lands in DuckDB from Parquet or NDJSON in the Snowflake/Databricks
-- loaders' shape: event_id, derived_tstamp, domain_userid, user_id, domain_sessionid, the
-- snowplow_ecommerce_action event, product entities and the site_search event as their
-- unstruct_event_* / contexts_* columns), in the adapters' contract: one row per product a
-- search showed, position 1 = first, with its time, user and session, and the slice search_term
-- (the site search's terms joined by a space). snowplow_events gives the interactions; with both,
-- ndcg_report, ndcg_summary and compare_rankers run unchanged (README "From GA4 and UBI exports").
-- A search is one site_search event and the list_view actions that follow it in the same session
-- (domain_userid, else user_id; domain_sessionid) until the next site_search; query_id is the
-- site_search's event_id. Its pages are those list views in time order, and a list view sent
-- twice (same products and positions) counts once. A page reads the product entities' position
-- as the position on the page; a page with a product whose position is NULL takes the entities'
-- order instead. Positions are absolute across pages: a page whose first position is past every
-- position the search showed before keeps them, a page whose positions start again continues
-- after the largest of them.
--   position_base  'auto' (default): a search whose smallest position is 0 is 0-based, any other
--                  is 1-based; 0 or 1: every search is (a position 0 read as 1-based is an error).
--   list_name      NULL (default): every list view after a search is one of its pages; a name
--                  ('search results'): only list_view actions of that name.
-- A position that is no whole number >= 0 is an error naming it; a derived_tstamp that is no
-- timestamp (or not UTC) is an error naming derived_tstamp; a missing column is DuckDB's binder
-- error naming it. Events are read as they are: a table with Snowplow's duplicated event_ids
-- should be deduplicated first.
-- Example: CREATE TABLE shown AS SELECT * FROM snowplow_rankings('snowplow_events');
CREATE OR REPLACE MACRO snowplow_rankings(tbl, position_base := 'auto', list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options('last', NULL, position_base) AS _ok
)
SELECT * FROM _ndcg_snowplow_shown(tbl, position_base, list_name)
-- the options are checked by a branch that always runs (an empty table skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS query_id FROM _ndcg_options WHERE NOT _ok;

-- snowplow_events(tbl, attribution := 'last', attribution_window := NULL, event_types := NULL,
--                 position_base := 'auto', list_name := NULL)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR, event_name VARCHAR,
--            event_at TIMESTAMP, user_id VARCHAR, session_id VARCHAR, value DOUBLE,
--            position BIGINT, shown_at TIMESTAMP)
-- The interactions of a Snowplow events table (`tbl`, as snowplow_rankings reads it), in the
-- adapters' contract: one row per product entity of an ecommerce action, attributed to the
-- search (query_id of snowplow_rankings) that showed it, with the action's time, user, session
-- and value (the product's price × quantity, quantity NULL counting 1). event_name is the
-- action's type; event_type its contract name (list_click 'click', add_to_cart 'add_to_cart',
-- transaction 'purchase'), so ndcg_report's default mapping grades them 1, 2, 3.
-- Snowplow's actions carry no search: each is attributed by user (domain_userid, else user_id),
-- product id and time to a showing in snowplow_rankings at or before it, within its window:
--   attribution        'last' (default): the latest such showing; 'first': the earliest.
--   attribution_window NULL (default): 1 day for every action type; an INTERVAL for all; or a MAP
--                      from action type to INTERVAL (MAP {'list_click': INTERVAL 30 MINUTE}),
--                      1 day for a type it does not name.
--   event_types        NULL (default): MAP {'list_click': 'click', 'add_to_cart': 'add_to_cart',
--                      'transaction': 'purchase'}; a MAP from action type to the event_type to
--                      return (add 'checkout_step' and give it a grade in ndcg_report's mapping).
--   position_base, list_name: as snowplow_rankings (the showings attributed to).
-- Every other product of an action (list_view aside) is in snowplow_unattributed with its
-- reason; snowplow_events and snowplow_unattributed together hold every such product once.
-- Example: CREATE TABLE events AS SELECT * FROM snowplow_events('snowplow_events');
CREATE OR REPLACE MACRO snowplow_events(tbl, attribution := 'last', attribution_window := NULL,
                                        event_types := NULL, position_base := 'auto',
                                        list_name := NULL) AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_snowplow_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT * EXCLUDE (reason)
FROM _ndcg_snowplow_interactions(tbl, attribution := attribution,
                                 attribution_window := attribution_window,
                                 event_types := event_types, position_base := position_base,
                                 list_name := list_name, shown := NULL)
WHERE reason IS NULL
)
-- the options are checked by a branch that always runs (an empty table skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;

-- snowplow_unattributed(tbl, attribution := 'last', attribution_window := NULL,
--                       event_types := NULL, position_base := 'auto', list_name := NULL)
--   -> TABLE(item_id VARCHAR, event_type VARCHAR, event_name VARCHAR, event_at TIMESTAMP,
--            user_id VARCHAR, session_id VARCHAR, value DOUBLE, reason VARCHAR)
-- The interactions of a Snowplow events table that snowplow_events (same options) could not
-- attribute, one row per product entity of the action, with the reason: 'unknown event'
-- (event_types does not name the action type: product_view, remove_from_cart, refund, ... by
-- default), 'no item' (id NULL or empty), 'no user' (domain_userid and user_id NULL), 'never
-- shown' (no search showed the product to the user at or before the action), 'outside the
-- window' (shown, but only before the attribution window). With snowplow_events, every product
-- of every ecommerce action other than list_view is counted once.
-- Example: SELECT reason, event_name, count(*) FROM snowplow_unattributed('snowplow_events')
--          GROUP BY ALL;
CREATE OR REPLACE MACRO snowplow_unattributed(tbl, attribution := 'last',
                                              attribution_window := NULL, event_types := NULL,
                                              position_base := 'auto', list_name := NULL)
AS TABLE
WITH _ndcg_options AS (
    SELECT _ndcg_source_options(attribution, attribution_window, position_base)
           AND _ndcg_snowplow_types(event_types) IS NOT NULL AS _ok
)
SELECT * FROM (
SELECT item_id, event_type, event_name, event_at, user_id, session_id, value, reason
FROM _ndcg_snowplow_interactions(tbl, attribution := attribution,
                                 attribution_window := attribution_window,
                                 event_types := event_types, position_base := position_base,
                                 list_name := list_name, shown := NULL)
WHERE reason IS NOT NULL
)
-- the options are checked by a branch that always runs (an empty table skips the other one)
UNION ALL BY NAME
SELECT NULL::VARCHAR AS item_id FROM _ndcg_options WHERE NOT _ok;
