-- The distributions the tests need, in SQL: log1p, the incomplete beta, Student's t, the normal
-- (internal).

-- _ndcg_log1p(u): ln(1 + u), accurate for small u (DuckDB has no log1p) (internal). The rounding
-- of w = 1 + u cancels in ln(w) * u / (w - 1) (Goldberg, "What every computer scientist should
-- know about floating-point arithmetic", theorem 4).
CREATE OR REPLACE MACRO _ndcg_log1p(u) AS
CASE WHEN 1.0::DOUBLE + u = 1.0 THEN u::DOUBLE
     ELSE ln(1.0::DOUBLE + u) * u / ((1.0::DOUBLE + u) - 1.0)
END;

-- _ndcg_lbeta(a, b): ln B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b) for a, b > 0 (internal).
-- When the larger argument z is >= 20 the difference lgamma(z + s) - lgamma(z) (s the smaller) is
-- taken from Stirling's series term by term, (z - 1/2) ln(1 + s/z) + s ln(z + s) - s plus the
-- difference of the 1/(12z) - 1/(360z^3) + 1/(1260z^5) - 1/(1680z^7) terms (truncation error
-- below 1e-15), instead of subtracting two lgamma values of order z ln z: at z = 5e5 that
-- subtraction alone loses 1e-9 of relative precision.
CREATE OR REPLACE MACRO _ndcg_lbeta(a, b) AS
CASE
    WHEN greatest(a, b) < 20 THEN lgamma(a) + lgamma(b) - lgamma(a + b)
    ELSE lgamma(least(a, b))
         - ((greatest(a, b) - 0.5) * _ndcg_log1p(least(a, b) / greatest(a, b))
            + least(a, b) * ln(greatest(a, b) + least(a, b)) - least(a, b)
            + list_sum(list_transform([1.0::DOUBLE / (greatest(a, b) + least(a, b)),
                                       -1.0::DOUBLE / greatest(a, b)],
                                      lambda w: w * (1.0::DOUBLE / 12 - w * w * (1.0::DOUBLE / 360
                                                - w * w * (1.0::DOUBLE / 1260
                                                - w * w / 1680))))))::DOUBLE
END;

-- _ndcg_betainc(a, b, x, y): the regularized incomplete beta function I_x(a, b) for a, b > 0,
-- 0 <= x <= 1, with y = 1 - x passed in as well so that neither tail loses precision to the
-- rounding of 1 - x (internal). Numerical Recipes' continued fraction (betacf), on the side where
-- it converges fast: I_x(a, b) when x < (a + 1) / (a + b + 2), else 1 - I_y(b, a). The fraction
-- is evaluated backwards from a depth of 200 + 4 sqrt(min(a, b)) terms (list_reduce over a range:
-- t-distribution tails to df = 1e7 converge within 100 terms, binomial tails near the median need
-- about 2 sqrt(min(a, b))) and multiplied by
-- x^a y^b / (a B(a, b)), with ln B from _ndcg_lbeta. The list is DOUBLE like the accumulator
-- (DuckDB 1.5 requires it).
CREATE OR REPLACE MACRO _ndcg_betainc(a, b, x, y) AS
CASE
    WHEN x <= 0 THEN 0.0::DOUBLE
    WHEN y <= 0 THEN 1.0::DOUBLE
    ELSE list_transform(
        [CASE WHEN x < (a + 1.0) / (a + b + 2.0)
              THEN {a: a::DOUBLE, b: b::DOUBLE, x: x::DOUBLE, y: y::DOUBLE, flip: false}
              ELSE {a: b::DOUBLE, b: a::DOUBLE, x: y::DOUBLE, y: x::DOUBLE, flip: true} END],
        lambda s: list_transform(
            [exp(CASE WHEN least(s.a, s.b) >= 20 THEN
                     -- both large (binomial tails near the median): Stirling's series for each
                     -- lgamma, so that a ln(x (a+b) / a) + b ln(y (a+b) / b) is taken as two
                     -- log1p of small arguments (x b - y a is exact) instead of terms near 1e6
                     -- that cancel (3e-9 of relative error at a + b = 4e6), plus
                     -- ln sqrt(a b / (2 pi (a + b))) and the series' 1/z terms for a + b, -a and
                     -- -b (odd in z)
                     s.a * _ndcg_log1p((s.x * s.b - s.y * s.a) / s.a)
                     + s.b * _ndcg_log1p((s.y * s.a - s.x * s.b) / s.b)
                     + 0.5 * ln(s.a * s.b / (2.0 * pi() * (s.a + s.b)))
                     + list_sum(list_transform(
                         [1.0 / (s.a + s.b), -1.0 / s.a, -1.0 / s.b],
                         lambda w: w * (1.0 / 12 - w * w * (1.0 / 360 - w * w * (1.0 / 1260
                                                            - w * w / 1680)))))
                 ELSE s.a * CASE WHEN s.x > 0.5 THEN _ndcg_log1p(-s.y) ELSE ln(s.x) END
                      + s.b * CASE WHEN s.y > 0.5 THEN _ndcg_log1p(-s.x) ELSE ln(s.y) END
                      - _ndcg_lbeta(s.a, s.b)
                 END)
             / s.a
             / (1.0 + list_reduce(
                 -- the start value 0 leads the list, not a third argument: DuckDB 1.4/1.5's
                 -- list_reduce with a start value mixes rows up when the lists' lengths differ
                 list_concat([0.0::DOUBLE],
                             range(200 + ceil(4 * sqrt(least(s.a, s.b)))::BIGINT, 0, -1)::DOUBLE[]),
                 lambda acc, j: CASE WHEN j % 2 = 1
                     THEN -(s.a + floor(j / 2)) * (s.a + s.b + floor(j / 2)) * s.x
                          / ((s.a + 2 * floor(j / 2)) * (s.a + 2 * floor(j / 2) + 1))
                     ELSE floor(j / 2) * (s.b - floor(j / 2)) * s.x
                          / ((s.a + 2 * floor(j / 2) - 1) * (s.a + 2 * floor(j / 2)))
                     END / (1.0 + acc)))],
            lambda v: CASE WHEN s.flip THEN 1.0 - v ELSE v END)[1])[1]
END;

-- _ndcg_t_cdf(t, df): P(T <= t) for Student's t with df > 0 degrees of freedom (internal). The
-- lower tail 0.5 I_x(df/2, 1/2) with x = df / (df + t^2) (_ndcg_betainc), so small tail
-- probabilities keep their relative precision; the upper side is 1 minus it.
CREATE OR REPLACE MACRO _ndcg_t_cdf(t, df) AS
list_transform(
    [0.5 * _ndcg_betainc(df / 2.0, 0.5, df / (df + t * t), t * t / (df + t * t))],
    lambda lower: CASE WHEN t > 0 THEN 1.0 - lower ELSE lower END)[1];

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

-- _ndcg_norm_cdf(z): the standard normal CDF P(Z <= z) (internal; DuckDB has no erf). Through
-- erfc(x), x = |z| / sqrt(2): for x < 2, 1 - erf(x) with erf(x) = 2/sqrt(pi) e^(-x^2) x
-- sum_n (2x^2)^n / (1*3*...*(2n+1)) (positive terms, 60 of them, Horner from the tail); for
-- x >= 2 Laplace's continued fraction erfc(x) = e^(-x^2) / sqrt(pi) / (x + (1/2)/(x + 1/(x +
-- (3/2)/(x + ...)))), 120 terms from the tail. Both agree with scipy.special.ndtr to about 1e-15
-- relative, including far tails (the lower tail is computed directly, never as 1 - upper).
-- list_reduce start values lead the lists (DuckDB 1.4/1.5 mix rows up with a third argument).
CREATE OR REPLACE MACRO _ndcg_norm_cdf(z) AS
list_transform(
    [abs(z) / sqrt(2.0)::DOUBLE],
    lambda x: CASE WHEN z < 0 THEN 0.5 ELSE -0.5 END
        * CASE
              WHEN x < 2 THEN 1.0 - 2.0 / sqrt(pi()) * exp(-x * x) * x
                                    * list_reduce(list_concat([1.0::DOUBLE], range(60, 0, -1)::DOUBLE[]),
                                                  lambda acc, n: 1.0 + 2.0 * x * x / (2.0 * n + 1.0) * acc)
              ELSE exp(-x * x) / sqrt(pi())
                   / (x + list_reduce(list_concat([0.0::DOUBLE], range(120, 0, -1)::DOUBLE[]),
                                      lambda acc, k: (k / 2.0) / (x + acc)))
          END
        + CASE WHEN z < 0 THEN 0.0 ELSE 1.0 END)[1];
