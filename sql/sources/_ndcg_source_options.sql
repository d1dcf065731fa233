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
