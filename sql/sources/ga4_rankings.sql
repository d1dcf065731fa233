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
