-- _ndcg_dcg_at(keys, grades, m, straddle_count, straddle_gain, gain, log_base): DCG of the first m
-- positions of a ranking read by _ndcg_top_keys and _ndcg_top_grades (log_base NULL: CG)
-- (internal). With ties = 'average', tied rows share the mean gain of their whole tie group
-- (McSherry & Najork; scikit-learn). A tie group that straddles position m reaches past the top
-- lists: straddle_count and straddle_gain, its size and gain sum, are then evaluated (only then:
-- they may scan lists or come from a second pass over the data). Rankings without ties take the
-- direct sum; a tie group inside the cut is found by its first and last key (linear per group).
CREATE OR REPLACE MACRO _ndcg_dcg_at(keys, grades, m, straddle_count, straddle_gain, gain, log_base) AS
CASE
    WHEN NOT _ndcg_has_ties(keys, m) THEN
        _ndcg_sum_discounted(_ndcg_gains(_ndcg_head(grades, m), gain), NULL, log_base)
    -- [x] with lambda b binds the gains and the reversed keys once per ranking: written inside the
    -- position lambda they would be rebuilt for every position
    ELSE _ndcg_sum_discounted(list_transform(
        [{gains: _ndcg_gains(_ndcg_head(grades, m), gain), reversed: list_reverse(keys)}],
        lambda b: list_transform(b.gains, lambda g, p: CASE
            WHEN (p = 1 OR keys[p - 1] <> keys[p]) AND (p = len(keys) OR keys[p + 1] <> keys[p]) THEN g
            WHEN keys[p] = keys[m] AND len(keys) > m AND keys[m + 1] = keys[m] THEN
                straddle_gain / straddle_count
            ELSE list_avg(list_slice(  -- the whole tie group, inside the cut: keys are sorted
                b.gains, list_position(keys, keys[p]),
                len(keys) + 1 - list_position(b.reversed, keys[p])))
        END))[1], NULL, log_base)
END;
