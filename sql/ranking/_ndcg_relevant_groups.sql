-- _ndcg_relevant_groups(rel, rnk, k, threshold, ties, tie_key): aggregate; the ranking of a
-- group's rows as its tie groups up to the cut, for the order-dependent metrics with averaged ties
-- (internal): {groups: _ndcg_tie_groups with c = relevant rows (rel >= threshold), m: the cut
-- least(k, returned rows), relevant: every relevant judged row, returned or not}. Read like dcg:
-- the rank keys of the first k + 1 rows with a top-N aggregate (all of them, sorted, above 100),
-- the keys of the relevant rows (few), and every key only to size a tie group straddling k. rnk
-- is checked as _ndcg_relevant_in_order checks it (ties and tie_key only for their errors).
CREATE OR REPLACE MACRO _ndcg_relevant_groups(rel, rnk, k, threshold, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    -- [x] with lambda r binds the aggregates outside the lambda body, as in dcg
    list_transform(
        [{keys: _ndcg_top_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), 'average'),
          hits: list(TRY_CAST(rnk AS DOUBLE))
                    FILTER (WHERE rnk IS NOT NULL AND _ndcg_relevant(rel, threshold) = 1),
          all_keys: _ndcg_tie_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), 'average'),
          m: least(_ndcg_checked_k(k), count(TRY_CAST(rnk AS DOUBLE))),
          relevant: coalesce(sum(_ndcg_relevant(rel, threshold)), 0)}],
        lambda r: {groups: _ndcg_tie_groups(
                       r.keys, r.hits, r.m,
                       len(list_filter(coalesce(r.all_keys, r.keys), lambda x: x = r.keys[r.m]))),
                   m: r.m,
                   relevant: r.relevant})[1]
END;
