-- _ndcg_ideal(rel, cut, gain, log_base, negative): aggregate; DCG of the judged grades of a group
-- (rows with non-NULL rel, returned or not) sorted best first, cut at `cut` (NULL = all) (internal).
CREATE OR REPLACE MACRO _ndcg_ideal(rel, cut, gain, log_base, negative) AS
_ndcg_sum_discounted(
    list_reverse_sort(coalesce(list(_ndcg_gain(rel, gain, negative)) FILTER (WHERE rel IS NOT NULL), [])),
    cut, log_base);
