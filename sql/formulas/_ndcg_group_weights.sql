-- _ndcg_group_weights(starts, n, m, log_base): for each tie group of a ranking of n positions
-- (starts from _ndcg_tie_starts), the mean of 1 / discount over the group's positions, which is
-- what each of its rows is worth per unit of gain with ties averaged (McSherry & Najork;
-- scikit-learn); NULL for groups that begin after position m, which a cut at m never reaches
-- (internal). Each group's positions are visited once: O(n) in all. (Not list_slice of a list of
-- weights: list_slice of a list captured by a lambda copies the whole list per call, which made
-- it quadratic again.)
CREATE OR REPLACE MACRO _ndcg_group_weights(starts, n, m, log_base) AS
list_transform(starts, lambda a, j: CASE
    WHEN a > m THEN NULL
    WHEN coalesce(starts[j + 1], n + 1) = a + 1 THEN 1.0 / _ndcg_discount(a, log_base)
    ELSE list_avg(list_transform(range(a, coalesce(starts[j + 1], n + 1)),
                                 lambda q: 1.0 / _ndcg_discount(q, log_base)))
END);
