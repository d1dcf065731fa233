-- ab_summary(rankings, events, arm_col, k := 10, baseline := NULL, slice_by := [], conf := 0.95,
--            correction := 'holm', alpha := 0.05, ...every other ndcg_report parameter)
--   -> TABLE(<slice_by columns>, k BIGINT, arm, baseline VARCHAR, queries_a, queries_b BIGINT,
--            mean_a, mean_b, mean_diff, ci_low, ci_high, p_value, p_adjusted DOUBLE,
--            reject BOOLEAN, test, correction VARCHAR)
-- An online A/B test: one rankings table holding every arm (column arm_col), so each arm has its
-- own queries. One row per (slice, cutoff, arm other than the baseline): Welch's t-test
-- (welch_ttest) of the arm's per-query NDCG@k (B) against the baseline arm's (A) in the same
-- slice, mean_diff = mean_b - mean_a with its conf t-interval, and p-values corrected across
-- all rows of the result (correction 'holm', 'bonferroni', 'bh' as p_adjust, or 'none';
-- reject = p_adjusted <= alpha in that sense; test is 'welch' and correction the one used, so a
-- row says how it was computed). Arms are compared as text.
--   baseline  the arm_col value of the control arm: required; an error when no row has it.
-- The per-query NDCG is ndcg_report's with slice_by + [arm_col] (same parameters).
-- Example: SELECT * FROM ab_summary('impressions', 'events', 'variant', baseline := 'control',
--                                   k := [5, 10], slice_by := ['device']);
CREATE OR REPLACE MACRO ab_summary(rankings, events, arm_col, k := 10, baseline := NULL,
                                   slice_by := []::VARCHAR[], conf := 0.95,
                                   correction := 'holm', alpha := 0.05,
                                   query_col := 'query_id', item_col := 'item_id',
                                   position_col := 'position', score_col := NULL,
                                   ties := 'average', gain := 'linear', log_base := 2,
                                   empty_ideal := 0.0, duplicates := 'error',
                                   event_col := 'event_type', mapping := NULL, collapse := 'max',
                                   time_col := NULL, unknown := 'error') AS TABLE
WITH _ndcg_ab_names AS (
    -- the table's name for the message below, taken where no column is in scope (a bare name
    -- would otherwise bind as a column of the rows)
    SELECT _ndcg_table_name(rankings) AS _rankings_name
),
_ndcg_ab_rows AS (
    SELECT *, COLUMNS(lambda c: c = arm_col)::VARCHAR AS _arm
    FROM (
        SELECT unnest(_key), _k AS k, _ndcg_checked_score(ndcg, _key, _k, empty_ideal) AS _ndcg
        FROM _ndcg_report_rows(rankings, events, k,
                               list_concat(_ndcg_slice_list(slice_by), [arm_col]), query_col,
                               item_col, position_col, score_col, ties, gain, log_base,
                               empty_ideal, duplicates, event_col, _ndcg_mapping(mapping),
                               collapse, time_col, unknown)
    )
),
_ndcg_ab_arms AS (
    SELECT DISTINCT _arm AS _treatment
    FROM _ndcg_ab_rows
    WHERE CASE
              WHEN baseline IS NULL THEN
                  error('duckdb_ndcg: ab_summary needs baseline := <the control arm''s value of '
                        || arm_col || '>')
              WHEN NOT (SELECT bool_or(_arm = baseline::VARCHAR) FROM _ndcg_ab_rows) THEN
                  error('duckdb_ndcg: no row of ' || (SELECT _rankings_name FROM _ndcg_ab_names)
                        || ' has ' || arm_col || ' = '
                        || baseline::VARCHAR || ' (baseline)')
              ELSE _arm <> baseline::VARCHAR
          END
),
_ndcg_ab_tests AS (
    SELECT COLUMNS(lambda c: c NOT IN [query_col, arm_col, '_ndcg', '_arm', '_treatment']),
           _treatment AS arm,
           -- shift 0: NDCG lies in [0, 1]; streamed sums, no list per arm
           welch_ttest(_ndcg, _arm = _treatment, conf := conf, shift := 0.0) AS _w
    FROM _ndcg_ab_rows JOIN _ndcg_ab_arms ON _arm IN (_treatment, baseline::VARCHAR)
    GROUP BY ALL
),
_ndcg_ab_p AS (
    SELECT *, _w.p_value AS p_value FROM _ndcg_ab_tests
)
SELECT COLUMNS(lambda c: c NOT IN ['_w', 'p_value', 'p_adjusted', 'reject', 'arm']),
       arm,
       baseline::VARCHAR AS baseline,
       _w.n_a AS queries_a, _w.n_b AS queries_b, _w.mean_a, _w.mean_b, _w.mean_diff, _w.ci_low,
       _w.ci_high, p_value,
       CASE WHEN correction = 'none' THEN p_value ELSE p_adjusted END AS p_adjusted,
       CASE WHEN correction = 'none' THEN p_value <= alpha ELSE reject END AS reject,
       'welch' AS test, correction::VARCHAR AS correction
FROM p_adjust('_ndcg_ab_p', p_col := 'p_value',
              method := _ndcg_correction_method(correction),
              alpha := alpha)
ORDER BY ALL;
