-- The checks of a metric's arguments: cutoff, grades, gains, ranks, the ideal, RBP's p (internal).

-- _ndcg_checked_k(k): k itself when it is NULL or a positive whole number, else an error (internal).
-- NaN, infinity and text that is not a number are errors too, naming k. A cutoff beyond any list
-- (up to 1e300 or 2^63 - 1) is kept as 2^62: it cuts nothing, and k + 1 cannot overflow.
CREATE OR REPLACE MACRO _ndcg_checked_k(k) AS
CASE
    WHEN k IS NULL THEN NULL::BIGINT
    -- TRY_CAST throughout: DuckDB 1.4 and 1.5 evaluate every operand of OR, so k::DOUBLE of 'ten'
    -- would fail before the error below
    WHEN TRY_CAST(k AS DOUBLE) IS NULL OR isnan(TRY_CAST(k AS DOUBLE)) OR isinf(TRY_CAST(k AS DOUBLE))
         OR TRY_CAST(k AS DOUBLE) <= 0
         OR TRY_CAST(k AS DOUBLE) <> floor(TRY_CAST(k AS DOUBLE)) THEN
        error('duckdb_ndcg: k must be a positive whole number or NULL, got ' || k::VARCHAR)
    ELSE least(k::DOUBLE, 4611686018427387904.0)::BIGINT
END;

-- _ndcg_threshold_error(threshold, positive) -> BOOLEAN: NULL when threshold, the grade at which a
-- row counts as relevant, is a finite number (and above 0 when positive is true), else an error
-- naming it (internal). The aggregates and run_report take any finite threshold; ndcg_report
-- takes a positive one, because it leaves the items graded 0 out early (they are not relevant
-- under any threshold above 0).
CREATE OR REPLACE MACRO _ndcg_threshold_error(threshold, positive) AS
CASE
    WHEN coalesce(NOT isfinite(TRY_CAST(threshold AS DOUBLE)), true)
         OR (positive AND TRY_CAST(threshold AS DOUBLE) <= 0) THEN
        error('duckdb_ndcg: threshold must be a '
              || CASE WHEN positive THEN 'positive' ELSE 'finite' END || ' number, got '
              || coalesce(threshold::VARCHAR, 'NULL'))
END;

-- _ndcg_grade_error(rel, gain, negative): aggregate; NULL when a group's grades and the gain and
-- negative arguments are valid, else an error naming the problem (internal). Grades are checked
-- once per group from min/max (DuckDB orders NaN above every number), so the hot path can work on
-- raw grades: NaN or infinite grades, negative grades unless negative := 'zero', a bad gain or
-- negative argument (_ndcg_gain_error), a gain above 1e300 (its sums would overflow), a grade
-- missing from a gain map.
CREATE OR REPLACE MACRO _ndcg_grade_error(rel, gain, negative) AS
CASE
    WHEN _ndcg_gain_error(gain, negative) IS NOT NULL THEN NULL
    WHEN isnan(max(rel)::DOUBLE) OR isinf(max(rel)::DOUBLE) OR isinf(min(rel)::DOUBLE) THEN
        error('duckdb_ndcg: grade must be a finite number, got '
              || CASE WHEN isnan(max(rel)::DOUBLE) OR isinf(max(rel)::DOUBLE) THEN max(rel)::DOUBLE
                      ELSE min(rel)::DOUBLE END::VARCHAR)
    WHEN negative = 'error' AND min(rel) < 0 THEN
        error('duckdb_ndcg: negative grade ' || min(rel)::VARCHAR
              || ' (pass negative := ''zero'' to give negative grades gain 0)')
    WHEN NOT _ndcg_is_map(gain) AND _ndcg_gain_value(max(rel), gain) > 1e300 THEN
        _ndcg_big_gain_error(max(rel), gain)
    WHEN _ndcg_is_map(gain)
         AND min(rel) FILTER (WHERE _ndcg_is_map(gain) AND rel >= 0
                                    AND map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)),
                                                          rel::DOUBLE) IS NULL) IS NOT NULL THEN
        error('duckdb_ndcg: grade '
              || min(rel) FILTER (WHERE _ndcg_is_map(gain) AND rel >= 0
                                        AND map_extract_value(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)),
                                                              rel::DOUBLE) IS NULL)::VARCHAR
              || ' is not in the gain map ' || gain::VARCHAR)
END;

-- _ndcg_gain_error(gain, negative): NULL when the gain and negative arguments are valid, else an
-- error naming the argument (internal): NULL, an unknown value, a gain map holding a NaN,
-- infinite or NULL grade or gain, or a gain above 1e300, or (negative := 'error') a negative gain.
-- Constant arguments fold to NULL.
CREATE OR REPLACE MACRO _ndcg_gain_error(gain, negative) AS
CASE
    WHEN negative IS NULL OR negative NOT IN ('error', 'zero') THEN
        error('duckdb_ndcg: negative must be ''error'' or ''zero'', got '
              || coalesce('''' || negative || '''', 'NULL'))
    WHEN gain IS NULL THEN
        error('duckdb_ndcg: gain must be ''linear'', ''exponential'' or a MAP from grade to gain, '
              || 'got NULL')
    WHEN NOT _ndcg_is_map(gain) AND gain::VARCHAR NOT IN ('linear', 'exponential') THEN
        error('duckdb_ndcg: gain must be ''linear'', ''exponential'' or a MAP from grade to gain, '
              || 'got ''' || gain::VARCHAR || '''')
    WHEN _ndcg_is_map(gain)
         AND NOT coalesce(list_bool_and(list_transform(
                 list_concat(map_keys(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))),
                             map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)))),
                 lambda v: isfinite(v) AND abs(v) <= 1e300)), true) THEN
        error('duckdb_ndcg: gain map ' || gain::VARCHAR
              || ' has a NaN, infinite, NULL or too large (> 1e300) grade or gain')
    -- a negative gain would let DCG exceed the ideal (NDCG above 1); 'zero' counts it as 0
    WHEN negative = 'error' AND _ndcg_is_map(gain)
         AND list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)))) < 0 THEN
        error('duckdb_ndcg: gain map ' || gain::VARCHAR || ' gives grade '
              || list_filter(map_entries(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))),
                             lambda e: e.value < 0)[1].key::VARCHAR
              || ' the negative gain '
              || list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))))::VARCHAR
              || ' (pass negative := ''zero'' to count it as gain 0)')
END;

-- _ndcg_big_gain_error(rel, gain): the error for a grade whose gain exceeds 1e300 (internal). DCG
-- sums such gains and would overflow DOUBLE to infinity (NaN NDCG), so they are refused: linear
-- grades up to 1e300, exponential grades below 997 (2^997 - 1 > 1e300).
CREATE OR REPLACE MACRO _ndcg_big_gain_error(rel, gain) AS
error('duckdb_ndcg: grade ' || rel::VARCHAR || ' is too large for gain '''
      || gain::VARCHAR || ''': its gain exceeds 1e300 and DCG sums would overflow DOUBLE'
      || CASE WHEN gain::VARCHAR = 'exponential' THEN ' (exponential gain needs grades below 997)'
              ELSE '' END);

-- _ndcg_rank_error(rnk, ties, tie_key): aggregate; NULL when a group's rank keys and the ties
-- arguments are valid, else an error naming the problem (internal): an unknown ties value,
-- ties = 'key' without a tie_key on every returned row, NaN or infinite rank keys.
CREATE OR REPLACE MACRO _ndcg_rank_error(rnk, ties, tie_key) AS
CASE
    WHEN ties IS NULL OR ties NOT IN ('average', 'key') THEN
        error('duckdb_ndcg: ties must be ''average'' or ''key'', got '
              || coalesce('''' || ties || '''', 'NULL'))
    WHEN ties = 'key' AND count(tie_key) FILTER (WHERE ties = 'key' AND rnk IS NOT NULL) < count(rnk) THEN
        error('duckdb_ndcg: ties := ''key'' needs tie_key := <column> with no NULLs')
    WHEN isnan(max(rnk)::DOUBLE) OR isinf(max(rnk)::DOUBLE) OR isinf(min(rnk)::DOUBLE) THEN
        error('duckdb_ndcg: rank keys must be finite numbers (found NaN or infinity)')
END;

-- _ndcg_ideal_error(rels, ideal, gain, negative): NULL when the ideal covers the ranking, else an
-- error naming ideal (internal; list_ndcg). Covers: best first, each positive gain of rels is at
-- most ideal's at the same place. Every judged grade of the query includes the ranking's, so a
-- true ideal covers it; covering keeps IDCG >= DCG at every cut. A NULL rels or ideal passes.
-- 'linear' and 'exponential' grow with the grade, so grades are compared (a gain per element
-- inside a lambda is not folded: it doubled the check's cost); a gain map's gains are compared.
-- The error branch holds no lambda (one there cost every row). Two sorts: O(n log n).
-- Example: _ndcg_ideal_error([3, 2, 1], [1], 'linear', 'error') raises.
CREATE OR REPLACE MACRO _ndcg_ideal_error(rels, ideal, gain, negative) AS
CASE
    WHEN NOT coalesce(list_bool_and(list_transform(CASE
             WHEN _ndcg_is_map(gain) THEN list_zip(
                 list_reverse_sort(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative))),
                 list_reverse_sort(list_transform(ideal, lambda r: _ndcg_gain(r, gain, negative))))
             ELSE list_zip(list_reverse_sort(rels, 'NULLS LAST'), list_reverse_sort(ideal, 'NULLS LAST'))
         END,
         -- past the end of ideal (or at its NULLs) p[2] is NULL: gain 0; at rels' NULLs or past its
         -- end p[1] is NULL and bool_and skips the pair; a grade <= 0 gains 0 (or is an error)
         lambda p: p[1] <= 0 OR p[1] <= coalesce(p[2], 0))), true) THEN
        error('duckdb_ndcg: ideal must hold every judged grade of rels (it is every judged grade '
              || 'of the query; best first, each of its gains at least the ranking''s at the same '
              || 'place), got rels ' || rels::VARCHAR || ', ideal ' || ideal::VARCHAR)
END;

-- _ndcg_p_error(p): NULL when p, rbp's persistence, is a number between 0 and 1 (exclusive), else
-- an error naming p (internal): NULL, NaN, 0, 1, text that is not a number. A constant p folds.
CREATE OR REPLACE MACRO _ndcg_p_error(p) AS
CASE
    WHEN coalesce(NOT (TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1), true) THEN
        error('duckdb_ndcg: p must be a number between 0 and 1 (exclusive), got '
              || coalesce(p::VARCHAR, 'NULL'))
END;
