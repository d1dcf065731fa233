-- ndcg_summary(rankings, events, k := 10, slice_by := [], conf := 0.95,
--              ...every other ndcg_report parameter)
--   -> TABLE(<slice_by columns>, k BIGINT, queries BIGINT, mean_ndcg DOUBLE,
--            queries_without_relevant BIGINT, mean_ndcg_with_relevant DOUBLE,
--            shown_relevant, relevant BIGINT, ci_low, ci_high DOUBLE)
-- The mean NDCG@k over queries, per slice and cutoff, from ndcg_report (same parameters).
-- Query set: every (slice, query) of `rankings`; a query with no positive grade scores
-- empty_ideal (0.0 by default, so it pulls the mean down; empty_ideal := NULL leaves it out of
-- mean_ndcg). queries_without_relevant counts them; mean_ndcg_with_relevant is the mean over the
-- other queries, for comparison. relevant counts the items the events grade above 0 for the
-- slice's queries, shown_relevant those of them the rankings showed: shown_relevant = 0 with
-- relevant > 0 (or relevant = 0 for every query) means no graded event matched a shown item,
-- usually ids written differently in the two tables. [ci_low, ci_high] is the conf t-interval of
-- mean_ndcg (conf := 0.95; mean -/+ t quantile x stddev_samp / sqrt(n), NULL below 2 queries).
-- Example: SELECT * FROM ndcg_summary('impressions', 'events', k := [5, 10], slice_by := ['variant']);
CREATE OR REPLACE MACRO ndcg_summary(rankings, events, k := 10, slice_by := []::VARCHAR[],
                                     query_col := 'query_id', item_col := 'item_id',
                                     position_col := 'position', score_col := NULL,
                                     ties := 'average', gain := 'linear', log_base := 2,
                                     empty_ideal := 0.0, duplicates := 'error',
                                     event_col := 'event_type', mapping := NULL, collapse := 'max',
                                     time_col := NULL, unknown := 'error', conf := 0.95) AS TABLE
SELECT COLUMNS(lambda c: c NOT IN [query_col, '_ndcg', '_relevant', '_shown_relevant']),
       count(*) AS queries,
       avg(_ndcg) AS mean_ndcg,
       count(*) FILTER (WHERE _relevant = 0) AS queries_without_relevant,
       avg(_ndcg) FILTER (WHERE _relevant > 0) AS mean_ndcg_with_relevant,
       sum(_shown_relevant)::BIGINT AS shown_relevant,
       sum(_relevant)::BIGINT AS relevant,
       (avg(_ndcg) - _ndcg_mean_ci_half(stddev_samp(_ndcg), count(_ndcg), conf))::DOUBLE AS ci_low,
       (avg(_ndcg) + _ndcg_mean_ci_half(stddev_samp(_ndcg), count(_ndcg), conf))::DOUBLE AS ci_high
FROM (
    SELECT unnest(_key), _k AS k, ndcg AS _ndcg, relevant AS _relevant,
           shown_relevant AS _shown_relevant
    FROM _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col, position_col,
                           score_col, ties, gain, log_base, empty_ideal, duplicates, event_col,
                           mapping, collapse, time_col, unknown)
)
GROUP BY ALL
ORDER BY ALL;
