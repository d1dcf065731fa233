-- What the vendors' exports share: JSON text, the options of a source, the attribution window
-- (internal).

-- _ndcg_json_text(x) -> VARCHAR
-- A value as text (internal), a JSON value as its plain text: read_json gives a field holding
-- text in some documents and numbers in others (UBI's object_id, a timestamp as ISO text or
-- epoch millis) the type JSON, whose ::VARCHAR keeps the quotes ('"P"'). typeof folds to a
-- constant, so only one branch runs.
CREATE OR REPLACE MACRO _ndcg_json_text(x) AS
CASE WHEN typeof(x) = 'JSON' THEN json_extract_string(x::VARCHAR, '$') ELSE x::VARCHAR END;

-- _ndcg_source_options(attribution, attribution_window, position_base) -> BOOLEAN
-- true when the options the source adapters share are valid, else an error naming the first bad
-- one (internal): attribution 'last' or 'first'; attribution_window NULL (1 day), an INTERVAL
-- (or its text, '30 minutes') or a MAP from event name to INTERVAL; position_base 'auto', 0 or 1.
-- The adapters read it in a one-row CTE, so a bad option is refused on an empty export too.
CREATE OR REPLACE MACRO _ndcg_source_options(attribution, attribution_window, position_base) AS
CASE
    WHEN attribution IS NULL OR attribution NOT IN ('last', 'first') THEN
        error('duckdb_ndcg: attribution must be ''last'' or ''first'', got '
              || coalesce('''' || attribution || '''', 'NULL'))
    WHEN attribution_window IS NOT NULL
         AND TRY_CAST(attribution_window AS INTERVAL) IS NULL
         AND TRY_CAST(attribution_window AS MAP(VARCHAR, INTERVAL)) IS NULL THEN
        error('duckdb_ndcg: attribution_window must be an INTERVAL or a MAP from event name to '
              || 'INTERVAL (MAP {''select_item'': INTERVAL 30 MINUTE}), got '
              || attribution_window::VARCHAR)
    WHEN position_base IS NULL OR position_base::VARCHAR NOT IN ('auto', '0', '1') THEN
        error('duckdb_ndcg: position_base must be ''auto'' or 0 or 1, got '
              || coalesce(CASE WHEN typeof(position_base) = 'VARCHAR'
                               THEN '''' || position_base::VARCHAR || ''''
                               ELSE position_base::VARCHAR END, 'NULL'))
    ELSE true
END;

-- _ndcg_attribution_window(attribution_window, event_name) -> INTERVAL
-- How long after a showing an interaction of type `event_name` is still attributed to it
-- (internal): attribution_window NULL is 1 day for every type; an INTERVAL (or its text) is that
-- for every type; a MAP from event name to INTERVAL gives each named type its own, and 1 day to
-- the types it does not name.
CREATE OR REPLACE MACRO _ndcg_attribution_window(attribution_window, event_name) AS
coalesce(TRY_CAST(attribution_window AS INTERVAL),
         map_extract_value(TRY_CAST(attribution_window AS MAP(VARCHAR, INTERVAL)), event_name),
         INTERVAL 1 DAY);
