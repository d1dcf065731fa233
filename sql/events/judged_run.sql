-- The judge: (rankings, events) -> a judged run, the table every measure scores. It is the report
-- engine's own judged run (_ndcg_report_rows' _judged lists: the same checks, slices, time
-- window and grades), with unjudged rows marked; event_measures and event_measures_summary score
-- it with measures_report, on every measure an IR tool names.

-- _ndcg_judged_rows(rankings, events, ...every option of judged_run...)
--   -> TABLE(_key STRUCT(<query_col>, <slice_by columns>), _i, rel DOUBLE, rnk DOUBLE)
-- judged_run with the query and its slices in one struct key (internal): the query key that
-- measures_report groups by when a report has slices.
CREATE OR REPLACE MACRO _ndcg_judged_rows(rankings, events, slice_by := NULL, query_col := NULL,
                                          item_col := NULL, position_col := NULL,
                                          score_col := NULL, ties := NULL, gain := NULL,
                                          duplicates := NULL, event_col := NULL, mapping := NULL,
                                          collapse := NULL, time_col := NULL, unknown := NULL,
                                          value_col := NULL, value_grades := NULL, bucket := NULL,
                                          start := NULL, stop := NULL,
                                          rankings_time_col := NULL) AS TABLE
WITH _ndcg_logged AS (
    -- the (query, item) pairs an event of a graded type names (grade 0 included: an impression):
    -- judged, as for the report's judged_at_k; a shown item without one is unjudged
    SELECT DISTINCT COLUMNS(lambda c: c = query_col) AS _lq, COLUMNS(lambda c: c = item_col) AS _li
    FROM query_table(events)
    WHERE _ndcg_event_grade(COLUMNS(lambda c: c = event_col), _ndcg_mapping(mapping)) IS NOT NULL
)
SELECT _key, _j.i AS _i, CASE WHEN _lq IS NOT NULL THEN _j.rel END::DOUBLE AS rel,
       _j.rnk::DOUBLE AS rnk
FROM (
    -- k NULL: whole rankings; a metric scored over the judged run named (hit_rate), so that the
    -- engine builds each ranking's judged run (the shown rows in order, rnk the tie group's
    -- start, then the graded items not shown, rnk NULL)
    SELECT _key, unnest(_judged) AS _j
    FROM _ndcg_report_rows(rankings, events, k := NULL,
                           slice_by := CASE WHEN bucket IS NULL THEN _ndcg_slice_list(slice_by)
                                            ELSE list_append(_ndcg_slice_list(slice_by), 'bucket')
                                       END,
                           query_col := query_col, item_col := item_col,
                           position_col := position_col, score_col := score_col, ties := ties,
                           -- (checked below, in the judge's words: grades only)
                           gain := CASE WHEN gain::VARCHAR = 'value' THEN 'value'
                                        ELSE 'linear' END,
                           log_base := 2, empty_ideal := 0.0,
                           duplicates := duplicates, event_col := event_col,
                           mapping := _ndcg_mapping(mapping), collapse := collapse,
                           time_col := time_col, unknown := unknown,
                           metrics := ['ndcg', 'hit_rate'], threshold := 1,
                           max_grade := 'mapping', judged := false, value_col := value_col,
                           value_grades := value_grades, bucket := bucket, start := start,
                           stop := stop, rankings_time_col := rankings_time_col)
) AS _r
LEFT JOIN _ndcg_logged ON _lq = _key[query_col] AND _li = _j.i
-- a judged run holds grades: each measure names its own gains (a check on the rows, not inside
-- the engine's COLUMNS lambdas, which take constants only)
WHERE CASE WHEN coalesce(gain::VARCHAR IN ('linear', 'value'), false) THEN true
           ELSE error('duckdb_ndcg: gain must be ''linear'' or ''value'', got '
                      || coalesce('''' || gain::VARCHAR || '''', 'NULL') || ' (a judged run '
                      || 'holds grades, ''value'' the events'' value as the grade; each measure '
                      || 'names its gains: nDCG(dcg=''exp-log2'')@10)') END;

-- judged_run(rankings, events, slice_by := [], query_col := 'query_id', item_col := 'item_id',
--            position_col := 'position', score_col := NULL, ties := 'average',
--            gain := 'linear', duplicates := 'error', event_col := 'event_type',
--            mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error',
--            value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL,
--            stop := NULL, rankings_time_col := 'shown_at')
--   -> TABLE(<query_col>, <slice_by columns>, [bucket], item_id, rel DOUBLE, rnk DOUBLE)
-- What users did, as a judged run (qrels and run in one table): one row per shown item of every
-- (slice, query) of `rankings`, with its grade from the events and its rank, then the items the
-- events grade but the ranking did not show, rnk NULL. The table measures_report and run_report
-- score (the columns are their defaults: item_id holds item_col's values), judged exactly as
-- ndcg_report judges:
--   rel   the item's grade (event_relevance's: mapping, collapse, time_col, unknown, value_col,
--         value_grades; gain := 'value' makes each event's value its grade; other gains leave
--         grades as they are); NULL when no event of a graded type names the item (unjudged: an
--         item the log never shows a reaction to, impression included); 0 for an item whose
--         events are all of types graded 0.
--   rnk   the position in the ranking, 1 = first: tie groups (equal position_col, or equal
--         score_col with ties := 'average') share their first position; ties := 'key' breaks
--         them by item descending, as trec_eval does (and as measures_report breaks equal rnk).
-- Every other option is ndcg_report's, with the same checks: keys of one kind, NULL keys, an
-- item shown twice (duplicates := 'error'; 'allow' keeps every showing, the extra ones rnk
-- NULL), the time window [start, stop) and the slice column bucket.
-- Example: CREATE TABLE run AS FROM judged_run('impressions', 'events');
--          SELECT * FROM measures_summary('run', 'nDCG@10 P@5 RR Judged@10');
CREATE OR REPLACE MACRO judged_run(rankings, events, slice_by := []::VARCHAR[],
                                   query_col := 'query_id', item_col := 'item_id',
                                   position_col := 'position', score_col := NULL,
                                   ties := 'average', gain := 'linear', duplicates := 'error',
                                   event_col := 'event_type', mapping := NULL, collapse := 'max',
                                   time_col := NULL, unknown := 'error', value_col := 'value',
                                   value_grades := NULL, bucket := NULL, start := NULL,
                                   stop := NULL, rankings_time_col := 'shown_at') AS TABLE
SELECT unnest(_key), _i AS item_id, rel, rnk
FROM _ndcg_judged_rows(rankings, events, slice_by := slice_by, query_col := query_col,
                       item_col := item_col, position_col := position_col,
                       score_col := score_col, ties := ties, gain := gain,
                       duplicates := duplicates, event_col := event_col, mapping := mapping,
                       collapse := collapse, time_col := time_col, unknown := unknown,
                       value_col := value_col, value_grades := value_grades, bucket := bucket,
                       start := start, stop := stop, rankings_time_col := rankings_time_col);

-- event_measures(rankings, events, measures, grammar := NULL, slice_by := [],
--                query_col := 'query_id', item_col := 'item_id', position_col := 'position',
--                score_col := NULL, ties := 'average', gain := 'linear',
--                event_col := 'event_type', mapping := NULL, collapse := 'max',
--                time_col := NULL, unknown := 'error', value_col := 'value',
--                value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
--                rankings_time_col := 'shown_at')
--   -> TABLE(<query_col>, <slice_by columns>, [bucket], measure VARCHAR, value DOUBLE)
-- Every (slice, query) of `rankings`, judged by the events as ndcg_report judges them
-- (judged_run), scored on each measure of the string measures as IR tools write them (nDCG@10,
-- P(rel=2)@5, RR, AP, Judged@10, bpref, ndcg_cut.5,10, precision@5-l2; parse_measures reads
-- them): measures_report over the judged run, one row per (slice, query, measure), the measures
-- in the order given. Each measure names its cutoff, relevance level and gains, so the report's
-- k, metrics, threshold and NDCG conventions are not options here; equal ranks are broken by
-- item descending, as trec_eval and ir_measures break equal scores. An item the ranking shows
-- twice is an error (a measure scores each item once). The other options are judged_run's.
-- Kept apart from ndcg_report: planning every measure's aggregate costs about a second on a
-- one-row log, which DuckDB 1.4 would pay on every report call (benchmarks/results/
-- design_timings.md).
-- Example: SELECT * FROM event_measures('impressions', 'events', 'nDCG@10 P@5 RR Judged@10');
CREATE OR REPLACE MACRO event_measures(rankings, events, measures, grammar := NULL,
                                       slice_by := []::VARCHAR[], query_col := 'query_id',
                                       item_col := 'item_id', position_col := 'position',
                                       score_col := NULL, ties := 'average', gain := 'linear',
                                       event_col := 'event_type', mapping := NULL,
                                       collapse := 'max', time_col := NULL, unknown := 'error',
                                       value_col := 'value', value_grades := NULL, bucket := NULL,
                                       start := NULL, stop := NULL,
                                       rankings_time_col := 'shown_at') AS TABLE
WITH _ndcg_event_run AS (
    SELECT * FROM _ndcg_judged_rows(rankings, events, slice_by := slice_by, query_col := query_col,
                                    item_col := item_col, position_col := position_col,
                                    score_col := score_col, ties := ties, gain := gain,
                                    duplicates := 'error', event_col := event_col,
                                    mapping := mapping, collapse := collapse, time_col := time_col,
                                    unknown := unknown, value_col := value_col,
                                    value_grades := value_grades, bucket := bucket, start := start,
                                    stop := stop, rankings_time_col := rankings_time_col)
)
-- the query key is the struct of the query and its slices: measures_report groups by it
SELECT unnest(query_id), measure, value
FROM measures_report('_ndcg_event_run', measures, grammar := grammar, query_col := '_key',
                     item_col := '_i');

-- event_measures_summary(rankings, events, measures, grammar := NULL, slice_by := [],
--                        query_col := 'query_id', item_col := 'item_id',
--                        position_col := 'position', score_col := NULL, ties := 'average',
--                        gain := 'linear', event_col := 'event_type', mapping := NULL,
--                        collapse := 'max', time_col := NULL, unknown := 'error',
--                        value_col := 'value', value_grades := NULL, bucket := NULL,
--                        start := NULL, stop := NULL, rankings_time_col := 'shown_at')
--   -> TABLE(<slice_by columns>, [bucket], measure VARCHAR, value DOUBLE, queries BIGINT)
-- Each measure of event_measures combined over the queries of each slice, as measures_summary
-- combines them: the mean (summed in query order, as trec_eval sums), the sum for the counts
-- (NumQ, NumRet, NumRel, ...) and the geometric mean for gm_map and gm_bpref; queries the number
-- of queries. Slices in order, then the measures in the order given.
-- Example: SELECT * FROM event_measures_summary('impressions', 'events', 'nDCG@10 MAP',
--                                               slice_by := ['device']);
CREATE OR REPLACE MACRO event_measures_summary(rankings, events, measures, grammar := NULL,
                                               slice_by := []::VARCHAR[], query_col := 'query_id',
                                               item_col := 'item_id', position_col := 'position',
                                               score_col := NULL, ties := 'average',
                                               gain := 'linear', event_col := 'event_type',
                                               mapping := NULL, collapse := 'max',
                                               time_col := NULL, unknown := 'error',
                                               value_col := 'value', value_grades := NULL,
                                               bucket := NULL, start := NULL, stop := NULL,
                                               rankings_time_col := 'shown_at') AS TABLE
SELECT * EXCLUDE (_ndcg_position)
FROM (
    -- (the summary rule through any_value: GROUP BY ALL does not group a column an aggregate's
    -- CASE reads; each measure has one)
    SELECT COLUMNS(lambda c: c NOT IN (query_col, '_ndcg_key', 'value', '_ndcg_summary')),
           _ndcg_measure_mean(any_value(_ndcg_summary), value, _ndcg_key) AS value,
           count(*) AS queries
    FROM (
        -- the key (slices and query, in that order of importance for the sums' order)
        SELECT *, struct_pack(*COLUMNS(lambda c: c NOT IN ('measure', 'value'))) AS _ndcg_key
        FROM event_measures(rankings, events, measures, grammar := grammar, slice_by := slice_by,
                            query_col := query_col, item_col := item_col,
                            position_col := position_col, score_col := score_col, ties := ties,
                            gain := gain, event_col := event_col, mapping := mapping,
                            collapse := collapse, time_col := time_col, unknown := unknown,
                            value_col := value_col, value_grades := value_grades,
                            bucket := bucket, start := start, stop := stop,
                            rankings_time_col := rankings_time_col)
    ) AS r
    JOIN (SELECT measure, position AS _ndcg_position, summary AS _ndcg_summary
          FROM parse_measures(measures, grammar := grammar)) USING (measure)
    GROUP BY ALL
)
-- the slices, then _ndcg_position (the last of the columns kept: never an empty list)
ORDER BY COLUMNS(lambda c: c NOT IN ('measure', 'value', 'queries'));
