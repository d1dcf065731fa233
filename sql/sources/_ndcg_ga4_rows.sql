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
