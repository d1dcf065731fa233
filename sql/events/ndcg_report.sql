-- ndcg_report(rankings, events, k := 10, slice_by := [], query_col := 'query_id',
--             item_col := 'item_id', position_col := 'position', score_col := NULL,
--             ties := 'average', gain := 'linear', log_base := 2, empty_ideal := 0.0,
--             duplicates := 'error', event_col := 'event_type', mapping := NULL,
--             collapse := 'max', time_col := NULL, unknown := 'error')
--   -> TABLE(<query_col>, <slice_by columns>, k BIGINT, ndcg, dcg, idcg DOUBLE,
--            shown, shown_relevant, relevant BIGINT)
-- NDCG@k of every query a ranker showed, judged by what users did: `rankings` (a table name) holds
-- what was shown (query, item, position or score), `events` (a table name) what users did; events
-- become grades with event_relevance (mapping, collapse, time_col, unknown, event_col: see there).
-- Long format, one row per (slice, query, cutoff): k := [1, 5, 10] gives three rows per query, so
-- any number of cutoffs keeps one schema and `GROUP BY k` gives the means (ndcg_summary does).
--   k             a cutoff or a list of them; NULL = no cutoff (whole ranking, IDCG over every
--                 graded item: trec_eval ndcg). A cutoff k cuts DCG and IDCG at k (ndcg_cut.k).
--   slice_by      names of extra columns of `rankings` (day, device, variant): each (slice, query)
--                 is its own ranking, judged by the same events (they join on query and item only).
--   position_col  rank column, 1 = top; or score_col, higher = better (then ties decide order:
--                 'average' shares the gain of tied items, 'key' breaks ties by item descending,
--                 as trec_eval does).
--   gain, log_base, empty_ideal: as for the ndcg aggregate.
--   duplicates    'error': an item shown twice among the rows a cutoff reads (those whose tie
--                 group starts within the first max(k) + 1 positions of a (slice, query), all
--                 when k is NULL) is an error naming it; a duplicate further down cannot change
--                 NDCG@k and just counts in `shown`; 'allow': every impression is a ranked row.
-- Rules: the queries are those of `rankings` (events of other queries are ignored); a graded item
-- never shown counts in IDCG only (judged but not returned, as in trec_eval); a shown item without
-- events has grade 0; a query with no positive grade gets ndcg = empty_ideal (an empty events
-- table gives every query empty_ideal). shown = rows shown, shown_relevant = shown with grade > 0,
-- relevant = items with grade > 0 in the events of the query. NULL keys are errors.
-- Memory: the plan is made of hash aggregates, a join and one sort per ranking, which DuckDB
-- spills to disk, so logs larger than memory_limit finish (100M events under 1GB).
-- ndcg_summary and compare_rankers use the same plan.
-- Example: SELECT * FROM ndcg_report('impressions', 'events', k := [5, 10], slice_by := ['device']);
CREATE OR REPLACE MACRO ndcg_report(rankings, events, k := 10, slice_by := []::VARCHAR[],
                                    query_col := 'query_id', item_col := 'item_id',
                                    position_col := 'position', score_col := NULL,
                                    ties := 'average', gain := 'linear', log_base := 2,
                                    empty_ideal := 0.0, duplicates := 'error',
                                    event_col := 'event_type', mapping := NULL, collapse := 'max',
                                    time_col := NULL, unknown := 'error') AS TABLE
SELECT unnest(_key), _k AS k, ndcg, dcg, idcg, shown, shown_relevant, relevant
FROM _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col, position_col, score_col,
                       ties, gain, log_base, empty_ideal, duplicates, event_col, mapping, collapse,
                       time_col, unknown);
