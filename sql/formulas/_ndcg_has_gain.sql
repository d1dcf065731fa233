-- _ndcg_has_gain(rel, gain): whether a grade's gain is not 0, the rows DCG and the ideal ranking
-- are summed over (internal). Linear and exponential gains are not 0 exactly for grades > 0, which
-- skips computing the gain of every row; a gain MAP is looked up.
CREATE OR REPLACE MACRO _ndcg_has_gain(rel, gain) AS
CASE WHEN _ndcg_is_map(gain) THEN _ndcg_gain_value(rel, gain) <> 0 ELSE rel > 0 END;
