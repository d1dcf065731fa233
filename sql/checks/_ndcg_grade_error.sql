-- _ndcg_grade_error(rel, gain, negative): aggregate; NULL when a group's grades and the gain and
-- negative arguments are valid, else an error naming the problem (internal). Grades are checked
-- once per group from min/max (DuckDB orders NaN above every number), so the hot path can work on
-- raw grades: NaN or infinite grades, negative grades unless negative := 'zero', a bad gain or
-- negative argument (_ndcg_gain_error), a gain above 1e300 (its sums would overflow), a grade
-- missing from a gain map.
CREATE OR REPLACE MACRO _ndcg_grade_error(rel, gain, negative) AS
CASE
    WHEN _ndcg_gain_error(gain, negative) IS NOT NULL THEN NULL
    WHEN isnan(max(rel)::DOUBLE) OR isinf(max(rel)::DOUBLE) OR isinf(min(rel)::DOUBLE) THEN
        error('duckdb_ndcg: grade must be a finite number, got '
              || CASE WHEN isnan(max(rel)::DOUBLE) OR isinf(max(rel)::DOUBLE) THEN max(rel)::DOUBLE
                      ELSE min(rel)::DOUBLE END::VARCHAR)
    WHEN negative = 'error' AND min(rel) < 0 THEN
        error('duckdb_ndcg: negative grade ' || min(rel)::VARCHAR
              || ' (pass negative := ''zero'' to give negative grades gain 0)')
    WHEN NOT _ndcg_is_map(gain) AND _ndcg_gain_value(max(rel), gain) > 1e300 THEN
        _ndcg_big_gain_error(max(rel), gain)
    WHEN _ndcg_is_map(gain)
         AND min(rel) FILTER (WHERE _ndcg_is_map(gain) AND rel >= 0
                                    AND map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)),
                                                          rel::DOUBLE) IS NULL) IS NOT NULL THEN
        error('duckdb_ndcg: grade '
              || min(rel) FILTER (WHERE _ndcg_is_map(gain) AND rel >= 0
                                        AND map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)),
                                                              rel::DOUBLE) IS NULL)::VARCHAR
              || ' is not in the gain map ' || gain::VARCHAR)
END;
