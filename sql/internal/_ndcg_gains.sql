-- _ndcg_gains(grades, gain): the gains of a list of already validated grades (internal). NULL and
-- negative entries gain 0: NULL is an unjudged item, -1 the stand-in the ranking aggregates use for
-- it (top-N aggregates drop NULL values), and a negative grade only gets here with negative := 'zero'.
CREATE OR REPLACE MACRO _ndcg_gains(grades, gain) AS
list_transform(grades,
               lambda r: CASE WHEN r IS NULL OR r < 0 THEN 0.0::DOUBLE ELSE _ndcg_gain(r, gain, 'error') END);
