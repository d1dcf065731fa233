-- _ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key) -> {m, in_order, groups}
--   [aggregate] (internal): the ranking of a group's rows with binary relevance (_ndcg_relevant:
-- 1 when rel >= threshold), as _ndcg_ranking builds it: m, the cut; in_order, the 0/1 relevance
-- of the first m rows (ties 'key'); groups, its tie groups with c = relevant rows and a =
-- relevant rows before them (ties 'average', _ndcg_tie_groups). The ranking of hit rate,
-- reciprocal rank, average precision, R-precision and bpref; rnk is checked to be a number first.
-- Example: SELECT _ndcg_relevant_ranking(rel, rnk, 10, 1, 'average', NULL).groups FROM run;
CREATE OR REPLACE MACRO _ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    list_transform(
        [_ndcg_ranking(_ndcg_relevant(rel, threshold)::DOUBLE, TRY_CAST(rnk AS DOUBLE), k, ties,
                       tie_key)],
        lambda r: {m: r.m, in_order: list_slice(r.in_order, 1, r.m),
                   groups: CASE WHEN ties = 'average' THEN _ndcg_tie_groups(r) END})[1]
END;
