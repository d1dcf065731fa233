-- _ndcg_gain(rel, gain, negative): the gain of one grade (internal).
--   rel       grade; NULL = unjudged, gain 0. Fractional grades are fine.
--   gain      'linear' (rel), 'exponential' (2^rel - 1), or a MAP from grade to gain
--             (a MAP value, or its text form '{0=0, 1=1, 2=3}'); a grade missing from the map is an error.
--   negative  'error' (default of every public macro) or 'zero' (a negative grade gains 0).
-- NaN and infinite grades are errors.
CREATE OR REPLACE MACRO _ndcg_gain(rel, gain, negative) AS
CASE
    WHEN _ndcg_gain_error(gain, negative) IS NOT NULL THEN NULL
    WHEN rel IS NULL THEN 0.0::DOUBLE
    WHEN isnan(rel::DOUBLE) OR isinf(rel::DOUBLE) THEN
        error('duckdb_ndcg: grade must be a finite number, got ' || rel::VARCHAR)
    WHEN rel < 0 AND negative = 'zero' THEN 0.0::DOUBLE
    WHEN rel < 0 THEN
        error('duckdb_ndcg: negative grade ' || rel::VARCHAR
              || ' (pass negative := ''zero'' to give negative grades gain 0)')
    WHEN NOT _ndcg_is_map(gain) AND _ndcg_gain_value(rel, gain) > 1e300 THEN
        _ndcg_big_gain_error(rel, gain)
    ELSE coalesce(_ndcg_gain_value(rel, gain),
                  error('duckdb_ndcg: grade ' || rel::VARCHAR || ' is not in the gain map '
                        || gain::VARCHAR))
END;
