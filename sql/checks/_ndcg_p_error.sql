-- _ndcg_p_error(p): NULL when p, rbp's persistence, is a number between 0 and 1 (exclusive), else
-- an error naming p (internal): NULL, NaN, 0, 1, text that is not a number. A constant p folds.
CREATE OR REPLACE MACRO _ndcg_p_error(p) AS
CASE
    WHEN coalesce(NOT (TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1), true) THEN
        error('duckdb_ndcg: p must be a number between 0 and 1 (exclusive), got '
              || coalesce(p::VARCHAR, 'NULL'))
END;
