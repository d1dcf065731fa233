-- welch_ttest(value, is_b, conf := 0.95)
--   -> STRUCT(n_a, n_b BIGINT, mean_a, mean_b, mean_diff, t, df, p_value, ci_low, ci_high DOUBLE,
--             dropped BIGINT)  [aggregate]
-- Welch's unpaired t-test of arm B against arm A (online A/B: each row one query of one arm,
-- is_b true for B, false for A): two-sided test of mean_b - mean_a = 0 with the
-- Welch-Satterthwaite df, and the conf t-interval of the difference; equal to
-- scipy.stats.ttest_ind(b, a, equal_var=False) and its confidence_interval(conf).
-- Rows with a NULL value or is_b are dropped (`dropped` counts them). Degenerate input (never
-- NaN): fewer than 2 values in an arm gives NULL t, df, p_value, interval; both arms constant
-- gives t NULL, p_value 1 when the means are equal (else 0) and the interval
-- [mean_diff, mean_diff].
-- A NaN or infinite value (is_b not NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT device, unnest(welch_ttest(ndcg, arm = 'new')) FROM per_query GROUP BY device;
CREATE OR REPLACE MACRO welch_ttest(value, is_b, conf := 0.95) AS
list_transform(
    [{n_a: count(CASE WHEN NOT is_b THEN value END), n_b: count(CASE WHEN is_b THEN value END),
      mean_a: avg(CASE WHEN NOT is_b THEN value END)::DOUBLE,
      mean_b: avg(CASE WHEN is_b THEN value END)::DOUBLE,
      va: (var_samp(CASE WHEN NOT is_b AND isfinite(value) THEN value END)
           / count(CASE WHEN NOT is_b THEN value END))::DOUBLE,
      vb: (var_samp(CASE WHEN is_b AND isfinite(value) THEN value END)
           / count(CASE WHEN is_b THEN value END))::DOUBLE,
      dropped: count(*) - count(CASE WHEN is_b IS NOT NULL THEN value END)
               + _ndcg_checked_finite(
                   count(*) FILTER (WHERE is_b IS NOT NULL AND NOT isfinite(value)),
                   'welch_ttest', 'value')}],
    lambda s: list_transform(
        [{df: (s.va + s.vb) * (s.va + s.vb)
              / nullif(s.va * s.va / (s.n_a - 1) + s.vb * s.vb / (s.n_b - 1), 0)}],
        lambda w: list_transform(
            [_ndcg_t_test(s.mean_b - s.mean_a, sqrt(s.va + s.vb), w.df, conf)],
            lambda r: {n_a: s.n_a, n_b: s.n_b, mean_a: s.mean_a, mean_b: s.mean_b,
                       mean_diff: s.mean_b - s.mean_a, t: r.t,
                       df: CASE WHEN s.va + s.vb > 0 THEN w.df END::DOUBLE,
                       p_value: r.p_value, ci_low: r.ci_low, ci_high: r.ci_high,
                       dropped: s.dropped})[1])[1])[1];
