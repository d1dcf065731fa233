-- welch_ttest(value, is_b, conf := 0.95, shift := NULL)
--   -> STRUCT(n_a, n_b BIGINT, mean_a, mean_b, mean_diff, t, df, p_value, ci_low, ci_high DOUBLE,
--             dropped BIGINT)  [aggregate]
-- Welch's unpaired t-test of arm B against arm A (online A/B: each row one query of one arm,
-- is_b true for B, false for A): two-sided test of mean_b - mean_a = 0 with the
-- Welch-Satterthwaite df, and the conf t-interval of the difference; equal to
-- scipy.stats.ttest_ind(b, a, equal_var=False) and its confidence_interval(conf).
-- Rows with a NULL value or is_b are dropped (`dropped` counts them). Degenerate input (never
-- NaN): fewer than 2 values in an arm gives NULL t, df, p_value, interval; both arms constant
-- gives t NULL, p_value 1 when the means are equal (else 0) and the interval
-- [mean_diff, mean_diff]. Sums are centred (_ndcg_moments): a large common offset of the values
-- costs no precision.
--   shift  NULL (default): each arm's values are held as a list and centred on their mean
--          (memory: 8 bytes per row, which does not spill). A number near the values (0.0 for
--          NDCG): the sums of value - shift are streamed in fixed memory, equal to the default to
--          rounding as long as the arms' means lie near shift. ab_summary passes 0.0.
-- A NaN or infinite value (is_b not NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT device, unnest(welch_ttest(ndcg, arm = 'new')) FROM per_query GROUP BY device;
CREATE OR REPLACE MACRO welch_ttest(value, is_b, conf := 0.95, shift := NULL) AS
list_transform(
    -- shift NULL: each arm's values as a list, centred before summing (_ndcg_moments): values
    -- near 1e12 lost the p-value's 4th digit to avg and var_samp; a shift: streamed sums of the
    -- values from it. Finite ones only (NaN: dropped's check)
    [{ma: _ndcg_group_moments(value, NOT is_b, shift),
      mb: _ndcg_group_moments(value, is_b, shift),
      dropped: count(*) - count(CASE WHEN is_b IS NOT NULL THEN value END)
               + _ndcg_checked_finite(
                   count(*) FILTER (WHERE is_b IS NOT NULL AND NOT isfinite(value)),
                   'welch_ttest', 'value')}],
    lambda s: list_transform(
        [{va: s.ma.var / s.ma.n, vb: s.mb.var / s.mb.n,
          -- the shifts' difference is exact when they are close; the rests carry the remainder
          diff: (s.mb.shift - s.ma.shift) + (s.mb.rest - s.ma.rest)}],
        lambda v: list_transform(
            [{df: (v.va + v.vb) * (v.va + v.vb)
                  / nullif(v.va * v.va / (s.ma.n - 1) + v.vb * v.vb / (s.mb.n - 1), 0)}],
            lambda w: list_transform(
                [_ndcg_t_test(v.diff, sqrt(v.va + v.vb), w.df, conf)],
                lambda r: {n_a: s.ma.n, n_b: s.mb.n,
                           mean_a: (s.ma.shift + s.ma.rest)::DOUBLE,
                           mean_b: (s.mb.shift + s.mb.rest)::DOUBLE,
                           mean_diff: v.diff::DOUBLE, t: r.t,
                           df: CASE WHEN v.va + v.vb > 0 THEN w.df END::DOUBLE,
                           p_value: r.p_value, ci_low: r.ci_low, ci_high: r.ci_high,
                           dropped: s.dropped})[1])[1])[1])[1];
