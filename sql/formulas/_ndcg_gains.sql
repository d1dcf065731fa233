-- _ndcg_gains(grades, gain): the gains of a list of grades already validated by
-- _ndcg_grade_error (internal; see _ndcg_gain_value).
CREATE OR REPLACE MACRO _ndcg_gains(grades, gain) AS
list_transform(grades, lambda r: _ndcg_gain_value(r, gain));
