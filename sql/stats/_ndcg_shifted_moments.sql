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
