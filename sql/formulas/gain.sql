-- The gain of a grade: linear, exponential or a MAP (internal).

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

-- _ndcg_gain_value(r, gain): the gain of one grade already known to be valid (internal; shared by
-- _ndcg_gain, which checks first, the ranking of dcg, ndcg and cg, whose grades are checked per
-- group, and the ideal gains). NULL and negative grades gain 0: NULL is an unjudged item, and a
-- negative grade only gets here with negative := 'zero' (as does a map's negative gain, which
-- gains 0 too). NULL when a gain MAP lacks the grade or gain is not a known kind.
CREATE OR REPLACE MACRO _ndcg_gain_value(r, gain) AS
CASE
    WHEN r IS NULL OR r < 0 THEN 0.0::DOUBLE
    WHEN gain::VARCHAR = 'linear' THEN r::DOUBLE
    WHEN gain::VARCHAR = 'exponential' THEN pow(2.0, r::DOUBLE) - 1.0
    -- a negative gain of the map only gets here with negative := 'zero': it gains 0
    -- (CASE, not if(): the DuckDB 1.5 CLI reading a persisted file has no if())
    WHEN map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)), r::DOUBLE) < 0 THEN 0.0::DOUBLE
    ELSE map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)), r::DOUBLE)
END;

-- _ndcg_has_gain(rel, gain): whether a grade's gain is not 0, the rows DCG and the ideal ranking
-- are summed over (internal). Linear and exponential gains are not 0 exactly for grades > 0, which
-- skips computing the gain of every row; a gain MAP is looked up.
CREATE OR REPLACE MACRO _ndcg_has_gain(rel, gain) AS
CASE WHEN _ndcg_is_map(gain) THEN _ndcg_gain_value(rel, gain) <> 0 ELSE rel > 0 END;
