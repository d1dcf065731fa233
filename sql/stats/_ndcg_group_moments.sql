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
