-- compare_rankers(rankings_a, rankings_b, events, k := 10, slice_by := [], ...every other
--                 ndcg_report parameter)
--   -> TABLE(<query_col>, <slice_by columns>, k BIGINT, ndcg_a, ndcg_b, diff DOUBLE,
--            mean_diff DOUBLE, queries BIGINT)
-- Two rankers judged by the same events: NDCG@k of each per (slice, query), diff = ndcg_b -
-- ndcg_a (positive: B is better), and mean_diff, the mean of diff over the queries of the slice
-- and cutoff (equal to mean NDCG of B minus mean NDCG of A on those queries).
-- Query set: queries shown by both rankers (a query only one ranker showed is left out, because
-- its difference is undefined); `queries` counts them. Both tables use the same column names.
-- Example: SELECT * FROM compare_rankers('ranker_a', 'ranker_b', 'events', k := [5, 10]);
CREATE OR REPLACE MACRO compare_rankers(rankings_a, rankings_b, events, k := 10,
                                        slice_by := []::VARCHAR[],
                                        query_col := 'query_id', item_col := 'item_id',
                                        position_col := 'position', score_col := NULL,
                                        ties := 'average', gain := 'linear', log_base := 2,
                                        empty_ideal := 0.0, duplicates := 'error',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE
SELECT unnest(a._key), a._k AS k, a.ndcg AS ndcg_a, b.ndcg AS ndcg_b, b.ndcg - a.ndcg AS diff,
       avg(b.ndcg - a.ndcg) OVER (PARTITION BY a._slice, a._k) AS mean_diff,
       count(*) OVER (PARTITION BY a._slice, a._k) AS queries
FROM (
    SELECT *, json_merge_patch(to_json(_key), json_object(query_col, NULL))::VARCHAR AS _slice
    FROM _ndcg_report_rows(rankings_a, events, k, slice_by, query_col, item_col, position_col,
                           score_col, ties, gain, log_base, empty_ideal, duplicates, event_col,
                           mapping, collapse, time_col, unknown)
) AS a
JOIN _ndcg_report_rows(rankings_b, events, k, slice_by, query_col, item_col, position_col,
                       score_col, ties, gain, log_base, empty_ideal, duplicates, event_col,
                       mapping, collapse, time_col, unknown) AS b
    ON a._key = b._key AND a._k IS NOT DISTINCT FROM b._k
ORDER BY ALL;
