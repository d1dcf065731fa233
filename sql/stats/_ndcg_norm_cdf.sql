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
