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
