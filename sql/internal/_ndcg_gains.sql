-- _ndcg_gains(grades, gain): the gains of a list of grades already validated by
-- _ndcg_grade_error (internal; _ndcg_gain checks one value, this maps many without re-checking).
-- NULL and negative entries gain 0: NULL is an unjudged item, -1 the stand-in the ranking
-- aggregates use for it (top-N aggregates drop NULL values), and a negative grade only gets here
-- with negative := 'zero'.
CREATE OR REPLACE MACRO _ndcg_gains(grades, gain) AS
list_transform(grades, lambda r: CASE
    WHEN r IS NULL OR r < 0 THEN 0.0::DOUBLE
    WHEN gain::VARCHAR = 'linear' THEN r::DOUBLE
    WHEN gain::VARCHAR = 'exponential' THEN pow(2.0, r::DOUBLE) - 1.0
    ELSE map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)), r::DOUBLE)
END);
