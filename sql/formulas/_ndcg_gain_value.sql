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
