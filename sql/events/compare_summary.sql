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
                                        unknown := 'error') AS TABLE
WITH _ndcg_compare_rows AS (
    -- aggregates over the per-query pairs (no windows); a pair the query set leaves out is seen
    -- as NULL by the tests (dropped) and counted in queries_dropped
    SELECT COLUMNS(lambda c: c NOT IN [query_col, '_ndcg_a', '_ndcg_b', '_filled', '_in',
                                       '_qkey', '_kcut', '_judged_a', '_judged_b']),
           -- shift 0: NDCG differences lie in [-1, 1]; streamed sums, no list per group
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
                                       any_value(_qkey), query_col, any_value(_kcut))
               AS queries_dropped,
           avg(_judged_a) FILTER (WHERE _in) AS judged_a,
           avg(_judged_b) FILTER (WHERE _in) AS judged_b
    FROM (
        SELECT unnest(_key), _k AS k,
               _ndcg_checked_score(ndcg_a, _key, _k, empty_ideal) AS _ndcg_a,
               _ndcg_checked_score(ndcg_b, _key, _k, empty_ideal) AS _ndcg_b,
               filled AS _filled, _in, _key AS _qkey, _k AS _kcut,
               judged_a AS _judged_a, judged_b AS _judged_b
        FROM _ndcg_compare_pairs(rankings_a, rankings_b, events, k, slice_by, query_set, missing,
                                 query_col, item_col, position_col, score_col, ties, gain,
                                 log_base, empty_ideal, duplicates, event_col, mapping, collapse,
                                 time_col, unknown, judged := true)
    )
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
           -- `ties` is also a parameter of this macro, which would shadow a column of that name
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
