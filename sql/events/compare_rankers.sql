-- compare_rankers(rankings_a, rankings_b, events, k := 10, slice_by := [], query_set := 'both',
--                 missing := 'zero', ...every other ndcg_report parameter)
--   -> TABLE(<query_col>, <slice_by columns>, k BIGINT, ndcg_a, ndcg_b, diff DOUBLE,
--            mean_diff DOUBLE, queries BIGINT, filled VARCHAR, queries_filled,
--            queries_dropped BIGINT)
-- Two rankers judged by the same events: NDCG@k of each per (slice, query), diff = ndcg_b -
-- ndcg_a (positive: B is better), and mean_diff, the mean of diff over the queries of the slice
-- and cutoff (equal to mean NDCG of B minus mean NDCG of A on those queries).
--   query_set  which (slice, query) pairs are compared: 'both' (shown by both rankers), 'either'
--              (shown by at least one), 'a' (shown by A), 'b' (shown by B).
--   missing    a query of the set that one ranker did not show: 'zero' scores it 0 for that
--              ranker (trec_eval -c) and names the ranker in `filled` ('a' or 'b'; NULL when
--              both showed it); 'error' makes it an error naming the query.
-- queries counts the rows of the slice and cutoff, queries_filled those with a filled score,
-- queries_dropped the queries only one ranker showed that the query set leaves out. Both tables
-- use the same column names.
-- Example: SELECT * FROM compare_rankers('ranker_a', 'ranker_b', 'events', k := [5, 10]);
CREATE OR REPLACE MACRO compare_rankers(rankings_a, rankings_b, events, k := 10,
                                        slice_by := []::VARCHAR[], query_set := 'both',
                                        missing := 'zero', query_col := 'query_id',
                                        item_col := 'item_id',
                                        position_col := 'position', score_col := NULL,
                                        ties := 'average', gain := 'linear', log_base := 2,
                                        empty_ideal := 0.0, duplicates := 'error',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE
WITH _ndcg_pairs AS (
    SELECT *, json_merge_patch(to_json(_key), json_object(query_col, NULL))::VARCHAR AS _slice
    FROM _ndcg_compare_pairs(rankings_a, rankings_b, events, k, slice_by, query_set, missing,
                             query_col, item_col, position_col, score_col, ties, gain, log_base,
                             empty_ideal, duplicates, event_col, mapping, collapse, time_col,
                             unknown)
),
_ndcg_totals AS (
    -- one hash aggregate per (slice, cutoff) for every count: the rows the query set leaves
    -- out count in queries_dropped only
    SELECT _slice AS _t_slice, _k AS _t_k,
           avg(ndcg_b - ndcg_a) FILTER (WHERE _in) AS mean_diff,
           count(*) FILTER (WHERE _in) AS queries,
           count(filled) FILTER (WHERE _in) AS queries_filled,
           count(*) FILTER (WHERE NOT _in) AS queries_dropped
    FROM _ndcg_pairs
    GROUP BY _slice, _k
)
SELECT unnest(_key), _k AS k, ndcg_a, ndcg_b, ndcg_b - ndcg_a AS diff, mean_diff, queries, filled,
       queries_filled, queries_dropped
FROM _ndcg_pairs JOIN _ndcg_totals ON _slice = _t_slice AND _k IS NOT DISTINCT FROM _t_k
WHERE _in
ORDER BY ALL;
