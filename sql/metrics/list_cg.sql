-- list_cg(rels, k := NULL, gain := 'linear', negative := 'error') -> DOUBLE
-- Cumulative gain: the sum of the gains of the first k grades of a ranked list (all when k is NULL).
--   rels      grades in ranked order; NULL = unjudged (gain 0).
--   k         cutoff, a positive whole number; NULL = the whole list.
--   gain      'linear' | 'exponential' (2^rel - 1) | MAP from grade to gain.
--   negative  'error' | 'zero'.
-- Example: SELECT list_cg([3, 2, 3, 0, 1, 2]);  -- 11
CREATE OR REPLACE MACRO list_cg(rels, k := NULL, gain := 'linear', negative := 'error') AS
_ndcg_weighted_list(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative)),
                    _ndcg_checked_k(k), 'none', NULL);
