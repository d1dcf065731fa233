-- cg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL, negative := 'error')
--   -> DOUBLE  [aggregate]
-- Cumulative gain@k: the sum of the gains of the first k returned rows (ascending rnk). Arguments
-- as for dcg; with ties = 'average' a tie group straddling position k contributes its mean gain
-- for each of its positions up to k.
-- Example: SELECT query_id, cg(rel, rnk, 6) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO cg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL,
                           negative := 'error') AS
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL THEN
    _ndcg_dcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k, gain, ties, tie_key,
              'none', NULL, negative)
END;
