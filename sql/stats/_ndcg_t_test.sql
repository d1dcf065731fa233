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
