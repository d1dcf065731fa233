-- ndcg_summary(rankings, events, k := 10, slice_by := [], conf := 0.95, metrics := ['ndcg'],
--              threshold := 1, max_grade := 'mapping', ...every other ndcg_report parameter)
--   -> TABLE(<slice_by columns>, k BIGINT, queries BIGINT, mean_ndcg DOUBLE,
--            queries_without_relevant BIGINT, mean_ndcg_with_relevant DOUBLE,
--            shown_relevant, relevant BIGINT, ci_low, ci_high, mean_judged_at_k DOUBLE,
--            <mean_<name> DOUBLE per family metric named>)
-- The mean NDCG@k over queries, per slice and cutoff, from ndcg_report (same parameters).
-- Query set: every (slice, query) of `rankings`; a query with no positive grade scores
-- empty_ideal (0.0 by default, so it pulls the mean down; empty_ideal := NULL leaves it out of
-- mean_ndcg). queries_without_relevant counts them; mean_ndcg_with_relevant is the mean over the
-- other queries, for comparison. relevant counts the items the events grade above 0 for the
-- slice's queries, shown_relevant those of them the rankings showed: shown_relevant = 0 with
-- relevant > 0 (or relevant = 0 for every query) means no graded event matched a shown item,
-- usually ids written differently in the two tables. [ci_low, ci_high] is the conf t-interval of
-- mean_ndcg (conf := 0.95; mean -/+ t quantile x stddev_samp / sqrt(n), NULL below 2 queries).
-- mean_judged_at_k is the mean over the same queries of ndcg_report's judged_at_k: the share of
-- a ranking's first k items that an event of the log grades (0 included); below 0.9 an offline
-- replay ranks many items no user was shown, which score 0 as if seen and ignored.
-- metrics, threshold, max_grade: as for ndcg_report; each family metric named adds
-- mean_<name>, the mean over the same queries of ndcg_report's column (mean_precision_at_k,
-- mean_err, ...: the names of the BI measures), after mean_judged_at_k in ndcg_report's order
-- (naming judged_at_k adds no column: its mean is always there).
-- Example: SELECT * FROM ndcg_summary('impressions', 'events', k := [5, 10], slice_by := ['variant']);
CREATE OR REPLACE MACRO ndcg_summary(rankings, events, k := 10, slice_by := []::VARCHAR[],
                                     query_col := 'query_id', item_col := 'item_id',
                                     position_col := 'position', score_col := NULL,
                                     ties := 'average', gain := 'linear', log_base := 2,
                                     empty_ideal := 0.0, duplicates := 'error',
                                     event_col := 'event_type', mapping := NULL, collapse := 'max',
                                     time_col := NULL, unknown := 'error', conf := 0.95,
                                     metrics := ['ndcg'], threshold := 1,
                                     max_grade := 'mapping') AS TABLE
-- the means of the family metrics not named are dropped here (COLUMNS keeps the column order)
SELECT COLUMNS(lambda c: NOT list_contains(list_transform(_ndcg_report_metrics(),
                                                          lambda m: 'mean_' || m), c)
                         OR c IN ('mean_ndcg', 'mean_judged_at_k')
                         OR coalesce(list_contains(metrics, c[6:]), false))
FROM (
SELECT COLUMNS(lambda c: c NOT IN [query_col, '_ndcg', '_relevant', '_shown_relevant']
                         AND NOT list_contains(list_transform(_ndcg_report_metrics(),
                                                              lambda m: '_' || m), c)),
       count(*) AS queries,
       avg(_ndcg) AS mean_ndcg,
       count(*) FILTER (WHERE _relevant = 0) AS queries_without_relevant,
       avg(_ndcg) FILTER (WHERE _relevant > 0) AS mean_ndcg_with_relevant,
       sum(_shown_relevant)::BIGINT AS shown_relevant,
       sum(_relevant)::BIGINT AS relevant,
       (avg(_ndcg) - _ndcg_mean_ci_half(stddev_samp(_ndcg), count(_ndcg), conf))::DOUBLE AS ci_low,
       (avg(_ndcg) + _ndcg_mean_ci_half(stddev_samp(_ndcg), count(_ndcg), conf))::DOUBLE AS ci_high,
       avg(_judged_at_k) AS mean_judged_at_k,
       avg(_precision_at_k) AS mean_precision_at_k, avg(_recall_at_k) AS mean_recall_at_k,
       avg(_f1_at_k) AS mean_f1_at_k, avg(_hit_rate) AS mean_hit_rate,
       avg(_reciprocal_rank) AS mean_reciprocal_rank,
       avg(_average_precision) AS mean_average_precision,
       avg(_r_precision) AS mean_r_precision, avg(_err) AS mean_err, avg(_rbp) AS mean_rbp
FROM (
    SELECT unnest(_key), _k AS k, ndcg AS _ndcg, relevant AS _relevant,
           shown_relevant AS _shown_relevant, precision_at_k AS _precision_at_k,
           recall_at_k AS _recall_at_k, f1_at_k AS _f1_at_k, hit_rate AS _hit_rate,
           reciprocal_rank AS _reciprocal_rank, average_precision AS _average_precision,
           r_precision AS _r_precision, err AS _err, rbp AS _rbp, judged_at_k AS _judged_at_k
    FROM _ndcg_report_metric_rows(rankings, events, k, slice_by, query_col, item_col,
                                  position_col, score_col, ties, gain, log_base, empty_ideal,
                                  duplicates, event_col, mapping, collapse, time_col, unknown,
                                  metrics, threshold, max_grade, judged := true)
)
GROUP BY ALL
)
ORDER BY ALL;
