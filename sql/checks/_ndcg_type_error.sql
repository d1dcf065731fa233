-- _ndcg_type_error(x, what): aggregate; NULL when column x is numeric, else an error naming `what`
-- and its type (internal): text grades would compare alphabetically ('10' < '9'), and text, date
-- or timestamp rank keys failed deep inside a macro. typeof(any_value(x)) folds to a constant at
-- bind time, so the check costs nothing per row; the aggregates then read TRY_CAST(x AS DOUBLE),
-- which, unlike an expression holding error(), DuckDB shares between identical aggregates.
CREATE OR REPLACE MACRO _ndcg_type_error(x, what) AS
CASE
    WHEN NOT _ndcg_is_number_type(typeof(any_value(x))) THEN
        error('duckdb_ndcg: ' || what || ' must be a number, got ' || typeof(any_value(x))
              || ' (cast the column, e.g. col::DOUBLE, or rank by position or -score)')
END;
