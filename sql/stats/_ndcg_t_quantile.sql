-- _ndcg_t_quantile(p, df): the p-quantile of Student's t with df > 0 degrees of freedom, for
-- 0 < p < 1 (internal). Solves P(T > q) = a, a = min(p, 1 - p), by Newton's method on
-- ln P(T > e^u) - ln a in u = ln q (linear in u in the polynomial tails, so the steps stay
-- sane for df near 1): 8 steps from the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5)
-- around the normal quantile of Abramowitz & Stegun 26.2.23 (near the median, where that is
-- below 0.1, from the tangent at 0). Each step evaluates the exact CDF
-- (_ndcg_t_cdf); the result matches scipy.stats.t.ppf to about 1e-12 relative (1e-9 at
-- df = 1e6, where lgamma limits the CDF itself).
CREATE OR REPLACE MACRO _ndcg_t_quantile(p, df) AS
CASE
    WHEN p = 0.5 THEN 0.0::DOUBLE
    ELSE sign(p - 0.5) * list_transform(
        [{a: least(p, 1.0 - p)::DOUBLE, df: df::DOUBLE,
          z: sqrt(-2.0 * ln(least(p, 1.0 - p)))
             - (2.515517 + 0.802853 * sqrt(-2.0 * ln(least(p, 1.0 - p)))
                + 0.010328 * (-2.0 * ln(least(p, 1.0 - p))))
             / (1.0 + 1.432788 * sqrt(-2.0 * ln(least(p, 1.0 - p)))
                + 0.189269 * (-2.0 * ln(least(p, 1.0 - p)))
                + 0.001308 * pow(sqrt(-2.0 * ln(least(p, 1.0 - p))), 3))}],
        lambda s: exp(list_reduce(
            -- the start u = ln q0 leads the list, 8 steps follow (DuckDB 1.4/1.5's list_reduce
            -- mixes rows up with a start value as third argument)
            list_concat([ln(CASE WHEN s.z < 0.1  -- near the median: the tangent at 0
                    THEN (0.5 - s.a) * sqrt(s.df * pi())
                         / exp(lgamma((s.df + 1.0) / 2.0) - lgamma(s.df / 2.0))
                    ELSE s.z
               + (pow(s.z, 3) + s.z) / (4.0 * s.df)
               + (5.0 * pow(s.z, 5) + 16.0 * pow(s.z, 3) + 3.0 * s.z) / (96.0 * pow(s.df, 2))
               + (3.0 * pow(s.z, 7) + 19.0 * pow(s.z, 5) + 17.0 * pow(s.z, 3) - 15.0 * s.z)
                 / (384.0 * pow(s.df, 3)) END)::DOUBLE],
                        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]::DOUBLE[]),
            lambda u, unused: list_transform(
                [_ndcg_t_cdf(-exp(u), s.df)],
                lambda upper: u + (ln(upper) - ln(s.a)) * upper
                                  / (exp(u) * exp(lgamma((s.df + 1.0) / 2.0) - lgamma(s.df / 2.0)
                                                  - 0.5 * ln(s.df * pi())
                                                  - (s.df + 1.0) / 2.0
                                                    * _ndcg_log1p(exp(2.0 * u) / s.df))))[1])))[1]
END;
