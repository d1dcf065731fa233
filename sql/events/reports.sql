-- The report and its summary: every ranking's metrics per query and k, and their means per slice.

-- _ndcg_report_of(rankings, events, ...every ndcg_report option := NULL)
-- ndcg_report's rows (internal): the body its first and its preset signature share (the
-- preset one reads other events and options); every option by name.
CREATE OR REPLACE MACRO _ndcg_report_of(rankings, events, k := NULL, slice_by := NULL,
                                        query_col := NULL, item_col := NULL, position_col := NULL,
                                        score_col := NULL, ties := NULL, gain := NULL,
                                        log_base := NULL, empty_ideal := NULL, duplicates := NULL,
                                        event_col := NULL, mapping := NULL, collapse := NULL,
                                        time_col := NULL, unknown := NULL, metrics := NULL,
                                        threshold := NULL, max_grade := NULL, value_col := NULL,
                                        value_grades := NULL, bucket := NULL, start := NULL,
                                        stop := NULL, rankings_time_col := NULL) AS TABLE
-- relevant, then the family columns named (COLUMNS keeps the engine's column order)
SELECT unnest(_key), _k AS k, ndcg, dcg, idcg, shown, shown_relevant,
       COLUMNS(lambda c: c = 'relevant'
                         OR (c <> 'ndcg' AND list_contains(_ndcg_report_metrics(), c)
                             AND coalesce(list_contains(metrics, c), false)))
FROM _ndcg_report_metric_rows(rankings, events, k := k, slice_by := slice_by,
                              query_col := query_col, item_col := item_col,
                              position_col := position_col, score_col := score_col, ties := ties,
                              gain := gain, log_base := log_base, empty_ideal := empty_ideal,
                              duplicates := duplicates, event_col := event_col, mapping := mapping,
                              collapse := collapse, time_col := time_col, unknown := unknown,
                              metrics := metrics, threshold := threshold, max_grade := max_grade,
                              judged := false, value_col := value_col, value_grades := value_grades,
                              bucket := bucket, start := start, stop := stop,
                              rankings_time_col := rankings_time_col);

-- ndcg_report(rankings, events, k := 10, slice_by := [], query_col := 'query_id',
--             item_col := 'item_id', position_col := 'position', score_col := NULL,
--             ties := 'average', gain := 'linear', log_base := 2, empty_ideal := 0.0,
--             duplicates := 'error', event_col := 'event_type', mapping := NULL,
--             collapse := 'max', time_col := NULL, unknown := 'error', metrics := ['ndcg'],
--             threshold := 1, max_grade := 'mapping', value_col := 'value',
--             value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
--             rankings_time_col := 'shown_at')
--   -> TABLE(<query_col>, <slice_by columns>, k BIGINT, ndcg, dcg, idcg DOUBLE,
--            shown, shown_relevant, relevant BIGINT, <one DOUBLE column per family metric named>)
-- NDCG@k of every query a ranker showed, judged by what users did: `rankings` (a table name) holds
-- what was shown (query, item, position or score), `events` (a table name) what users did; events
-- become grades with event_relevance (mapping, collapse, time_col, unknown, event_col: see there).
-- A table name is text ('events', 'logs.events'); a bare name (events, logs.events) works too.
-- Long format, one row per (slice, query, cutoff): k := [1, 5, 10] gives three rows per query, so
-- any number of cutoffs keeps one schema and `GROUP BY k` gives the means (ndcg_summary does).
--   k             a cutoff or a list of them; NULL = no cutoff (whole ranking, IDCG over every
--                 graded item: trec_eval ndcg). A cutoff k cuts DCG and IDCG at k (ndcg_cut.k).
--   slice_by      names of slice columns (day, device, variant). A column of `rankings`: each
--                 (slice, query) is its own ranking, judged by the same events (they join on
--                 query and item only). A column only `events` has is a property of the query,
--                 taken per query: NULL values are skipped, a query without events (or with NULL
--                 only) gets NULL, a query whose events hold two values is an error naming the
--                 column and the query. A column both tables have is the rankings' (the events'
--                 values of it are not read). Naming a slice joins the rankings to one pass over
--                 the events grouped by query; without slice_by the rankings are read alone.
--                 One name may be given as text: slice_by := 'device' is ['device']. Naming
--                 the query column is an error (each query is already its own row).
--   position_col  rank column, 1 = top; or score_col, higher = better (then ties decide order:
--                 'average' shares the gain of tied items, 'key' breaks ties by item descending,
--                 as trec_eval does).
--   gain, log_base, empty_ideal: as for the ndcg aggregate; gain may also be 'value': an event
--                 of a type the mapping grades above 0 has its value (value_col) as its grade,
--                 and the gain is linear (revenue-weighted DCG: with collapse := 'sum' an item's
--                 gain is its summed revenue, e.g. mapping := MAP {'impression': 0, 'click': 0,
--                 'purchase': 1}); events of types graded 0 keep 0. compare_rankers,
--                 compare_summary and ab_summary take gain := 'value' too (value_col 'value').
--   value_col, value_grades: grades from a value column, as for event_relevance (value_grades
--                 := MAP {30: 1, 120: 2}: the grade of the largest threshold <= value, 0 below
--                 every threshold, for events of types the mapping grades above 0); value_grades
--                 and gain := 'value' exclude each other. max_grade 'mapping' is then the largest
--                 grade of value_grades.
--   bucket, start, stop, rankings_time_col: time. A query's time is the earliest value of
--                 rankings_time_col (default 'shown_at', as the source adapters write it; a
--                 DATE or TIMESTAMP column, else an error) over its rows, so a list paged past
--                 midnight stays one ranking. start/stop (a DATE, TIMESTAMP or its text
--                 '2026-01-31'; NULL: unbounded) keep the queries whose time t is in the
--                 half-open [start, stop) (a query whose time is NULL is outside). bucket adds
--                 the slice column `bucket` after the slice_by columns: 'day' and 'week' (ISO,
--                 from Monday) give the DATE the bucket starts on, an INTERVAL (INTERVAL 6
--                 HOUR, or '6 hours') the TIMESTAMP of DuckDB's time_bucket; any other value is
--                 an error, and so is a rankings column named bucket. A daily summary:
--                 ndcg_summary('shown', 'events', bucket := 'day').
--   duplicates    'error': an item shown twice among the rows a cutoff reads (those whose tie
--                 group starts within the first max(k) + 1 positions of a (slice, query), all
--                 when k is NULL) is an error naming it; a duplicate further down cannot change
--                 NDCG@k and just counts in `shown`; 'allow': every impression is a ranked row
--                 that gains its item's grade, and the ideal (and `relevant`, and the family's
--                 judged run) holds a graded item as often as the ranking shows it, at any
--                 depth (a graded item never shown: once), so NDCG stays within [0, 1] and
--                 shown_relevant <= relevant.
--   metrics       a list naming some of 'ndcg', 'precision_at_k', 'recall_at_k', 'f1_at_k',
--                 'hit_rate', 'reciprocal_rank', 'average_precision', 'r_precision', 'err', 'rbp',
--                 'judged_at_k' (the aggregates' names; an unknown name, a name listed twice or an
--                 empty list is an error). The columns above are always there (ndcg among them); each family
--                 metric named adds one DOUBLE column of its name after `relevant`, in the order
--                 of that list whatever the order given. Each is exactly its aggregate over the
--                 ranking's judged run (precision_at_k, recall_at_k and f1_at_k are counted by
--                 the engine, in its spilling plan; the others are those aggregates): the shown rows with their grade (0 without events) in the
--                 report's order, and the query's graded items not shown with rnk NULL (in the
--                 ideal, R and the relevant count only), with the report's ties (tie_key: the
--                 item), k (NULL: the whole ranking), threshold and empty_ideal (recall_at_k,
--                 f1_at_k, hit_rate, reciprocal_rank, average_precision, r_precision: the value of
--                 a query with no relevant graded item); the other options at the aggregates'
--                 defaults (denominator 'relevant', rbp p = 0.8). r_precision has no cutoff: it is
--                 the same on every k row of a query. judged_at_k is the share of the first
--                 least(k, shown) rows (all when k is NULL) that are judged: an event of a type
--                 the mapping grades names the (query, item), grade 0 included (an impression);
--                 a tie group straddling k counts its expected share (ties := 'average'). It is
--                 the judged_at_k aggregate over the FULL OUTER JOIN of the ranking with
--                 event_relevance(events) (rel NULL: unjudged); an offline replay's items never
--                 shown to anyone are unjudged, and NDCG scores them 0 all the same.
--   threshold     grade >= threshold is relevant for the family (binary) metrics: any positive
--                 number (default 1: a click; 3 with the default mapping: a purchase).
--   max_grade     err's scale, stop probability (2^grade - 1) / 2^max_grade: 'mapping' (default)
--                 is the largest grade of the mapping (3: purchase with the default mapping), or a
--                 positive number; a grade above it (collapse 'sum' adds grades up) is an error.
-- Rules: the queries are those of `rankings` (events of other queries are ignored); a graded item
-- never shown counts in IDCG only (judged but not returned, as in trec_eval); a shown item without
-- events has grade 0; a query with no positive grade gets ndcg = empty_ideal (an empty events
-- table gives every query empty_ideal). shown = rows shown, shown_relevant = shown with grade > 0,
-- relevant = items with grade > 0 in the events of the query. NULL keys are errors.
-- Memory: the plan is made of hash aggregates, a join and one sort per ranking, which DuckDB
-- spills to disk, so logs larger than memory_limit finish (100M events under 1GB). With only
-- 'ndcg' in metrics (the default) that plan is all that runs. A family metric adds its
-- aggregate per (slice, query, k), whose state DuckDB does not spill: each ranking's first
-- max(k) + 1 rows (top-N heaps for k <= 100, lists beyond; whole rankings for k NULL or
-- r_precision) plus its graded items, once per cutoff, held in memory at once. Planning: with
-- only 'ndcg' named, DuckDB 1.5 and 2.0 do not bind the family's aggregates (about as fast as
-- compare_rankers); naming a family metric binds all nine, a cost per call whatever the
-- data, and so does every call on DuckDB 1.4, which binds CTEs it does not read
-- (benchmarks/results/design_timings.md, benchmarks/report_planning.py).
-- ndcg_summary and compare_rankers use the same plan.
--   measures  measures := 'nDCG@10 P(rel=2)@5 RR' scores measure strings as IR tools write them
--             (parse_measures reads them) instead: an overload, ndcg_report(rankings, events,
--             measures, grammar := NULL, ...every other ndcg_report parameter), that gives
--             event_measures' rows (<query_col>, <slice_by columns>, [bucket], measure, value).
--             Each measure names its own cutoff, relevance level and gains, so k, log_base,
--             empty_ideal, duplicates, metrics, threshold and max_grade keep their defaults
--             there (another value is an error naming the option). A call without measures never
--             binds the overload.
--   preset    preset := 'sklearn' applies a tool's NDCG conventions (a third signature,
--             ndcg_report(rankings, events, preset, ...every other ndcg_report parameter), never
--             bound without preset): 'sklearn' (scikit-learn's ndcg_score), 'lightgbm',
--             'xgboost' (their ndcg metric), 'opensearch_srw' (the Search Relevance Workbench)
--             set ties, gain and empty_ideal, read the events of the shown items only when the
--             tool's ideal holds the ranked items' grades, and round ndcg and dcg as the tool
--             prints them (opensearch_srw: 2 decimals); the rows of
--             duckdb_ndcg.conventions.PRESETS for the report, as evaluate(preset=) applies them.
--             A preset of duckdb-ndcg trec, an option it sets given otherwise, a score column
--             under a tool that orders equal scores its own way, or a metric other than ndcg is
--             one error line.
-- Example: SELECT * FROM ndcg_report('impressions', 'events', k := [5, 10], slice_by := ['device']);
--          SELECT * FROM ndcg_report('impressions', 'events', metrics := ['ndcg', 'recall_at_k']);
CREATE OR REPLACE MACRO ndcg_report(rankings, events, k := 10, slice_by := []::VARCHAR[],
                                    query_col := 'query_id', item_col := 'item_id',
                                    position_col := 'position', score_col := NULL,
                                    ties := 'average', gain := 'linear', log_base := 2,
                                    empty_ideal := 0.0, duplicates := 'error',
                                    event_col := 'event_type', mapping := NULL, collapse := 'max',
                                    time_col := NULL, unknown := 'error', metrics := ['ndcg'],
                                    threshold := 1, max_grade := 'mapping',
                                    value_col := 'value', value_grades := NULL,
                                    bucket := NULL, start := NULL, stop := NULL,
                                    rankings_time_col := 'shown_at') AS TABLE (
SELECT * FROM _ndcg_report_of(rankings, events, k := k, slice_by := slice_by,
    query_col := query_col, item_col := item_col, position_col := position_col,
    score_col := score_col, ties := ties, gain := gain, log_base := log_base,
    empty_ideal := empty_ideal, duplicates := duplicates, event_col := event_col,
    mapping := mapping, collapse := collapse, time_col := time_col, unknown := unknown,
    metrics := metrics, threshold := threshold, max_grade := max_grade, value_col := value_col,
    value_grades := value_grades, bucket := bucket, start := start, stop := stop,
    rankings_time_col := rankings_time_col)
),
-- the measures overload (measures := 'nDCG@10 P@5'): event_measures' rows
(rankings, events, measures, grammar := NULL, k := 10, slice_by := []::VARCHAR[],
 query_col := 'query_id', item_col := 'item_id', position_col := 'position', score_col := NULL,
 ties := 'average', gain := 'linear', log_base := 2, empty_ideal := 0.0, duplicates := 'error',
 event_col := 'event_type', mapping := NULL, collapse := 'max', time_col := NULL,
 unknown := 'error', metrics := ['ndcg'], threshold := 1, max_grade := 'mapping',
 value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
 rankings_time_col := 'shown_at') AS TABLE (
SELECT * FROM event_measures(
    rankings, events,
    -- an option the measures do not read, given: an error naming it
    _ndcg_measures_only(measures, [
        _ndcg_unless_default('k', k, ['10', '[10]']),
        _ndcg_unless_default('log_base', log_base, ['2', '2.0']),
        _ndcg_unless_default('empty_ideal', empty_ideal, ['0', '0.0']),
        _ndcg_unless_default('duplicates', duplicates, ['error']),
        _ndcg_unless_default('metrics', metrics, ['[ndcg]', 'ndcg']),
        _ndcg_unless_default('threshold', threshold, ['1', '1.0']),
        _ndcg_unless_default('max_grade', max_grade, ['mapping'])]),
    grammar := grammar, slice_by := slice_by, query_col := query_col, item_col := item_col,
    position_col := position_col, score_col := score_col, ties := ties, gain := gain,
    event_col := event_col, mapping := mapping, collapse := collapse, time_col := time_col,
    unknown := unknown, value_col := value_col, value_grades := value_grades, bucket := bucket,
    start := start, stop := stop, rankings_time_col := rankings_time_col)
),
-- the preset overload (preset := 'sklearn'): a tool's NDCG conventions
(rankings, events, preset, k := 10, slice_by := []::VARCHAR[], query_col := 'query_id',
 item_col := 'item_id', position_col := 'position', score_col := NULL, ties := 'average',
 gain := 'linear', log_base := 2, empty_ideal := 0.0, duplicates := 'error',
 event_col := 'event_type', mapping := NULL, collapse := 'max', time_col := NULL,
 unknown := 'error', metrics := ['ndcg'], threshold := 1, max_grade := 'mapping',
 value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
 rankings_time_col := 'shown_at') AS TABLE (
WITH _ndcg_preset_read AS (
    -- the preset checked, and the events its report reads
    SELECT * FROM _ndcg_preset_events(
        rankings, events, _ndcg_preset(preset, ties, gain, empty_ideal, score_col, metrics,
                                       false),
        query_col := query_col, item_col := item_col)
)
-- ndcg and dcg rounded as the tool prints them: Java's Math.round(x * 100) / 100, half up
-- (x >= 0), as evaluate(preset=) rounds
SELECT * REPLACE (
    CASE WHEN _ndcg_preset_row(preset).rounding IS NULL THEN ndcg
         ELSE round(ndcg * power(10, _ndcg_preset_row(preset).rounding))
              / power(10, _ndcg_preset_row(preset).rounding) END AS ndcg,
    CASE WHEN _ndcg_preset_row(preset).rounding IS NULL THEN dcg
         ELSE round(dcg * power(10, _ndcg_preset_row(preset).rounding))
              / power(10, _ndcg_preset_row(preset).rounding) END AS dcg)
FROM _ndcg_report_of(rankings, '_ndcg_preset_read', k := k, slice_by := slice_by,
    query_col := query_col, item_col := item_col, position_col := position_col,
    score_col := score_col,
    ties := coalesce(_ndcg_preset_row(preset).ties, ties),
    gain := coalesce(_ndcg_preset_row(preset).gain, gain),
    log_base := log_base,
    empty_ideal := coalesce(_ndcg_preset_row(preset).empty_ideal, empty_ideal),
    duplicates := duplicates, event_col := event_col, mapping := mapping, collapse := collapse,
    time_col := time_col, unknown := unknown, metrics := metrics, threshold := threshold,
    max_grade := max_grade, value_col := value_col, value_grades := value_grades,
    bucket := bucket, start := start, stop := stop, rankings_time_col := rankings_time_col)
);

-- _ndcg_summary_of(rankings, events, ...every ndcg_summary option := NULL)
-- ndcg_summary's rows (internal): the body its first and its preset signature share (the
-- preset one reads other events and options); every option by name.
CREATE OR REPLACE MACRO _ndcg_summary_of(rankings, events, k := NULL, slice_by := NULL,
                                         query_col := NULL, item_col := NULL,
                                         position_col := NULL, score_col := NULL, ties := NULL,
                                         gain := NULL, log_base := NULL, empty_ideal := NULL,
                                         duplicates := NULL, event_col := NULL, mapping := NULL,
                                         collapse := NULL, time_col := NULL, unknown := NULL,
                                         conf := NULL, metrics := NULL, threshold := NULL,
                                         max_grade := NULL, value_col := NULL,
                                         value_grades := NULL, bucket := NULL, start := NULL,
                                         stop := NULL, rankings_time_col := NULL) AS TABLE
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
    FROM _ndcg_report_metric_rows(rankings, events, k := k, slice_by := slice_by,
                                  query_col := query_col, item_col := item_col,
                                  position_col := position_col, score_col := score_col,
                                  ties := ties, gain := gain, log_base := log_base,
                                  empty_ideal := empty_ideal, duplicates := duplicates,
                                  event_col := event_col, mapping := mapping, collapse := collapse,
                                  time_col := time_col, unknown := unknown, metrics := metrics,
                                  threshold := threshold, max_grade := max_grade, judged := true,
                                  value_col := value_col, value_grades := value_grades,
                                  bucket := bucket, start := start, stop := stop,
                                  rankings_time_col := rankings_time_col)
)
GROUP BY ALL
)
ORDER BY ALL;

-- ndcg_summary(rankings, events, k := 10, slice_by := [], conf := 0.95, metrics := ['ndcg'],
--              threshold := 1, max_grade := 'mapping', value_col := 'value',
--              value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
--              rankings_time_col := 'shown_at', ...every other ndcg_report parameter)
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
--   measures  measures := 'nDCG@10 P(rel=2)@5 RR' scores measure strings as IR tools write them
--             (parse_measures reads them) instead: an overload, ndcg_summary(rankings, events,
--             measures, grammar := NULL, ...every other ndcg_summary parameter), that gives
--             event_measures_summary's rows (<slice_by columns>, [bucket], measure, value,
--             queries). Each measure names its own cutoff, relevance level and gains, so k,
--             log_base, empty_ideal, duplicates, conf, metrics, threshold and max_grade keep
--             their defaults there (another value is an error naming the option). A call without
--             measures never binds the overload.
--   preset    preset := 'sklearn' applies a tool's NDCG conventions (a third signature,
--             ndcg_summary(rankings, events, preset, ...every other ndcg_summary parameter),
--             never bound without preset): 'sklearn' (scikit-learn's ndcg_score), 'lightgbm',
--             'xgboost' (their ndcg metric), 'opensearch_srw' (the Search Relevance Workbench)
--             set ties, gain and empty_ideal, read the events of the shown items only when the
--             tool's ideal holds the ranked items' grades, and refuse a rounded preset
--             (opensearch_srw): it has no mean over queries; the rows of
--             duckdb_ndcg.conventions.PRESETS for the report, as evaluate(preset=) applies them.
--             A preset of duckdb-ndcg trec, an option it sets given otherwise, a score column
--             under a tool that orders equal scores its own way, or a metric other than ndcg is
--             one error line.
-- Example: SELECT * FROM ndcg_summary('impressions', 'events', k := [5, 10], slice_by := ['variant']);
CREATE OR REPLACE MACRO ndcg_summary(rankings, events, k := 10, slice_by := []::VARCHAR[],
                                     query_col := 'query_id', item_col := 'item_id',
                                     position_col := 'position', score_col := NULL,
                                     ties := 'average', gain := 'linear', log_base := 2,
                                     empty_ideal := 0.0, duplicates := 'error',
                                     event_col := 'event_type', mapping := NULL, collapse := 'max',
                                     time_col := NULL, unknown := 'error', conf := 0.95,
                                     metrics := ['ndcg'], threshold := 1,
                                     max_grade := 'mapping', value_col := 'value',
                                     value_grades := NULL, bucket := NULL, start := NULL,
                                     stop := NULL, rankings_time_col := 'shown_at') AS TABLE (
SELECT * FROM _ndcg_summary_of(rankings, events, k := k, slice_by := slice_by,
    query_col := query_col, item_col := item_col, position_col := position_col,
    score_col := score_col, ties := ties, gain := gain, log_base := log_base,
    empty_ideal := empty_ideal, duplicates := duplicates, event_col := event_col,
    mapping := mapping, collapse := collapse, time_col := time_col, unknown := unknown,
    conf := conf, metrics := metrics, threshold := threshold, max_grade := max_grade,
    value_col := value_col, value_grades := value_grades, bucket := bucket, start := start,
    stop := stop, rankings_time_col := rankings_time_col)
),
-- the measures overload (measures := 'nDCG@10 P@5'): event_measures_summary's rows
(rankings, events, measures, grammar := NULL, k := 10, slice_by := []::VARCHAR[],
 query_col := 'query_id', item_col := 'item_id', position_col := 'position', score_col := NULL,
 ties := 'average', gain := 'linear', log_base := 2, empty_ideal := 0.0, duplicates := 'error',
 event_col := 'event_type', mapping := NULL, collapse := 'max', time_col := NULL,
 unknown := 'error', conf := 0.95, metrics := ['ndcg'], threshold := 1, max_grade := 'mapping',
 value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
 rankings_time_col := 'shown_at') AS TABLE (
SELECT * FROM event_measures_summary(
    rankings, events,
    -- an option the measures do not read, given: an error naming it
    _ndcg_measures_only(measures, [
        _ndcg_unless_default('k', k, ['10', '[10]']),
        _ndcg_unless_default('log_base', log_base, ['2', '2.0']),
        _ndcg_unless_default('empty_ideal', empty_ideal, ['0', '0.0']),
        _ndcg_unless_default('duplicates', duplicates, ['error']),
        _ndcg_unless_default('conf', conf, ['0.95']),
        _ndcg_unless_default('metrics', metrics, ['[ndcg]', 'ndcg']),
        _ndcg_unless_default('threshold', threshold, ['1', '1.0']),
        _ndcg_unless_default('max_grade', max_grade, ['mapping'])]),
    grammar := grammar, slice_by := slice_by, query_col := query_col, item_col := item_col,
    position_col := position_col, score_col := score_col, ties := ties, gain := gain,
    event_col := event_col, mapping := mapping, collapse := collapse, time_col := time_col,
    unknown := unknown, value_col := value_col, value_grades := value_grades, bucket := bucket,
    start := start, stop := stop, rankings_time_col := rankings_time_col)
),
-- the preset overload (preset := 'sklearn'): a tool's NDCG conventions
(rankings, events, preset, k := 10, slice_by := []::VARCHAR[], query_col := 'query_id',
 item_col := 'item_id', position_col := 'position', score_col := NULL, ties := 'average',
 gain := 'linear', log_base := 2, empty_ideal := 0.0, duplicates := 'error',
 event_col := 'event_type', mapping := NULL, collapse := 'max', time_col := NULL,
 unknown := 'error', conf := 0.95, metrics := ['ndcg'], threshold := 1, max_grade := 'mapping',
 value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL, stop := NULL,
 rankings_time_col := 'shown_at') AS TABLE (
WITH _ndcg_preset_read AS (
    -- the preset checked, and the events its report reads
    SELECT * FROM _ndcg_preset_events(
        rankings, events, _ndcg_preset(preset, ties, gain, empty_ideal, score_col, metrics,
                                       true),
        query_col := query_col, item_col := item_col)
)
SELECT *
FROM _ndcg_summary_of(rankings, '_ndcg_preset_read', k := k, slice_by := slice_by,
    query_col := query_col, item_col := item_col, position_col := position_col,
    score_col := score_col,
    ties := coalesce(_ndcg_preset_row(preset).ties, ties),
    gain := coalesce(_ndcg_preset_row(preset).gain, gain),
    log_base := log_base,
    empty_ideal := coalesce(_ndcg_preset_row(preset).empty_ideal, empty_ideal),
    duplicates := duplicates, event_col := event_col, mapping := mapping, collapse := collapse,
    time_col := time_col, unknown := unknown, conf := conf, metrics := metrics,
    threshold := threshold, max_grade := max_grade, value_col := value_col,
    value_grades := value_grades, bucket := bucket, start := start, stop := stop,
    rankings_time_col := rankings_time_col)
);
