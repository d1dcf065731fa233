-- _ndcg_ubi_rows(events_tbl, event_types)
--   -> TABLE(event_name, event_type, query_id, item_id, session_id, user_id, application VARCHAR,
--            event_at TIMESTAMP, ordinal BIGINT)
-- One row per event of a UBI 1.3.0 ubi_events table (internal), read and checked: action_name,
-- query_id, session_id, client_id (the user), application, timestamp, and from event_attributes
-- object.object_id (text or integer) and position.ordinal (a whole number >= 0, else an error
-- naming it). event_type is event_types' name for action_name (NULL: not named).
CREATE OR REPLACE MACRO _ndcg_ubi_rows(events_tbl, event_types) AS TABLE
SELECT action_name::VARCHAR AS event_name,
       map_extract_value(_ndcg_ubi_types(event_types), action_name::VARCHAR) AS event_type,
       nullif(query_id::VARCHAR, '') AS query_id,
       nullif(_ndcg_json_text(struct_extract(struct_extract(event_attributes, 'object'),
                                             'object_id')), '') AS item_id,
       session_id::VARCHAR AS session_id,
       client_id::VARCHAR AS user_id,
       application::VARCHAR AS application,
       _ndcg_ubi_time("timestamp") AS event_at,
       CASE
           WHEN _ordinal IS NULL THEN NULL
           WHEN regexp_full_match(trim(_ordinal), '[0-9]{1,18}') THEN trim(_ordinal)::BIGINT
           ELSE error('duckdb_ndcg: event_attributes.position.ordinal must be a whole number >= 0, '
                      || 'got ' || _ordinal || ' (query ' || coalesce(query_id::VARCHAR, 'NULL')
                      || ', action ' || coalesce(action_name::VARCHAR, 'NULL') || ')')
       END AS ordinal
FROM (SELECT *,
             _ndcg_json_text(struct_extract(struct_extract(event_attributes, 'position'),
                                            'ordinal')) AS _ordinal
      FROM query_table(events_tbl));
