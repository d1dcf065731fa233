-- Two rankers compared on the same events: per query, summarised with tests and intervals, and as
-- an A/B test.

-- _ndcg_compare_pairs(rankings_a, rankings_b, events, k := ..., slice_by := ..., query_set := ...,
--                     missing := ..., ...every option of compare_rankers..., judged := ...)
--   -> TABLE(_key STRUCT(query and slice columns), _k, ndcg_a, ndcg_b DOUBLE, filled VARCHAR,
--            _in BOOLEAN, judged_a, judged_b DOUBLE)
-- The per-query NDCG of two rankers side by side (internal; compare_rankers, compare_summary):
-- every (slice, query, cutoff) either ranker showed, a ranker that did not show it scoring 0
-- (`filled` names it), and _in, whether query_set keeps the row. missing = 'error' raises on a
-- kept row that needed filling. judged := true adds each ranker's judged@k of the query
-- (_ndcg_report_rows' judged_at_k; NULL for a ranker that did not show it, and when judged is
-- false). See compare_rankers for the parameters.
CREATE OR REPLACE MACRO _ndcg_compare_pairs(rankings_a, rankings_b, events, k := NULL,
                                            slice_by := NULL, query_set := NULL, missing := NULL,
                                            query_col := NULL, item_col := NULL,
                                            position_col := NULL, score_col := NULL, ties := NULL,
                                            gain := NULL, log_base := NULL, empty_ideal := NULL,
                                            duplicates := NULL, event_col := NULL, mapping := NULL,
                                            collapse := NULL, time_col := NULL, unknown := NULL,
                                            judged := NULL) AS TABLE
SELECT coalesce(a._key, b._key) AS _key, coalesce(a._k, b._k) AS _k,
       CASE WHEN a._key IS NULL THEN 0.0 ELSE a.ndcg END AS ndcg_a,
       CASE WHEN b._key IS NULL THEN 0.0 ELSE b.ndcg END AS ndcg_b,
       CASE
           WHEN query_set IS NULL OR query_set NOT IN ('both', 'either', 'a', 'b') THEN
               error('duckdb_ndcg: query_set must be ''both'', ''either'', ''a'' or ''b'', got '
                     || coalesce('''' || query_set || '''', 'NULL'))
           WHEN missing IS NULL OR missing NOT IN ('zero', 'error') THEN
               error('duckdb_ndcg: missing must be ''zero'' or ''error'', got '
                     || coalesce('''' || missing || '''', 'NULL'))
           WHEN (a._key IS NULL AND query_set IN ('either', 'b')
                 OR b._key IS NULL AND query_set IN ('either', 'a')) AND missing = 'error' THEN
               error('duckdb_ndcg: query ' || to_json(coalesce(a._key, b._key))
                     || ' was shown by ranker ' || CASE WHEN a._key IS NULL THEN 'B' ELSE 'A' END
                     || ' only (query_set := ''' || query_set
                     || '''; pass missing := ''zero'' to score it 0 for the other)')
           WHEN a._key IS NULL THEN 'a'
           WHEN b._key IS NULL THEN 'b'
       END AS filled,
       (a._key IS NOT NULL OR query_set IN ('either', 'b'))
           AND (b._key IS NOT NULL OR query_set IN ('either', 'a')) AS _in,
       a.judged_at_k AS judged_a, b.judged_at_k AS judged_b
FROM _ndcg_report_rows(rankings_a, events, k := k, slice_by := _ndcg_slice_list(slice_by),
                       query_col := query_col, item_col := item_col, position_col := position_col,
                       score_col := score_col, ties := ties, gain := gain, log_base := log_base,
                       empty_ideal := empty_ideal, duplicates := duplicates, event_col := event_col,
                       mapping := _ndcg_mapping(mapping), collapse := collapse,
                       time_col := time_col, unknown := unknown, metrics := ['ndcg'],
                       threshold := 1, max_grade := 'mapping', judged := judged,
                       value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL,
                       stop := NULL, rankings_time_col := 'shown_at') AS a
FULL JOIN _ndcg_report_rows(rankings_b, events, k := k, slice_by := _ndcg_slice_list(slice_by),
                            query_col := query_col, item_col := item_col,
                            position_col := position_col, score_col := score_col, ties := ties,
                            gain := gain, log_base := log_base, empty_ideal := empty_ideal,
                            duplicates := duplicates, event_col := event_col,
                            mapping := _ndcg_mapping(mapping), collapse := collapse,
                            time_col := time_col, unknown := unknown, metrics := ['ndcg'],
                            threshold := 1, max_grade := 'mapping', judged := judged,
                            value_col := 'value', value_grades := NULL, bucket := NULL,
                            start := NULL, stop := NULL, rankings_time_col := 'shown_at') AS b
    ON a._key = b._key AND a._k IS NOT DISTINCT FROM b._k;

-- _ndcg_checked_overlap(shared, total, key, query_col, what): 0 when the rankers both showed at
-- least half of the queries either showed in a (slice, cutoff or measure), else an error
-- (internal; compare_summary, compare_measures). key is one query's key (query and slice
-- columns), what the score compared: a cutoff (NDCG@k; NULL: NDCG) or a measure's label. Fewer shared
-- queries than that is an A/B test (each query served by one arm) or nearly one: the paired
-- tests compared nothing (query_set 'both': 0 queries) or mostly zero-filled pairs ('either',
-- 'a', 'b'); the unpaired comparison is Welch's test of each arm's own queries.
CREATE OR REPLACE MACRO _ndcg_checked_overlap(shared, total, key, query_col, what) AS
CASE WHEN 2 * shared >= total THEN 0::BIGINT
     ELSE error('duckdb_ndcg: rankers A and B both showed ' || shared::VARCHAR || ' of the '
                || total::VARCHAR || ' queries'
                || list_transform([json_merge_patch(to_json(key), json_object(query_col, NULL))],
                                  lambda s: CASE WHEN s = '{}' THEN '' ELSE ' of slice ' || s END)[1]
                || ' at ' || CASE WHEN typeof(what) = 'VARCHAR' THEN what::VARCHAR
                                  ELSE 'NDCG' || coalesce('@' || what::VARCHAR, '') END
                || ' (fewer than half): a paired comparison does not apply; for an A/B test '
                || '(each query served by one arm) compare the arms unpaired (Welch): '
                -- the flag's two dashes spelled with repeat(): the plain script (duckdb-ndcg
                -- script) holds no '--', which tools read as a comment
                || 'compare(..., unpaired=True), duckdb-ndcg compare ' || repeat('-', 2)
                || 'unpaired, or ab_summary '
                || 'over one table with an arm column')
END;

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
    FROM _ndcg_compare_pairs(rankings_a, rankings_b, events, k := k, slice_by := slice_by,
                             query_set := query_set, missing := missing, query_col := query_col,
                             item_col := item_col, position_col := position_col,
                             score_col := score_col, ties := ties, gain := gain,
                             log_base := log_base, empty_ideal := empty_ideal,
                             duplicates := duplicates, event_col := event_col, mapping := mapping,
                             collapse := collapse, time_col := time_col, unknown := unknown,
                             judged := false)
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

-- _ndcg_paired_summary(pairs, query_col := ..., test := ..., conf := ..., correction := ...,
--                      alpha := ..., eps := ..., resamples := ..., seed := ...)
--   -> TABLE(<the pairs' group columns>, queries, mean_a, mean_b, mean_diff, ci_low, ci_high,
--            p_value, p_adjusted, reject, test, correction, wins, ties, losses, queries_filled,
--            queries_dropped, judged_a, judged_b)
-- The paired tests of two rankers' per-query scores (internal; compare_summary over NDCG@k,
-- compare_measures over measures): `pairs` names a table (a CTE of the caller) holding per
-- (group, query) the query column, the group columns (slices, k or measure), _ndcg_a, _ndcg_b
-- (the scores), _filled (the ranker whose score was filled, NULL), _in (kept by the query set),
-- _qkey (the query's key struct), _what (the cutoff or the measure, for the overlap error), _judged_a
-- and _judged_b; each group aggregated directly, without windows. See compare_summary.
CREATE OR REPLACE MACRO _ndcg_paired_summary(pairs, query_col := NULL, test := NULL,
                                             conf := NULL, correction := NULL, alpha := NULL,
                                             eps := NULL, resamples := NULL, seed := NULL) AS TABLE
WITH _ndcg_compare_rows AS (
    -- aggregates over the per-query pairs (no windows); a pair the query set leaves out is seen
    -- as NULL by the tests (dropped) and counted in queries_dropped
    SELECT COLUMNS(lambda c: c NOT IN [query_col, '_ndcg_a', '_ndcg_b', '_filled', '_in',
                                       '_qkey', '_what', '_judged_a', '_judged_b']),
           -- shift 0: streamed sums, no list per group (NDCG differences lie in [-1, 1])
           paired_ttest(CASE WHEN _in THEN _ndcg_b END, _ndcg_a, conf := conf, shift := 0.0)
               AS _t,
           -- the other tests see NULL pairs (nothing to do) unless chosen
           wilcoxon_test(CASE WHEN _in AND test = 'wilcoxon' THEN _ndcg_b END, _ndcg_a).p_value
               AS _wilcoxon,
           sign_test(CASE WHEN _in AND test = 'sign' THEN _ndcg_b END, _ndcg_a).p_value AS _sign,
           randomization_test(CASE WHEN _in AND test = 'randomization' THEN _ndcg_b END, _ndcg_a,
                              resamples := resamples, seed := seed).p_value AS _randomization,
           win_tie_loss(CASE WHEN _in THEN _ndcg_b END, _ndcg_a, eps := eps) AS _wtl,
           count(_filled) FILTER (WHERE _in) AS queries_filled,
           count(*) FILTER (WHERE NOT _in)
               -- fewer than half of the queries shown by both: an error naming the A/B path
               + _ndcg_checked_overlap(count(*) FILTER (WHERE _filled IS NULL), count(*),
                                       any_value(_qkey), query_col, any_value(_what))
               AS queries_dropped,
           avg(_judged_a) FILTER (WHERE _in) AS judged_a,
           avg(_judged_b) FILTER (WHERE _in) AS judged_b
    FROM query_table(pairs)
    GROUP BY ALL
),
_ndcg_compare_tests AS (
    SELECT * EXCLUDE (_t, _wilcoxon, _sign, _randomization, _wtl),
           _t.n AS queries, _t.mean_a, _t.mean_b, _t.mean_diff, _t.ci_low, _t.ci_high,
           CASE test
               WHEN 't' THEN _t.p_value
               WHEN 'wilcoxon' THEN _wilcoxon
               WHEN 'sign' THEN _sign
               WHEN 'randomization' THEN _randomization
               ELSE error('duckdb_ndcg: test must be ''t'', ''wilcoxon'', ''sign'' or '
                          || '''randomization'', got ' || coalesce('''' || test || '''', 'NULL'))
           END AS p_value,
           -- `ties` renamed on the way: a caller's parameter of that name (compare_summary's)
           -- would shadow the column
           _wtl.wins, _wtl.ties AS _ties, _wtl.losses
    FROM _ndcg_compare_rows
)
SELECT COLUMNS(lambda c: c NOT IN ['queries', 'mean_a', 'mean_b', 'mean_diff', 'ci_low',
                                   'ci_high', 'p_value', 'p_adjusted', 'reject', 'wins', '_ties',
                                   'losses', 'queries_filled', 'queries_dropped', 'judged_a',
                                   'judged_b']),
       queries, mean_a, mean_b, mean_diff, ci_low, ci_high, p_value,
       CASE WHEN correction = 'none' THEN p_value ELSE p_adjusted END AS p_adjusted,
       CASE WHEN correction = 'none' THEN p_value <= alpha ELSE reject END AS reject,
       test::VARCHAR AS test, correction::VARCHAR AS correction,
       wins, _ties AS ties, losses, queries_filled, queries_dropped, judged_a, judged_b
FROM p_adjust('_ndcg_compare_tests', p_col := 'p_value',
              method := _ndcg_correction_method(correction),
              alpha := alpha)
ORDER BY ALL;

-- compare_summary(rankings_a, rankings_b, events, k := 10, slice_by := [], test := 't',
--                 conf := 0.95, correction := 'holm', alpha := 0.05, query_set := 'both',
--                 missing := 'zero', eps := 0.0, resamples := 10000, seed := 42,
--                 ...every other ndcg_report parameter)
--   -> TABLE(<slice_by columns>, k BIGINT, queries BIGINT, mean_a, mean_b, mean_diff, ci_low,
--            ci_high, p_value, p_adjusted DOUBLE, reject BOOLEAN, test, correction VARCHAR,
--            wins, ties, losses, queries_filled, queries_dropped BIGINT, judged_a, judged_b DOUBLE)
-- Is B better than A? One row per (slice, cutoff) over the per-query NDCG that compare_rankers
-- lists (same query_set, missing and report parameters; aggregated directly, without its
-- windows): the means, mean_diff = mean_b - mean_a, its conf t-interval [ci_low, ci_high]
-- (paired_ttest), the two-sided p-value of `test`, the p-values corrected across all rows of
-- the result (test and correction name the two, so a row says how it was computed), and B's
-- wins, ties and losses (|diff| <= eps is a tie).
--   test        't' (paired_ttest), 'wilcoxon' (wilcoxon_test), 'sign' (sign_test),
--               'randomization' (randomization_test with resamples and seed; costs
--               resamples x queries per row).
--   correction  'holm', 'bonferroni', 'bh' (p_adjust; one family: every row of the result) or
--               'none'; reject = p_adjusted <= alpha in that sense.
-- queries_filled and queries_dropped are compare_rankers' counts (queries one ranker did not show,
-- scored 0 for it, or left out). When the rankers both showed fewer than half of the queries
-- either showed in a (slice, cutoff), whatever query_set, the result is an error: that is an A/B
-- test (each query served by one arm), for Welch's unpaired test (ab_summary) instead.
-- judged_a and judged_b are each ranker's mean judged@k over the compared queries it showed: the
-- share of its first k items that the events judge (an event of a graded type, 0 included, for
-- that query and item; ndcg_report's judged_at_k). An offline replay's items never shown to anyone
-- are unjudged and score 0 as if seen and ignored, so a low share means the verdict rests on
-- guesses (evaluate() and the CLI warn below 0.9).
--   measures  measures := 'nDCG@10 P(rel=2)@5 RR' scores measure strings as IR tools write them
--             (parse_measures reads them) instead: an overload, compare_summary(rankings_a,
--             rankings_b, events, measures, grammar := NULL, ...every other compare_summary
--             parameter), that gives compare_measures' rows (<slice_by columns>, measure,
--             queries, mean_a, ...). Each measure names its own cutoff, relevance level and
--             gains, so k, query_set, missing, log_base, empty_ideal and duplicates keep their
--             defaults there (another value is an error naming the option). A call without
--             measures never binds the overload.
-- Example: SELECT * FROM compare_summary('ranker_a', 'ranker_b', 'events', k := [5, 10],
--                                        slice_by := ['device']);
CREATE OR REPLACE MACRO compare_summary(rankings_a, rankings_b, events, k := 10,
                                        slice_by := []::VARCHAR[], test := 't', conf := 0.95,
                                        correction := 'holm', alpha := 0.05,
                                        query_set := 'both', missing := 'zero', eps := 0.0,
                                        resamples := 10000, seed := 42,
                                        query_col := 'query_id', item_col := 'item_id',
                                        position_col := 'position', score_col := NULL,
                                        ties := 'average', gain := 'linear', log_base := 2,
                                        empty_ideal := 0.0, duplicates := 'error',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE (
WITH _ndcg_compared AS (
    -- the per-query pairs of NDCG@k, as _ndcg_paired_summary reads them
    SELECT unnest(_key), _k AS k,
           _ndcg_checked_score(ndcg_a, _key, _k, empty_ideal) AS _ndcg_a,
           _ndcg_checked_score(ndcg_b, _key, _k, empty_ideal) AS _ndcg_b,
           filled AS _filled, _in, _key AS _qkey,
           _k AS _what,
           judged_a AS _judged_a, judged_b AS _judged_b
    FROM _ndcg_compare_pairs(rankings_a, rankings_b, events, k := k, slice_by := slice_by,
                             query_set := query_set, missing := missing, query_col := query_col,
                             item_col := item_col, position_col := position_col,
                             score_col := score_col, ties := ties, gain := gain,
                             log_base := log_base, empty_ideal := empty_ideal,
                             duplicates := duplicates, event_col := event_col,
                             mapping := mapping, collapse := collapse, time_col := time_col,
                             unknown := unknown, judged := true)
)
SELECT *
FROM _ndcg_paired_summary('_ndcg_compared', query_col := query_col, test := test, conf := conf,
                          correction := correction, alpha := alpha, eps := eps,
                          resamples := resamples, seed := seed)
),
-- the measures overload (measures := 'nDCG@10 P@5'): compare_measures' rows
(rankings_a, rankings_b, events, measures, grammar := NULL, k := 10, slice_by := []::VARCHAR[],
 test := 't', conf := 0.95, correction := 'holm', alpha := 0.05, query_set := 'both',
 missing := 'zero', eps := 0.0, resamples := 10000, seed := 42, query_col := 'query_id',
 item_col := 'item_id', position_col := 'position', score_col := NULL, ties := 'average',
 gain := 'linear', log_base := 2, empty_ideal := 0.0, duplicates := 'error',
 event_col := 'event_type', mapping := NULL, collapse := 'max', time_col := NULL,
 unknown := 'error') AS TABLE (
SELECT * FROM compare_measures(
    rankings_a, rankings_b, events,
    -- an option the measures do not read, given: an error naming it
    _ndcg_measures_only(measures, [
        _ndcg_unless_default('k', k, ['10', '[10]']),
        _ndcg_unless_default('query_set', query_set, ['both']),
        _ndcg_unless_default('missing', missing, ['zero']),
        _ndcg_unless_default('log_base', log_base, ['2', '2.0']),
        _ndcg_unless_default('empty_ideal', empty_ideal, ['0', '0.0']),
        _ndcg_unless_default('duplicates', duplicates, ['error'])]),
    grammar := grammar, slice_by := slice_by, test := test, conf := conf,
    correction := correction, alpha := alpha, eps := eps, resamples := resamples, seed := seed,
    query_col := query_col, item_col := item_col, position_col := position_col,
    score_col := score_col, ties := ties, gain := gain, event_col := event_col,
    mapping := mapping, collapse := collapse, time_col := time_col, unknown := unknown)
);

-- compare_measures(rankings_a, rankings_b, events, measures, grammar := NULL, slice_by := [],
--                  test := 't', conf := 0.95, correction := 'holm', alpha := 0.05, eps := 0.0,
--                  resamples := 10000, seed := 42, query_col := 'query_id',
--                  item_col := 'item_id', position_col := 'position', score_col := NULL,
--                  ties := 'average', gain := 'linear', event_col := 'event_type',
--                  mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error',
--                  value_col := 'value', value_grades := NULL, bucket := NULL, start := NULL,
--                  stop := NULL, rankings_time_col := 'shown_at')
--   -> TABLE(<slice_by columns>, [bucket], measure VARCHAR, queries BIGINT, mean_a, mean_b,
--            mean_diff, ci_low, ci_high, p_value, p_adjusted DOUBLE, reject BOOLEAN, test,
--            correction VARCHAR, wins, ties, losses, queries_dropped BIGINT)
-- compare_summary on measure strings: each ranker's rankings judged by the same events
-- (judged_run) and scored on every measure (event_measures), then per (slice, measure) the
-- paired test of B against A over the queries both rankers showed, with compare_summary's
-- columns, tests and corrections (one family: every row of the result). queries_dropped counts
-- the queries only one ranker showed (query_set 'both'); fewer than half shared is an error
-- naming the A/B path, as there. mean_a and mean_b are means over queries, for the counts
-- (NumRet, NumRel) too. The options are event_measures' and compare_summary's tests'.
-- Example: SELECT measure, mean_diff, p_adjusted FROM compare_measures('ranker_a', 'ranker_b',
--                                                  'events', 'nDCG@10 MAP RR');
CREATE OR REPLACE MACRO compare_measures(rankings_a, rankings_b, events, measures, grammar := NULL,
                                         slice_by := []::VARCHAR[], test := 't', conf := 0.95,
                                         correction := 'holm', alpha := 0.05, eps := 0.0,
                                         resamples := 10000, seed := 42,
                                         query_col := 'query_id', item_col := 'item_id',
                                         position_col := 'position', score_col := NULL,
                                         ties := 'average', gain := 'linear',
                                         event_col := 'event_type', mapping := NULL,
                                         collapse := 'max', time_col := NULL, unknown := 'error',
                                         value_col := 'value', value_grades := NULL,
                                         bucket := NULL, start := NULL, stop := NULL,
                                         rankings_time_col := 'shown_at') AS TABLE
WITH _ndcg_run_a AS (
    SELECT * FROM _ndcg_judged_rows(rankings_a, events, slice_by := slice_by,
                                    query_col := query_col, item_col := item_col,
                                    position_col := position_col, score_col := score_col,
                                    ties := ties, gain := gain, duplicates := 'error',
                                    event_col := event_col, mapping := mapping,
                                    collapse := collapse, time_col := time_col, unknown := unknown,
                                    value_col := value_col, value_grades := value_grades,
                                    bucket := bucket, start := start, stop := stop,
                                    rankings_time_col := rankings_time_col)
),
_ndcg_run_b AS (
    SELECT * FROM _ndcg_judged_rows(rankings_b, events, slice_by := slice_by,
                                    query_col := query_col, item_col := item_col,
                                    position_col := position_col, score_col := score_col,
                                    ties := ties, gain := gain, duplicates := 'error',
                                    event_col := event_col, mapping := mapping,
                                    collapse := collapse, time_col := time_col, unknown := unknown,
                                    value_col := value_col, value_grades := value_grades,
                                    bucket := bucket, start := start, stop := stop,
                                    rankings_time_col := rankings_time_col)
),
_ndcg_runs AS (
    -- both judged runs in one table, each query's key tagged with its ranker, so that one
    -- measures_report scores both (planning it costs about a second: once, not twice)
    SELECT {key: _key, ranker: 'a'} AS _key, _i, rel, rnk FROM _ndcg_run_a
    UNION ALL
    SELECT {key: _key, ranker: 'b'} AS _key, _i, rel, rnk FROM _ndcg_run_b
),
_ndcg_compared AS (
    -- the per-query pairs of each measure, as _ndcg_paired_summary reads them: a query one
    -- ranker did not show is left out (_in false), named by the ranker that lacks it
    SELECT unnest(_qkey), *
    FROM (
        SELECT query_id.key AS _qkey, measure,
               any_value(value) FILTER (WHERE query_id.ranker = 'a') AS _ndcg_a,
               any_value(value) FILTER (WHERE query_id.ranker = 'b') AS _ndcg_b,
               CASE WHEN count(*) FILTER (WHERE query_id.ranker = 'a') = 0 THEN 'a'
                    WHEN count(*) FILTER (WHERE query_id.ranker = 'b') = 0 THEN 'b' END
                   AS _filled,
               count(*) = 2 AS _in, measure AS _what, NULL::DOUBLE AS _judged_a,
               NULL::DOUBLE AS _judged_b
        FROM measures_report('_ndcg_runs', measures, grammar := grammar, query_col := '_key',
                             item_col := '_i')
        GROUP BY query_id.key, measure
    )
)
-- the slices in order, then the measures in the order given
SELECT * EXCLUDE (queries_filled, judged_a, judged_b, _ndcg_position)
FROM _ndcg_paired_summary('_ndcg_compared', query_col := query_col, test := test, conf := conf,
                          correction := correction, alpha := alpha, eps := eps,
                          resamples := resamples, seed := seed)
JOIN (SELECT measure, position AS _ndcg_position
      FROM parse_measures(measures, grammar := grammar)) USING (measure)
ORDER BY COLUMNS(lambda c: c NOT IN ['measure', 'queries', 'mean_a', 'mean_b', 'mean_diff',
                                     'ci_low', 'ci_high', 'p_value', 'p_adjusted', 'reject',
                                     'test', 'correction', 'wins', 'ties', 'losses',
                                     'queries_filled', 'queries_dropped', 'judged_a',
                                     'judged_b']);

-- ab_summary(rankings, events, arm_col, k := 10, baseline := NULL, slice_by := [], conf := 0.95,
--            correction := 'holm', alpha := 0.05, ...every other ndcg_report parameter)
--   -> TABLE(<slice_by columns>, k BIGINT, arm, baseline VARCHAR, queries_a, queries_b BIGINT,
--            mean_a, mean_b, mean_diff, ci_low, ci_high, p_value, p_adjusted DOUBLE,
--            reject BOOLEAN, test, correction VARCHAR)
-- An online A/B test: one rankings table holding every arm (column arm_col), so each arm has its
-- own queries. One row per (slice, cutoff, arm other than the baseline): Welch's t-test
-- (welch_ttest) of the arm's per-query NDCG@k (B) against the baseline arm's (A) in the same
-- slice, mean_diff = mean_b - mean_a with its conf t-interval, and p-values corrected across
-- all rows of the result (correction 'holm', 'bonferroni', 'bh' as p_adjust, or 'none';
-- reject = p_adjusted <= alpha in that sense; test is 'welch' and correction the one used, so a
-- row says how it was computed). Arms are compared as text.
--   baseline  the arm_col value of the control arm: required; an error when no row has it.
-- The per-query NDCG is ndcg_report's with slice_by + [arm_col] (same parameters).
-- Example: SELECT * FROM ab_summary('impressions', 'events', 'variant', baseline := 'control',
--                                   k := [5, 10], slice_by := ['device']);
CREATE OR REPLACE MACRO ab_summary(rankings, events, arm_col, k := 10, baseline := NULL,
                                   slice_by := []::VARCHAR[], conf := 0.95,
                                   correction := 'holm', alpha := 0.05,
                                   query_col := 'query_id', item_col := 'item_id',
                                   position_col := 'position', score_col := NULL,
                                   ties := 'average', gain := 'linear', log_base := 2,
                                   empty_ideal := 0.0, duplicates := 'error',
                                   event_col := 'event_type', mapping := NULL, collapse := 'max',
                                   time_col := NULL, unknown := 'error') AS TABLE
WITH _ndcg_ab_names AS (
    -- the table's name for the message below, taken where no column is in scope (a bare name
    -- would otherwise bind as a column of the rows)
    SELECT _ndcg_table_name(rankings) AS _rankings_name
),
_ndcg_ab_rows AS (
    SELECT *, COLUMNS(lambda c: c = arm_col)::VARCHAR AS _arm
    FROM (
        SELECT unnest(_key), _k AS k, _ndcg_checked_score(ndcg, _key, _k, empty_ideal) AS _ndcg
        FROM _ndcg_report_rows(rankings, events, k := k,
                               slice_by := list_concat(_ndcg_slice_list(slice_by), [arm_col]),
                               query_col := query_col, item_col := item_col,
                               position_col := position_col, score_col := score_col, ties := ties,
                               gain := gain, log_base := log_base, empty_ideal := empty_ideal,
                               duplicates := duplicates, event_col := event_col,
                               mapping := _ndcg_mapping(mapping), collapse := collapse,
                               time_col := time_col, unknown := unknown, metrics := ['ndcg'],
                               threshold := 1, max_grade := 'mapping', judged := false,
                               value_col := 'value', value_grades := NULL, bucket := NULL,
                               start := NULL, stop := NULL, rankings_time_col := 'shown_at')
    )
),
_ndcg_ab_arms AS (
    SELECT DISTINCT _arm AS _treatment
    FROM _ndcg_ab_rows
    WHERE CASE
              WHEN baseline IS NULL THEN
                  error('duckdb_ndcg: ab_summary needs baseline := <the control arm''s value of '
                        || arm_col || '>')
              WHEN NOT (SELECT bool_or(_arm = baseline::VARCHAR) FROM _ndcg_ab_rows) THEN
                  error('duckdb_ndcg: no row of ' || (SELECT _rankings_name FROM _ndcg_ab_names)
                        || ' has ' || arm_col || ' = '
                        || baseline::VARCHAR || ' (baseline)')
              ELSE _arm <> baseline::VARCHAR
          END
),
_ndcg_ab_tests AS (
    SELECT COLUMNS(lambda c: c NOT IN [query_col, arm_col, '_ndcg', '_arm', '_treatment']),
           _treatment AS arm,
           -- shift 0: NDCG lies in [0, 1]; streamed sums, no list per arm
           welch_ttest(_ndcg, _arm = _treatment, conf := conf, shift := 0.0) AS _w
    FROM _ndcg_ab_rows JOIN _ndcg_ab_arms ON _arm IN (_treatment, baseline::VARCHAR)
    GROUP BY ALL
),
_ndcg_ab_p AS (
    SELECT *, _w.p_value AS p_value FROM _ndcg_ab_tests
)
SELECT COLUMNS(lambda c: c NOT IN ['_w', 'p_value', 'p_adjusted', 'reject', 'arm']),
       arm,
       baseline::VARCHAR AS baseline,
       _w.n_a AS queries_a, _w.n_b AS queries_b, _w.mean_a, _w.mean_b, _w.mean_diff, _w.ci_low,
       _w.ci_high, p_value,
       CASE WHEN correction = 'none' THEN p_value ELSE p_adjusted END AS p_adjusted,
       CASE WHEN correction = 'none' THEN p_value <= alpha ELSE reject END AS reject,
       'welch' AS test, correction::VARCHAR AS correction
FROM p_adjust('_ndcg_ab_p', p_col := 'p_value',
              method := _ndcg_correction_method(correction),
              alpha := alpha)
ORDER BY ALL;
