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
-- evaluated in SQL (sql/internal/_ndcg_betainc.sql), no normal approximation.
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
