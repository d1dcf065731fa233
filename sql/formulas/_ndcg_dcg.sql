-- _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, weight, param, negative) -> DOUBLE  [aggregate]
-- (internal): the gains of a group's rows summed with positional weights over the first k
-- positions of its ranking, ties averaged or broken by tie_key: dcg and ndcg (weight 'log', param
-- the log base), cg ('none'). The grades and the gain and negative arguments are checked here
-- (_ndcg_grade_error); rel and rnk come as DOUBLE, already checked to be numbers
-- (_ndcg_type_error). The other parameters are dcg's, see dcg.sql.
-- Example: _ndcg_dcg(rel::DOUBLE, rnk::DOUBLE, 10, 'linear', 'average', NULL, 'log', 2, 'error')
CREATE OR REPLACE MACRO _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, weight, param, negative) AS
CASE WHEN _ndcg_grade_error(rel, gain, negative) IS NULL
          AND _ndcg_rank_error(rnk, ties, tie_key) IS NULL THEN
    _ndcg_weighted_sum(_ndcg_ranking(_ndcg_gain_value(rel, gain), rnk, k, ties, tie_key), k, ties,
                       weight, param)
END;
