-- list_idcg(rels, k := NULL, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE
-- Ideal DCG: the DCG of the grades sorted by gain, best first, cut at k (NULL = all of them).
--   rels      every judged grade of the query, in any order.
-- Example: SELECT list_idcg([3, 2, 2, 1]);  -- 5.6925
CREATE OR REPLACE MACRO list_idcg(rels, k := NULL, gain := 'linear', log_base := 2,
                                  negative := 'error') AS
_ndcg_weighted_list(list_reverse_sort(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative))),
                    _ndcg_checked_k(k), 'log', log_base);
