-- _ndcg_weight(q, weight, param) -> DOUBLE (internal): the weight of position q (1-based), the one
-- place the weights are defined:
--   'log'        1 / log_param(q + 1), the DCG discount (_ndcg_log_discount; param 'none': 1)
--   'none'       1: counts and CG
--   'geometric'  (1 - param) param^(q - 1): rank-biased precision, persistence param
-- A value at position q adds value x weight. No lambda and no error (NULL for a log base that is
-- not a number > 1): its callers check the base once (_ndcg_weights, _ndcg_weighted_list), and a
-- list of weights made from it with constant arguments is computed when DuckDB plans the query.
-- Example: _ndcg_weight(2, 'log', 2) = 1 / log2(3)
CREATE OR REPLACE MACRO _ndcg_weight(q, weight, param) AS
CASE
    WHEN weight = 'log' THEN 1.0 / _ndcg_log_discount(q, param)
    WHEN weight = 'none' THEN 1.0::DOUBLE
    WHEN weight = 'geometric' THEN
        (1.0 - TRY_CAST(param AS DOUBLE)) * pow(TRY_CAST(param AS DOUBLE), q - 1)
END;
