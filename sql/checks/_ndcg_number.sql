-- _ndcg_number(x, what): x as a DOUBLE when its type is a number, else an error naming `what` and
-- the type (internal): a per-row check, for scalar helpers (_ndcg_relevant). The type test folds
-- to a constant, so a numeric column costs one cast.
CREATE OR REPLACE MACRO _ndcg_number(x, what) AS
CASE
    WHEN _ndcg_is_number_type(typeof(x)) THEN TRY_CAST(x AS DOUBLE)
    ELSE error('duckdb_ndcg: ' || what || ' must be a number, got ' || typeof(x)
               || ' (cast the column, e.g. col::DOUBLE, or rank by position or -score)')
END;
