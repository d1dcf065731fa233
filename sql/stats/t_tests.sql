-- The paired and Welch t-tests with their intervals, from streamed moments.

-- _ndcg_moments(xs): the mean and sample variance of a list of finite DOUBLEs, centred before
-- summing (internal; paired_ttest, welch_ttest) -> STRUCT(n BIGINT, shift, rest, var DOUBLE).
-- The mean is shift + rest: shift = list_avg(xs), a first mean (rounded, and inexact when the
-- values share a large offset: avg and var_samp summed values near 1e12 and lost 3e-5 of the
-- variance), rest = the mean of the deviations x - shift (exact subtractions near the mean);
-- var = (sum dev^2 - (sum dev)^2 / n) / (n - 1), the corrected two-pass algorithm (Chan, Golub
-- & LeVeque 1983). A difference of two means is best taken as the shifts' difference (exact when
-- they are close) plus the rests'. n = 0 gives NULL shift; n < 2 NULL var.
CREATE OR REPLACE MACRO _ndcg_moments(xs) AS
list_transform(
    [list_avg(xs)::DOUBLE],
    lambda shift: list_transform(
        [list_transform(xs, lambda x: x - shift)],
        lambda dev: {n: len(xs)::BIGINT, shift: shift,
                     rest: coalesce(list_avg(dev), 0.0)::DOUBLE,
                     var: CASE WHEN len(xs) >= 2 THEN greatest(
                              coalesce(list_sum(list_transform(dev, lambda e: e * e)), 0.0)
                              - pow(coalesce(list_sum(dev), 0.0), 2) / len(xs), 0.0)
                              / (len(xs) - 1) END::DOUBLE})[1])[1];

-- _ndcg_shifted_moments(n, s1, s2, shift): the mean and sample variance, as _ndcg_moments gives
-- them, from streamed sums of the values minus a known constant (internal; paired_ttest and
-- welch_ttest with shift :=): n values, s1 = fsum(x - shift), s2 = fsum((x - shift)^2).
-- -> STRUCT(n BIGINT, shift, rest, var DOUBLE), the mean being shift + rest. Exact as the
-- two-pass form when shift lies near the values (x - shift then loses nothing); var =
-- (s2 - s1^2 / n) / (n - 1) cancels only as much as the mean's distance from shift (for NDCG
-- values in [0, 1] and shift 0: none that matters). n = 0 gives NULL shift; n < 2 NULL var.
CREATE OR REPLACE MACRO _ndcg_shifted_moments(n, s1, s2, shift) AS
{n: n::BIGINT,
 shift: CASE WHEN n > 0 THEN shift END::DOUBLE,
 rest: CASE WHEN n > 0 THEN s1 / n ELSE 0.0 END::DOUBLE,
 var: CASE WHEN n >= 2 THEN greatest(s2 - s1 * s1 / n, 0.0) / (n - 1) END::DOUBLE};

-- _ndcg_group_moments(x, keep, shift): aggregate; the mean and sample variance of the group's
-- finite x where keep holds (internal; paired_ttest, welch_ttest) -> STRUCT(n BIGINT, shift,
-- rest, var DOUBLE). shift NULL: the values held as a list and centred on their mean
-- (_ndcg_moments); a number: sums of x - shift streamed in fixed memory (_ndcg_shifted_moments).
-- Each branch's aggregate filters every row out when the other branch is taken.
CREATE OR REPLACE MACRO _ndcg_group_moments(x, keep, shift) AS
CASE WHEN _ndcg_checked_shift(shift) IS NULL
     THEN _ndcg_moments(coalesce(list(x::DOUBLE) FILTER (WHERE shift IS NULL AND keep
                                                             AND isfinite(x)), []::DOUBLE[]))
     ELSE _ndcg_shifted_moments(
         count(*) FILTER (WHERE keep AND isfinite(x)),
         coalesce(fsum(x::DOUBLE - shift)
                  FILTER (WHERE shift IS NOT NULL AND keep AND isfinite(x)), 0.0),
         coalesce(fsum(pow(x::DOUBLE - shift, 2))
                  FILTER (WHERE shift IS NOT NULL AND keep AND isfinite(x)), 0.0),
         shift)
END;

-- _ndcg_mean_ci_half(sd, n, conf): the half-width of the conf t-interval of a mean of n values
-- with sample standard deviation sd: t_{(1 + conf)/2, n - 1} sd / sqrt(n) (internal;
-- ndcg_summary). NULL when n < 2; 0 when sd = 0.
CREATE OR REPLACE MACRO _ndcg_mean_ci_half(sd, n, conf) AS
CASE WHEN n >= 2 THEN
    CASE WHEN sd = 0 THEN 0.0
         ELSE _ndcg_t_quantile((1.0 + _ndcg_checked_conf(conf)) / 2.0, n - 1.0) * sd / sqrt(n)
    END
END::DOUBLE;

-- _ndcg_t_test(estimate, se, df, conf): the two-sided t-test of estimate = 0 with standard error
-- se and df degrees of freedom, and its conf t-interval (internal; paired_ttest and welch_ttest)
--   -> STRUCT(t, p_value, ci_low, ci_high DOUBLE)
-- p_value = 2 P(T_df > |t|) (_ndcg_t_cdf); ci = estimate -/+ t_{(1 + conf)/2, df} se
-- (_ndcg_t_quantile). Degenerate input, never NaN or infinity: se or df NULL (too few values)
-- gives all NULL; se = 0 (constant differences) gives t NULL, p_value 1 when estimate = 0 else 0,
-- and the interval [estimate, estimate].
CREATE OR REPLACE MACRO _ndcg_t_test(estimate, se, df, conf) AS
list_transform(
    [{e: estimate::DOUBLE, se: se::DOUBLE, df: df::DOUBLE, conf: _ndcg_checked_conf(conf)}],
    lambda s: CASE
        WHEN s.se IS NULL OR s.e IS NULL THEN
            {t: NULL::DOUBLE, p_value: NULL::DOUBLE, ci_low: NULL::DOUBLE, ci_high: NULL::DOUBLE}
        WHEN s.se = 0 THEN
            {t: NULL::DOUBLE, p_value: CASE WHEN s.e = 0 THEN 1.0 ELSE 0.0 END::DOUBLE,
             ci_low: s.e, ci_high: s.e}
        WHEN s.df IS NULL OR NOT s.df > 0 THEN
            {t: NULL::DOUBLE, p_value: NULL::DOUBLE, ci_low: NULL::DOUBLE, ci_high: NULL::DOUBLE}
        ELSE list_transform(
            [_ndcg_t_quantile((1.0 + s.conf) / 2.0, s.df) * s.se],
            lambda half: {t: s.e / s.se, p_value: 2.0 * _ndcg_t_cdf(-abs(s.e / s.se), s.df),
                          ci_low: s.e - half, ci_high: s.e + half})[1]
    END)[1];

-- paired_ttest(b, a, conf := 0.95, shift := NULL)
--   -> STRUCT(n BIGINT, mean_a, mean_b, mean_diff, sd_diff, t, df, p_value, ci_low, ci_high,
--             effect_size DOUBLE, dropped BIGINT)  [aggregate]
-- Student's paired t-test of B against A over a group's rows, one row per query (b and a its
-- scores, e.g. NDCG@10 of two rankers): two-sided test of mean(b - a) = 0 with df = n - 1, and
-- the conf t-interval of the mean difference; equal to scipy.stats.ttest_rel(b, a) and its
-- confidence_interval(conf). effect_size = mean_diff / sd_diff (Cohen's d_z); sd_diff is the
-- sample standard deviation (n - 1).
-- Rows where a or b is NULL are dropped (`dropped` counts them); n counts the pairs used.
-- Degenerate input (never NaN): n < 2 gives NULL t, df, p_value, interval; all differences equal
-- (sd_diff = 0) gives t NULL, p_value 1 when they are all 0 (else 0) and the interval
-- [mean_diff, mean_diff]. Sums are centred (_ndcg_moments), so a large common offset of the
-- differences costs no precision.
--   shift  NULL (default): each group's differences are held as a list and centred on their
--          mean (memory: 8 bytes per row of the group, which does not spill). A number near the
--          differences (0.0 for differences of NDCG values): the sums of b - a - shift are
--          streamed in fixed memory (_ndcg_shifted_moments), equal to the default to rounding
--          as long as the mean difference lies near shift. compare_summary passes 0.0. The p-value is exact: the regularized incomplete beta function
-- evaluated in SQL (_ndcg_betainc, sql/stats/distributions.sql), no normal approximation.
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(paired_ttest(ndcg_b, ndcg_a)) FROM per_query;
CREATE OR REPLACE MACRO paired_ttest(b, a, conf := 0.95, shift := NULL) AS
list_transform(
    -- shift NULL: the differences as a list, centred before summing (_ndcg_moments); a shift:
    -- streamed sums of the differences from it (the list then filters every row out). Finite
    -- differences only: a NaN is an error (dropped's check)
    [{m: _ndcg_group_moments(b - a, true, shift),
      mean_a: favg(CASE WHEN b IS NOT NULL THEN a END)::DOUBLE,
      mean_b: favg(CASE WHEN a IS NOT NULL THEN b END)::DOUBLE,
      dropped: count(*) - count(b - a)
               + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)),
                                      'paired_ttest', 'b and a')}],
    lambda s: list_transform(
        [_ndcg_t_test(s.m.shift + s.m.rest, sqrt(s.m.var / s.m.n), s.m.n - 1, conf)],
        lambda r: {n: s.m.n, mean_a: s.mean_a, mean_b: s.mean_b,
                   mean_diff: (s.m.shift + s.m.rest)::DOUBLE, sd_diff: sqrt(s.m.var)::DOUBLE,
                   t: r.t, df: CASE WHEN s.m.n >= 2 THEN s.m.n - 1.0 END::DOUBLE,
                   p_value: r.p_value, ci_low: r.ci_low, ci_high: r.ci_high,
                   effect_size: ((s.m.shift + s.m.rest) / nullif(sqrt(s.m.var), 0))::DOUBLE,
                   dropped: s.dropped})[1])[1];

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
