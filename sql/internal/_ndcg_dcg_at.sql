-- _ndcg_dcg_at(ranking, m, gain, log_base): DCG of the first m positions of a ranking read by
-- _ndcg_ranking (log_base NULL: CG) (internal). With ties = 'average', tied rows share the mean
-- gain of their whole tie group (McSherry & Najork; scikit-learn), also a group that straddles
-- position m: its size and gain sum then come from tie_keys and tie_grades.
CREATE OR REPLACE MACRO _ndcg_dcg_at(ranking, m, gain, log_base) AS
CASE
    WHEN NOT _ndcg_has_ties(ranking.keys, m) THEN
        _ndcg_sum_discounted(_ndcg_gains(_ndcg_head(ranking.grades, m), gain), NULL, log_base)
    ELSE _ndcg_sum_discounted(list_transform(_ndcg_gains(_ndcg_head(ranking.grades, m), gain),
        lambda g, p: CASE
            WHEN (p = 1 OR ranking.keys[p - 1] <> ranking.keys[p])
                 AND (p = len(ranking.keys) OR ranking.keys[p + 1] <> ranking.keys[p]) THEN g
            WHEN ranking.keys[p] = ranking.keys[m] AND len(ranking.keys) > m
                 AND ranking.keys[m + 1] = ranking.keys[m] THEN
                coalesce(list_sum(_ndcg_gains(list_transform(
                    list_filter(ranking.tie_grades, lambda x: x.r = ranking.keys[m]), lambda x: x.g), gain)), 0.0)
                / len(list_filter(ranking.tie_keys, lambda x: x = ranking.keys[m]))
            ELSE list_avg(list_filter(_ndcg_gains(_ndcg_head(ranking.grades, m), gain),
                                      lambda h, q: ranking.keys[q] = ranking.keys[p]))
        END), NULL, log_base)
END;
