-- _ndcg_ranked_count(flag, rnk, k, ties, tie_key) -> DOUBLE  [aggregate] (internal)
-- How many of the first k positions hold a row with flag = 1 (flag: 0 or 1, e.g. _ndcg_relevant):
-- the numerator of precision, recall, F1 and judged@k. With ties := 'average' a tie group
-- straddling position k counts its flagged rows times the share of the group inside the cut (the
-- expectation over the orders of its rows), as for CG; k NULL reads the whole ranking. It is the
-- weighted sum of the flags with weight 'none', the rank keys checked to be numbers first.
-- Example: SELECT _ndcg_ranked_count(_ndcg_relevant(rel, 1), rnk, 5, 'average', NULL) / 5.0 ...
CREATE OR REPLACE MACRO _ndcg_ranked_count(flag, rnk, k, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    _ndcg_weighted_sum(_ndcg_ranking(TRY_CAST(flag AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k, ties,
                                     tie_key), k, ties, 'none', NULL)
END;
