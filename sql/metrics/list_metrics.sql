-- The gain metrics of a list of grades in ranked order.

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

-- list_idcg(rels, k := NULL, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE
-- Ideal DCG: the DCG of the grades sorted by gain, best first, cut at k (NULL = all of them).
--   rels      every judged grade of the query, in any order.
-- Example: SELECT list_idcg([3, 2, 2, 1]);  -- 5.6925
CREATE OR REPLACE MACRO list_idcg(rels, k := NULL, gain := 'linear', log_base := 2,
                                  negative := 'error') AS
_ndcg_weighted_list(list_reverse_sort(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative))),
                    _ndcg_checked_k(k), 'log', log_base);

-- list_ndcg(rels, k := NULL, ideal := NULL, gain := 'linear', log_base := 2, empty_ideal := 0.0,
--           clamp_k := false, full_ideal := false, negative := 'error') -> DOUBLE
-- Normalised DCG of a ranked list: DCG@k / IDCG@k.
--   rels         grades in ranked order; NULL = unjudged (gain 0).
--   k            cutoff. NULL cuts DCG and IDCG at len(rels) (the seeds' convention).
--                An explicit k cuts both at k: DCG stops at the end of the list, IDCG takes
--                the k best grades of `ideal` (trec_eval ndcg_cut.k).
--   ideal        every judged grade of the query, in any order; NULL = rels. It must cover rels:
--                best first, each positive gain of rels at most ideal's at the same place (a
--                superset of rels' grades does; zeros and NULLs of rels need not be in it), else
--                an error naming ideal (_ndcg_ideal_error): a smaller ideal let NDCG exceed 1.
--   empty_ideal  the result when IDCG is 0 (0.0; pass NULL so that avg() skips such queries).
--   clamp_k      true cuts IDCG at least(k, len(rels)), as the seeds' code and Elasticsearch do.
--   full_ideal   with k NULL, true takes IDCG over all of `ideal` (trec_eval ndcg, ir_measures nDCG).
-- Example: SELECT list_ndcg([0.1, 0.5, 0.7], ideal := [0.1, 0.5, 0.7, 0.5, 0.1]);  -- 0.6048882832133625
CREATE OR REPLACE MACRO list_ndcg(rels, k := NULL, ideal := NULL, gain := 'linear', log_base := 2,
                                  empty_ideal := 0.0, clamp_k := false, full_ideal := false,
                                  negative := 'error') AS
CASE WHEN ideal IS NULL OR _ndcg_ideal_error(rels, ideal, gain, negative) IS NULL THEN coalesce(
    list_dcg(rels, k, gain := gain, log_base := log_base, negative := negative)
    / nullif(_ndcg_weighted_list(
        list_reverse_sort(list_transform(coalesce(ideal, rels),
                                         lambda r: _ndcg_gain(r, gain, negative))),
        _ndcg_ideal_cut(_ndcg_checked_k(k), len(rels), clamp_k, full_ideal),
        'log', log_base), 0),
    empty_ideal) END;
