-- _ndcg_gain_error(gain, negative): NULL when the gain and negative arguments are valid, else an
-- error naming the argument (internal): NULL, an unknown value, a gain map holding a NaN,
-- infinite or NULL grade or gain, or a gain above 1e300, or (negative := 'error') a negative gain.
-- Constant arguments fold to NULL.
CREATE OR REPLACE MACRO _ndcg_gain_error(gain, negative) AS
CASE
    WHEN negative IS NULL OR negative NOT IN ('error', 'zero') THEN
        error('duckdb_ndcg: negative must be ''error'' or ''zero'', got '
              || coalesce('''' || negative || '''', 'NULL'))
    WHEN gain IS NULL THEN
        error('duckdb_ndcg: gain must be ''linear'', ''exponential'' or a MAP from grade to gain, '
              || 'got NULL')
    WHEN NOT _ndcg_is_map(gain) AND gain::VARCHAR NOT IN ('linear', 'exponential') THEN
        error('duckdb_ndcg: gain must be ''linear'', ''exponential'' or a MAP from grade to gain, '
              || 'got ''' || gain::VARCHAR || '''')
    WHEN _ndcg_is_map(gain)
         AND NOT coalesce(list_bool_and(list_transform(
                 list_concat(map_keys(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))),
                             map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)))),
                 lambda v: isfinite(v) AND abs(v) <= 1e300)), true) THEN
        error('duckdb_ndcg: gain map ' || gain::VARCHAR
              || ' has a NaN, infinite, NULL or too large (> 1e300) grade or gain')
    -- a negative gain would let DCG exceed the ideal (NDCG above 1); 'zero' counts it as 0
    WHEN negative = 'error' AND _ndcg_is_map(gain)
         AND list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)))) < 0 THEN
        error('duckdb_ndcg: gain map ' || gain::VARCHAR || ' gives grade '
              || list_filter(map_entries(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))),
                             lambda e: e.value < 0)[1].key::VARCHAR
              || ' the negative gain '
              || list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))))::VARCHAR
              || ' (pass negative := ''zero'' to count it as gain 0)')
END;
