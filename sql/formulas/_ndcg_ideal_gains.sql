-- _ndcg_ideal_gains(rel, depth, gain): aggregate; the gains of a group's judged rows (non-NULL
-- rel, returned or not), best first: the depth best, or all when depth is NULL (internal). Grades
-- are ranked by grade, as linear and exponential gains grow with the grade (and grades <= 0 gain
-- 0, so only positive grades are read); a gain MAP need not, so its gains are ranked instead.
CREATE OR REPLACE MACRO _ndcg_ideal_gains(rel, depth, gain) AS
CASE
    WHEN _ndcg_is_map(gain) AND depth IS NULL THEN
        list_reverse_sort(list(_ndcg_gain(rel, gain, 'zero'))
            FILTER (WHERE rel IS NOT NULL AND depth IS NULL AND _ndcg_is_map(gain)))
    WHEN _ndcg_is_map(gain) THEN
        max(_ndcg_gain(rel, gain, 'zero'), _ndcg_top_n(depth))
            FILTER (WHERE rel IS NOT NULL AND depth IS NOT NULL AND _ndcg_is_map(gain))
    WHEN depth IS NULL THEN
        list_transform(list_reverse_sort(list(rel)
            FILTER (WHERE rel > 0 AND depth IS NULL AND NOT _ndcg_is_map(gain))),
            lambda r: _ndcg_gain_value(r, gain))
    ELSE list_transform(max(rel, _ndcg_top_n(depth))
             FILTER (WHERE rel > 0 AND depth IS NOT NULL AND NOT _ndcg_is_map(gain)),
             lambda r: _ndcg_gain_value(r, gain))
END;
