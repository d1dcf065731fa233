-- _ndcg_correction_method(correction): the p_adjust method of a summary's correction ('none' ->
-- 'holm', whose p-values the summary then ignores), else an error naming correction (internal;
-- compare_summary, ab_summary). Checked here, not by p_adjust, whose error would name `method`.
CREATE OR REPLACE MACRO _ndcg_correction_method(correction) AS
CASE
    WHEN correction IS NULL OR correction NOT IN ('holm', 'bonferroni', 'bh', 'none') THEN
        error('duckdb_ndcg: correction must be ''holm'', ''bonferroni'', ''bh'' or ''none'', got '
              || coalesce('''' || correction || '''', 'NULL'))
    WHEN correction = 'none' THEN 'holm'
    ELSE correction
END;

-- p_adjust(tbl, p_col := 'p_value', method := 'holm', by := []::VARCHAR[], alpha := 0.05)
--   -> TABLE(every column of tbl, p_adjusted DOUBLE, reject BOOLEAN)
-- Multiple-testing correction of the p-values in column p_col of table tbl (a name, quoted as in
-- SQL when it needs quotes), equal to statsmodels.stats.multitest.multipletests(p, alpha, method):
--   method  'holm' (step-down, controls the family-wise error rate; statsmodels 'holm'),
--           'bonferroni' (p times m), 'bh' (Benjamini-Hochberg step-up, controls the false
--           discovery rate; statsmodels 'fdr_bh'). Adjusted p-values are made monotone in the
--           order of the raw ones and capped at 1, as statsmodels does.
--   by      names of columns whose values form separate families (e.g. ['k'] corrects across
--           slices within each cutoff); [] = one family, the whole table.
--   alpha   reject = the hypothesis is rejected at family-wise (holm, bonferroni) or false
--           discovery (bh) rate alpha, with statsmodels' comparisons.
-- m, the family size, counts the non-NULL p-values; a NULL p-value gets NULL p_adjusted and
-- reject. A table that already has p_adjusted or reject columns (a compare_summary result
-- corrected again, by k or with another method) gets them replaced, not repeated as
-- p_adjusted_1; the table's own columns are carried as one row value, so no column of it can
-- be taken for one of the macro's working columns (_p, _m, ...). A p-value outside [0, 1], an unknown method, alpha outside (0, 1] or a name in `by`
-- that is not a column are errors.
-- Example: SELECT * FROM p_adjust('results', method := 'bh', by := ['k']);
CREATE OR REPLACE MACRO p_adjust(tbl, p_col := 'p_value', method := 'holm', by := []::VARCHAR[],
                                 alpha := 0.05) AS TABLE
WITH _ndcg_keyed AS (
    SELECT struct_pack(*COLUMNS(lambda c: c NOT IN ('p_adjusted', 'reject') OR c = p_col)) AS _row,
           to_json(struct_pack(*COLUMNS(lambda c: list_contains("by", c) OR c = p_col))) AS _fam_cols,
           COLUMNS(lambda c: c = p_col)::DOUBLE AS _p
    FROM query_table(tbl)
),
_ndcg_ranked AS (
    SELECT *,
           json_merge_patch(_fam_cols, json_object(p_col, NULL))::VARCHAR AS _fam,
           row_number() OVER (PARTITION BY json_merge_patch(_fam_cols, json_object(p_col, NULL))::VARCHAR,
                                           _p IS NULL
                              ORDER BY _p) AS _j,
           count(_p) OVER (PARTITION BY json_merge_patch(_fam_cols, json_object(p_col, NULL))::VARCHAR)
               AS _m
    FROM _ndcg_keyed
),
_ndcg_adjusted AS (
    SELECT *,
           -- holm: running max of (m - j + 1) p_(j); not rejected from the first
           -- p_(j) > alpha / (m - j + 1) on
           max(_p * (_m - _j + 1)) OVER w_up AS _holm,
           bool_or(_p > alpha / (_m - _j + 1)) OVER w_up AS _holm_keep,
           -- bh: running min from the top of p_(j) / (j / m); rejected up to the last
           -- p_(j) <= alpha j / m
           min(_p / (_j::DOUBLE / _m)) OVER w_down AS _bh,
           bool_or(_p <= _j::DOUBLE / _m * alpha) OVER w_down AS _bh_reject
    FROM _ndcg_ranked
    WINDOW w_up AS (PARTITION BY _fam, _p IS NULL ORDER BY _j
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           w_down AS (PARTITION BY _fam, _p IS NULL ORDER BY _j
                      ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
)
SELECT unnest(_row),
       CASE
           WHEN method IS NULL OR method NOT IN ('holm', 'bonferroni', 'bh') THEN
               error('duckdb_ndcg: method must be ''holm'', ''bonferroni'' or ''bh'', got '
                     || coalesce('''' || method || '''', 'NULL'))
           WHEN alpha IS NULL OR NOT (alpha > 0 AND alpha <= 1) THEN
               error('duckdb_ndcg: alpha must be in (0, 1], got ' || coalesce(alpha::VARCHAR, 'NULL'))
           WHEN len(list_filter("by", lambda c: NOT list_contains(json_keys(_fam_cols), c))) > 0 THEN
               error('duckdb_ndcg: table ' || tbl || ' has no column '
                     || list_filter("by", lambda c: NOT list_contains(json_keys(_fam_cols), c))[1]
                     || ' (named in by)')
           WHEN NOT (_p >= 0 AND _p <= 1) THEN
               error('duckdb_ndcg: ' || p_col || ' must be between 0 and 1, got ' || _p::VARCHAR)
           WHEN _p IS NULL THEN NULL
           WHEN method = 'holm' THEN least(_holm, 1.0)
           WHEN method = 'bonferroni' THEN least(_p * _m, 1.0)
           ELSE least(_bh, 1.0)
       END::DOUBLE AS p_adjusted,
       CASE
           WHEN _p IS NULL THEN NULL
           WHEN method = 'holm' THEN NOT _holm_keep
           WHEN method = 'bonferroni' THEN _p <= alpha / _m
           ELSE _bh_reject
       END AS reject
FROM _ndcg_adjusted;
