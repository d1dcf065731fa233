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
