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
