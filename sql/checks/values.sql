-- The kinds of values a macro is given: numbers, maps, key types and collations (internal).

-- _ndcg_type_error(x, what): aggregate; NULL when column x is numeric, else an error naming `what`
-- and its type (internal): text grades would compare alphabetically ('10' < '9'), and text, date
-- or timestamp rank keys failed deep inside a macro; integer rank keys beyond 2^53 are refused,
-- and DECIMAL keys that a DOUBLE cannot tell apart.
-- typeof(any_value(x)) folds to a constant at bind time, so the check costs nothing per row; the
-- aggregates then read TRY_CAST(x AS DOUBLE), which, unlike an expression holding error(),
-- DuckDB shares between identical aggregates.
CREATE OR REPLACE MACRO _ndcg_type_error(x, what) AS
CASE
    WHEN NOT _ndcg_is_number_type(typeof(any_value(x))) THEN
        error('duckdb_ndcg: ' || what || ' must be a number, got ' || typeof(any_value(x))
              || ' (cast the column, e.g. col::DOUBLE, or rank by position or -score)')
    -- the metrics compare rank keys as DOUBLE: BIGINT, UBIGINT, HUGEINT keys beyond 2^53 could
    -- collide (2^60 and 2^60 + 1 tied). The type test folds, so other types pay no aggregate
    -- (a nested CASE: with the aggregates in this WHEN a folded-away branch stayed in the plan)
    WHEN what = 'rnk' AND regexp_full_match(typeof(any_value(x)), 'U?(BIG|HUGE)INT') THEN CASE
        -- through VARCHAR: DuckDB 1.4 and 1.5 bind this branch for text and date columns too,
        -- and refuse comparing them with a number; a UHUGEINT past HUGEINT is beyond 2^53 too
        WHEN (max(x) IS NOT NULL AND coalesce(TRY_CAST(max(x)::VARCHAR AS HUGEINT) > 9007199254740992, true))
             OR TRY_CAST(min(x)::VARCHAR AS HUGEINT) < -9007199254740992 THEN
            error('duckdb_ndcg: rnk holds a key beyond 2^53 (' || max(x)::VARCHAR || ' or '
                  || min(x)::VARCHAR || '), where two keys may be one DOUBLE and tie: rank by '
                  || 'position, or subtract a common offset')
    END
    -- DECIMAL keys of 16 digits and more can be one DOUBLE too (123456789012345678 and ...679):
    -- refused when the largest key in units of the scale (x * 10^s) passes 2^53 (scale 0) or 2^52
    -- (where a DOUBLE's spacing reaches 10^-s), by the same min and max as above: no DISTINCT
    -- count (it stayed in every key type's plan: benchmarks/results/design_timings.md). Keys of
    -- a wide scale with few digits (0.5 as DECIMAL(38,20)) are refused too: cast them to DOUBLE
    WHEN what = 'rnk' AND regexp_full_match(typeof(any_value(x)), 'DECIMAL\((1[6-9]|[23][0-9]),[0-9]+\)')
    THEN CASE
        WHEN greatest(abs(max(x)::DOUBLE), abs(min(x)::DOUBLE))
             * pow(10, regexp_extract(typeof(any_value(x)), ',([0-9]+)\)', 1)::INTEGER)
             > CASE WHEN regexp_extract(typeof(any_value(x)), ',([0-9]+)\)', 1) = '0'
                    THEN 9007199254740992 ELSE 4503599627370496 END THEN
            error('duckdb_ndcg: rnk is ' || typeof(any_value(x)) || ' with keys up to '
                  || greatest(abs(max(x)::DOUBLE), abs(min(x)::DOUBLE))::VARCHAR
                  || ', where two keys may be one DOUBLE and tie: cast it to DOUBLE if 15 '
                  || 'significant digits tell your keys apart, rank by position, or subtract a '
                  || 'common offset')
    END
END;

-- _ndcg_run_columns_error(tbl, rel_col, rnk_col): NULL when the grade and rank columns of the
-- judged-run table tbl (a name) are numbers, else an error naming the column and the table
-- (internal; the input rule run_report and measures_report share). Read from the column types,
-- one row, so it costs nothing per row.
-- Example: SELECT _ndcg_run_columns_error('judged_run', 'rel', 'rnk');  -- NULL
CREATE OR REPLACE MACRO _ndcg_run_columns_error(tbl, rel_col, rnk_col) AS
CASE
    WHEN NOT _ndcg_is_number_type(coalesce(
             (SELECT typeof(COLUMNS(lambda c: c = rel_col)) FROM query_table(tbl) LIMIT 1),
             'NULL')) THEN
        error('duckdb_ndcg: ' || rel_col || ' of ' || tbl || ' must be a number')
    WHEN NOT _ndcg_is_number_type(coalesce(
             (SELECT typeof(COLUMNS(lambda c: c = rnk_col)) FROM query_table(tbl) LIMIT 1),
             'NULL')) THEN
        error('duckdb_ndcg: ' || rnk_col || ' of ' || tbl || ' must be a number')
END;

-- _ndcg_is_number_type(type_name): whether a typeof() name is a numeric type (or the NULL type of
-- an all-NULL column), the types grades and rank keys may have (internal).
CREATE OR REPLACE MACRO _ndcg_is_number_type(type_name) AS
regexp_full_match(type_name,
                  '"?NULL"?|U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?(_LITERAL)?|FLOAT|DOUBLE|DECIMAL.*');

-- _ndcg_number(x, what): x as a DOUBLE when its type is a number, else an error naming `what` and
-- the type (internal): a per-row check, for scalar helpers (_ndcg_relevant). The type test folds
-- to a constant, so a numeric column costs one cast.
CREATE OR REPLACE MACRO _ndcg_number(x, what) AS
CASE
    WHEN _ndcg_is_number_type(typeof(x)) THEN TRY_CAST(x AS DOUBLE)
    ELSE error('duckdb_ndcg: ' || what || ' must be a number, got ' || typeof(x)
               || ' (cast the column, e.g. col::DOUBLE, or rank by position or -score)')
END;

-- _ndcg_is_map(gain): whether a gain argument is a MAP from grade to gain (a MAP value or its text
-- form '{0=0, 1=1, 2=3}') rather than 'linear' or 'exponential' (internal).
CREATE OR REPLACE MACRO _ndcg_is_map(gain) AS
TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)) IS NOT NULL;

-- _ndcg_key_kind(type_name): the kind of a key column's type, for checking that two tables' keys
-- join without lossy casts (internal): every integer type is 'integer' (they compare exactly),
-- every other type is itself (VARCHAR joins VARCHAR only). NULL (an empty table) matches anything.
CREATE OR REPLACE MACRO _ndcg_key_kind(type_name) AS
CASE
    WHEN type_name IS NULL THEN NULL
    WHEN type_name IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT',
                       'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT') THEN 'integer'
    ELSE type_name
END;

-- _ndcg_collated(v): whether the text v (a key column cast to VARCHAR, read from one row) has a
-- collation that makes different ids equal: NOCASE ('A' = 'a'), NOACCENT ('é' = 'e') or NFC
-- (composed = decomposed é) (internal). A CASE whose taken branch is a literal has the column's
-- type, collation included, so the literal is compared under it; a column of another type cast
-- to VARCHAR has none. DuckDB has no type-preserving way to drop a collation, so the report
-- refuses such keys rather than join 'A' to 'a'.
CREATE OR REPLACE MACRO _ndcg_collated(v) AS
coalesce((CASE WHEN false THEN v ELSE 'A' END) = 'a'
         OR (CASE WHEN false THEN v ELSE 'é' END) = 'e'
         OR (CASE WHEN false THEN v ELSE 'e' || chr(769) END) = chr(233), false);
