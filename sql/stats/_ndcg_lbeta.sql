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
