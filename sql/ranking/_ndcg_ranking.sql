-- _ndcg_ranking(value, rnk, k, ties, tie_key) -> {m, in_order, keys, straddle, rows}
--   [aggregate] (internal): the ranking a group's rows form, cut at k, as every metric reads it.
-- value is what a row carries (its gain for DCG, 1 for a relevant row, a stop probability for
-- ERR; NULL reads as 0), rnk its rank key (smaller first; NULL: judged but not returned), both
-- DOUBLE. Fields (each NULL where its tie mode does not read it):
--   m         the cut: least(k, returned rows) (k NULL: every returned row)
--   in_order  ties 'key': the values of the first m rows or more in rank order, equal rnk broken
--             by tie_key descending (trec_eval's order)
--   keys      ties 'average': the ascending rank keys of the first m + 1 rows or more
--             (_ndcg_ranked_keys)
--   straddle  ties 'average': the size of the tie group at position m when it reaches past m
--             (NULL when it does not)
--   rows      ties 'average': every row of non-zero value, returned or not (_ndcg_valued_rows)
-- Its tie groups are _ndcg_tie_groups(ranking); its weighted sums (DCG, CG, counts, RBP)
-- _ndcg_weighted_sum(ranking, ...). Read with top-N aggregates: the keys (or values) of the
-- first k + 1 rows when k <= 100, all of them sorted beyond (_ndcg_read_depth, _ndcg_top_n).
-- Every field is an aggregate in a CASE on ties and k, constants, so DuckDB folds the branches
-- they rule out and drops their aggregates; callers bind the ranking once ([ranking] with a
-- lambda), outside every lambda body, where that folding happens. Binding copies each field per
-- query, so the list of every key that sizes a straddling group is not a field: straddle reads
-- it, for the queries whose group straddles (5% of the benchmark's; binding it for every query
-- cost 10% of ndcg@10's per-query arithmetic). The caller checks rnk and the ties arguments
-- (_ndcg_rank_error, in a CASE around its formula: inside the struct, an expression holding
-- error() costs every query a copy) and value.
-- Example: SELECT _ndcg_tie_groups(_ndcg_ranking(rel::DOUBLE, rnk::DOUBLE, 10, 'average', NULL))
--          FROM run;
CREATE OR REPLACE MACRO _ndcg_ranking(value, rnk, k, ties, tie_key) AS
{m: least(_ndcg_checked_k(k), count(rnk)),
 in_order: CASE
     WHEN ties = 'key' AND _ndcg_read_depth(k) IS NULL THEN
         list(coalesce(value, 0.0) ORDER BY rnk ASC,
              CASE WHEN ties = 'key' THEN tie_key END DESC)
             FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NULL
                           AND ties = 'key')
     WHEN ties = 'key' THEN
         max_by(coalesce(value, 0.0),
                {a: -rnk, b: CASE WHEN ties = 'key' THEN tie_key END},
                _ndcg_top_n(_ndcg_read_depth(k)) + 1)
             FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NOT NULL
                           AND ties = 'key')
 END,
 keys: _ndcg_ranked_keys(rnk, k, ties),
 -- a group straddles m = k when the (k + 1)th key equals the kth (with fewer than k + 1 keys m is
 -- their number and nothing straddles); its size: the keys equal to the kth among every key
 straddle: CASE WHEN ties = 'average' THEN list_transform([_ndcg_ranked_keys(rnk, k, ties)],
     lambda ks: CASE WHEN len(ks) > _ndcg_checked_k(k)
                          AND ks[_ndcg_checked_k(k) + 1] = ks[_ndcg_checked_k(k)] THEN
         len(list_filter(coalesce(list(rnk) FILTER (WHERE _ndcg_read_depth(k) IS NOT NULL
                                                          AND ties = 'average'), ks),
                         lambda x: x = ks[_ndcg_checked_k(k)]))
     END)[1] END,
 rows: _ndcg_valued_rows(value, rnk, ties)};
