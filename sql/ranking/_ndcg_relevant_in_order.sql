-- _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key): aggregate; the binary
-- relevance of the first k returned rows in ranked order, ties broken by tie_key (internal): the
-- ties = 'key' side of the order-dependent metrics (hit rate, reciprocal rank, average
-- precision), whose ties = 'average' side is the expectation over tied orders
-- (_ndcg_relevant_groups).
CREATE OR REPLACE MACRO _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    -- bound outside lambda bodies, as in dcg, so that unused branches fold away
    list_transform(
        [{keys: _ndcg_top_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), ties),
          grades: _ndcg_top_grades(_ndcg_relevant(rel, threshold), TRY_CAST(rnk AS DOUBLE),
                                   _ndcg_read_depth(k), ties, tie_key),
          m: least(_ndcg_checked_k(k), count(TRY_CAST(rnk AS DOUBLE)))}],
        lambda r: _ndcg_head(r.grades, r.m))[1]
END;
