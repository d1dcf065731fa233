-- _ndcg_dcg_at(keys, grades, m, tie_keys, tie_grades, gain, log_base): DCG of the first m positions
-- of a ranking read by _ndcg_top_keys, _ndcg_top_grades and _ndcg_tie_* (log_base NULL: CG)
-- (internal). With ties = 'average', tied rows share the mean gain of their whole tie group
-- (McSherry & Najork; scikit-learn), also a group that straddles position m: its size and gain sum
-- then come from tie_keys and tie_grades. Rankings without ties take the direct sum.
CREATE OR REPLACE MACRO _ndcg_dcg_at(keys, grades, m, tie_keys, tie_grades, gain, log_base) AS
CASE
    WHEN NOT _ndcg_has_ties(keys, m) THEN
        _ndcg_sum_discounted(_ndcg_gains(_ndcg_head(grades, m), gain), NULL, log_base)
    ELSE _ndcg_sum_discounted(list_transform(_ndcg_gains(_ndcg_head(grades, m), gain),
        lambda g, p: CASE
            WHEN (p = 1 OR keys[p - 1] <> keys[p]) AND (p = len(keys) OR keys[p + 1] <> keys[p]) THEN g
            WHEN keys[p] = keys[m] AND len(keys) > m AND keys[m + 1] = keys[m] THEN
                coalesce(list_sum(_ndcg_gains(list_transform(
                    list_filter(tie_grades, lambda x: x.r = keys[m]), lambda x: x.g), gain)), 0.0)
                / len(list_filter(tie_keys, lambda x: x = keys[m]))
            ELSE list_avg(list_filter(_ndcg_gains(_ndcg_head(grades, m), gain),
                                      lambda h, q: keys[q] = keys[p]))
        END), NULL, log_base)
END;
