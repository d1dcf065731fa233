-- idcg(rel, k := NULL, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE  [aggregate]
-- Ideal DCG@k of a group: the DCG of its judged grades (non-NULL rel) sorted best first, cut at k
-- (NULL = every judged row).
-- Example: SELECT query_id, idcg(rel, 10) FROM qrels GROUP BY query_id;
CREATE OR REPLACE MACRO idcg(rel, k := NULL, gain := 'linear', log_base := 2, negative := 'error') AS
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL
          AND _ndcg_grade_error(TRY_CAST(rel AS DOUBLE), gain, negative) IS NULL THEN
    _ndcg_weighted_list(_ndcg_ideal_gains(TRY_CAST(rel AS DOUBLE), _ndcg_read_depth(k), gain),
                        _ndcg_checked_k(k), 'log', log_base)
END;
