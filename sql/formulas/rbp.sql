-- Rank-biased precision (internal).

-- _ndcg_rbp(marked, rnk, p, k, ties, tie_key): aggregate; the rank-biased weight of the marked
-- rows (marked = 1) among the first k returned: the sum of (1 - p) p^(q - 1) over their positions
-- q (internal; rbp marks the relevant rows, rbp_residual the unjudged ones). With ties =
-- 'average' a tie group (n rows, c marked) adds c / n of the weight of its positions up to the
-- cut m: the exact expectation over tied orders (_ndcg_weighted_sum with weight 'geometric').
-- p must be in (0, 1) (_ndcg_p_error).
CREATE OR REPLACE MACRO _ndcg_rbp(marked, rnk, p, k, ties, tie_key) AS
CASE
    WHEN _ndcg_p_error(p) IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL
         AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
        _ndcg_weighted_sum(_ndcg_ranking(marked::DOUBLE, TRY_CAST(rnk AS DOUBLE), k, ties, tie_key),
                           k, ties, 'geometric', p)
END;
