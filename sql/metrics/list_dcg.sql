-- list_dcg(rels, k := NULL, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE
-- Discounted cumulative gain of a ranked list: sum of gain(rels[i]) / log_base(i + 1), i = 1..k.
--   rels      grades in ranked order; NULL = unjudged (gain 0).
--   k         cutoff; NULL = the whole list.
--   gain      'linear' (seeds' formula (1)) | 'exponential' (formula (2)) | MAP from grade to gain.
--   log_base  base of the discount logarithm (2).
-- Example: SELECT list_dcg([3, 2, 3, 0, 1, 2]);  -- 6.861
CREATE OR REPLACE MACRO list_dcg(rels, k := NULL, gain := 'linear', log_base := 2,
                                 negative := 'error') AS
_ndcg_weighted_list(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative)),
                    _ndcg_checked_k(k), 'log', log_base);
