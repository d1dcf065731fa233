-- Measures by name on a judged run, in SQL: measures_report scores each measure that
-- parse_measures reads (nDCG@10, P(rel=2)@5, RR, ndcg_cut.5,10, precision@5-l2 ...) through the
-- aggregates, one row per (query, measure); measures_summary combines the queries.

-- measures_report(tbl, measures, grammar := NULL, query_col := 'query_id',
--                 item_col := 'item_id', rel_col := 'rel', rnk_col := 'rnk')
--   -> TABLE(query_id, measure VARCHAR, value DOUBLE)
-- Every query of a judged-run table (one row per (query, item): rel NULL = unjudged, rnk NULL =
-- judged but not returned, smaller rnk first) scored on each measure of the string measures, in
-- long format, measure the canonical label (ir_measures' spelling). Equal rnk are broken by
-- item_col descending, as trec_eval and ir_measures order equal scores; a query judged but not
-- run scores 0 (its relevant rows still count in NumRel). judged_only drops the unjudged
-- returned rows first; ranx -lN counts grades below N as unjudged. Each measure is computed by
-- the aggregates (ndcg, precision_at_k, average_precision, ... under GROUP BY), as
-- duckdb_ndcg.measures.scores and duckdb-ndcg trec compute it.
--   measures  whitespace-separated measures, as parse_measures reads them.
--   grammar   as for parse_measures: 'ir_measures', 'trec_eval', 'ranx' or NULL (any).
-- The mean over queries: measures_summary (the counts summed, trec_eval gm_map a geometric mean).
-- Example: SELECT * FROM measures_report('judged_run', 'nDCG@10 P(rel=2)@5 RR AP@100');
CREATE OR REPLACE MACRO measures_report(tbl, measures, grammar := NULL,
                                        query_col := 'query_id', item_col := 'item_id',
                                        rel_col := 'rel', rnk_col := 'rnk') AS TABLE
WITH _ndcg_wanted AS MATERIALIZED (
    SELECT * FROM parse_measures(measures, grammar := grammar)
),
_ndcg_judged AS (
    SELECT COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _i,
           TRY_CAST(COLUMNS(lambda c: c = rel_col) AS DOUBLE) AS _rel,
           COLUMNS(lambda c: c = rnk_col) AS _rnk
    FROM query_table(tbl)
),
_ndcg_checks AS MATERIALIZED (
    -- the input rules of run_report: rel and rnk numbers, no NULL query
    SELECT CASE
               WHEN _ndcg_run_columns_error(tbl, rel_col, rnk_col) IS NOT NULL THEN NULL
               WHEN count(*) FILTER (WHERE _q IS NULL) > 0 THEN
                   error('duckdb_ndcg: ' || tbl || ' has NULL in ' || query_col)
           END AS _failed
    FROM _ndcg_judged
),
_ndcg_rows AS (
    -- each row once per measure, its grade (r) and rank (n) as the measure reads them
    SELECT _q, _i, position, metric, k, t, gain, p, recall, rounding, full_ideal, r,
           CASE WHEN judged_only AND r IS NULL THEN NULL ELSE _rnk END AS n
    FROM (
        SELECT _q, _i, _rnk, w.position, w.metric, w.k, coalesce(w.threshold, 1) AS t,
               coalesce(w.gain, 'linear') AS gain, coalesce(w.p, 0.8) AS p,
               coalesce(w.recall, 0.0) AS recall, coalesce(w.rounding, 'trec_eval_9') AS rounding,
               coalesce(w.full_ideal, false) AS full_ideal, w.judged_only,
               CASE WHEN w.min_grade IS NULL OR _rel >= w.min_grade THEN _rel END AS r
        FROM _ndcg_judged CROSS JOIN _ndcg_wanted AS w CROSS JOIN _ndcg_checks
        WHERE _failed IS NULL
    )
)
-- one branch per aggregate, each over its own measures' rows only (one CASE over every
-- aggregate would compute each of them for every measure: 17 times slower at 1M rows)
SELECT query_id, w.measure, value::DOUBLE AS value
FROM (
    SELECT _q AS query_id, position,
           ndcg(r, n, k := k, gain := gain, ties := 'key', tie_key := _i,
                full_ideal := full_ideal, negative := 'zero') AS value
    FROM _ndcg_rows WHERE metric = 'ndcg' GROUP BY _q, position, k, gain, full_ideal
    UNION ALL
    SELECT _q, position,
           precision_at_k(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'precision_at_k' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position,
           recall_at_k(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'recall_at_k' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position,
           f1_at_k(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'f1_at_k' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position,
           average_precision(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'average_precision' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position,
           reciprocal_rank(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'reciprocal_rank' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position,
           hit_rate(r, n, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'hit_rate' GROUP BY _q, position, k, t
    UNION ALL
    SELECT _q, position, r_precision(r, n, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'r_precision' GROUP BY _q, position, t
    UNION ALL
    SELECT _q, position, bpref(r, n, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'bpref' GROUP BY _q, position, t
    UNION ALL
    SELECT _q, position, judged_at_k(r, n, k := k, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'judged_at_k' GROUP BY _q, position, k
    UNION ALL
    SELECT _q, position,
           rbp(r, n, p := p, k := k, threshold := t, ties := 'key', tie_key := _i)
    FROM _ndcg_rows WHERE metric = 'rbp' GROUP BY _q, position, p, k, t
    UNION ALL
    -- the counts and the set measures of trec_eval
    SELECT _q, position, CASE metric
        WHEN 'num_q' THEN 1
        WHEN 'num_ret' THEN count(n)
        WHEN 'num_rel' THEN count(*) FILTER (WHERE r >= t)
        WHEN 'num_rel_ret' THEN count(n) FILTER (WHERE r >= t)
        -- trec_eval reads a grade below 0 as "not in the pool", neither relevant nor judged
        WHEN 'num_nonrel_judged_ret' THEN count(n) FILTER (WHERE r >= 0 AND r < t)
        -- trec_eval set_map (ir_measures SetAP): relevant returned^2 / (returned x relevant)
        WHEN 'set_ap' THEN
            coalesce((count(n) FILTER (WHERE r >= t))::DOUBLE * (count(n) FILTER (WHERE r >= t))
                     / nullif(count(n)::DOUBLE * (count(*) FILTER (WHERE r >= t)), 0), 0.0)
        -- trec_eval set_relative_P (ir_measures SetRelP): relevant returned / min(returned,
        -- relevant)
        WHEN 'set_rel_p' THEN
            coalesce((count(n) FILTER (WHERE r >= t))::DOUBLE
                     / nullif(least(count(n), count(*) FILTER (WHERE r >= t)), 0), 0.0)
    END
    FROM _ndcg_rows
    WHERE metric IN ('num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret',
                     'set_ap', 'set_rel_p')
    GROUP BY _q, position, metric, t
    UNION ALL
    -- interpolated precision at recall level l: the best precision j / p_j over the relevant
    -- returned rows (the j-th at position p_j) from the c-th on, c the level's count of the R
    -- relevant rows: floor(l R + 0.9) (trec_eval 9, pytrec_eval) or round(l R) (trec_eval 10)
    SELECT _q, position, list_transform([{hits: list_filter(list_transform(
            list(r >= t ORDER BY n ASC, _i DESC) FILTER (WHERE n IS NOT NULL),
            lambda h, q: CASE WHEN h THEN q END), lambda q: q IS NOT NULL),
        c: CASE WHEN rounding = 'trec_eval_10'
                THEN round((count(*) FILTER (WHERE r >= t)) * recall)
                ELSE floor((count(*) FILTER (WHERE r >= t)) * recall + 0.9) END}],
        lambda s: coalesce(list_max(list_transform(s.hits, lambda q, j:
            CASE WHEN j >= s.c THEN j / q END)), 0.0))[1]
    FROM _ndcg_rows WHERE metric = 'iprec' GROUP BY _q, position, t, recall, rounding
    UNION ALL
    -- trec_eval infAP over the returned rows' codes (grade, or -1 when not in the qrels)
    SELECT _q, position, _ndcg_trec_infap(
        coalesce(list(CASE WHEN r IS NOT NULL THEN trunc(r)::BIGINT ELSE -1 END
                      ORDER BY n ASC, _i DESC) FILTER (WHERE n IS NOT NULL), []::BIGINT[]),
        count(*) FILTER (WHERE r >= t), t)
    FROM _ndcg_rows WHERE metric = 'infap' GROUP BY _q, position, t
) AS v JOIN _ndcg_wanted AS w USING (position)
ORDER BY query_id, position;

-- _ndcg_measures_only(measures, unread) -> VARCHAR (internal): measures itself, or an error naming
-- the first name in unread that is not NULL: a report option given otherwise than its default
-- where the report scores measure strings (the measures := overload of run_report, ndcg_report,
-- ndcg_summary and compare_summary), which read each measure's own cutoff, level and gains.
-- Example: _ndcg_measures_only('nDCG@10', [CASE WHEN k::VARCHAR NOT IN ('10') THEN 'k' END])
CREATE OR REPLACE MACRO _ndcg_measures_only(measures, unread) AS
CASE
    WHEN len(list_filter(unread, lambda n: n IS NOT NULL)) = 0 THEN measures
    ELSE error('duckdb_ndcg: ' || list_filter(unread, lambda n: n IS NOT NULL)[1]
               || ' is not read with measures: each measure names its own cutoff, relevance '
               || 'level and gains (nDCG@5, P(rel=2)@5, nDCG(dcg=''exp-log2'')@10)')
END;

-- _ndcg_unless_default(name, value, defaults) -> VARCHAR (internal): name when value, as text, is
-- none of defaults (the ways to write the option's default: '10', '[10]'), NULL when it is one;
-- a NULL value is not a default. The names _ndcg_measures_only reads.
-- Example: _ndcg_unless_default('k', 5, ['10', '[10]']) is 'k'
CREATE OR REPLACE MACRO _ndcg_unless_default(name, value, defaults) AS
CASE WHEN coalesce(list_contains(defaults, value::VARCHAR), false) THEN NULL ELSE name END;

-- _ndcg_measure_mean(summary, value, query) -> DOUBLE (internal, an aggregate): one measure's
-- per-query values combined as its parse_measures summary says: 'sum' (the counts), 'gmean'
-- (exp(mean(ln(max(value, 1e-5)))), trec_eval's gm_map and gm_bpref), else the mean, each summed
-- in query order, as trec_eval sums them. Shared by measures_summary and the event summaries.
-- Example: SELECT measure, _ndcg_measure_mean(any_value(summary), value, query_id) ... GROUP BY measure
CREATE OR REPLACE MACRO _ndcg_measure_mean(summary, value, query) AS
CASE summary
    WHEN 'sum' THEN sum(value)
    WHEN 'gmean' THEN exp(list_sum(list(ln(greatest(value, 1e-5)) ORDER BY query)) / count(*))
    ELSE list_sum(list(value ORDER BY query)) / count(*)
END::DOUBLE;

-- measures_summary(tbl, measures, grammar := NULL, query_col := 'query_id',
--                  item_col := 'item_id', rel_col := 'rel', rnk_col := 'rnk')
--   -> TABLE(measure VARCHAR, value DOUBLE, queries BIGINT)
-- Each measure of measures_report combined over the queries, in the order given: the mean (of the
-- per-query values summed in query order, as trec_eval sums them), the sum for the counts (NumQ,
-- NumRet, NumRel, NumRet(rel=1), NumNonRelJudgedRet) and exp(mean(ln(max(value, 1e-5)))) for
-- trec_eval's gm_map and gm_bpref (GM_AP, GM_Bpref); queries the number of queries. Parameters
-- as for measures_report.
-- Example: SELECT * FROM measures_summary('judged_run', 'nDCG@10 P(rel=2)@5 RR gm_map');
CREATE OR REPLACE MACRO measures_summary(tbl, measures, grammar := NULL,
                                         query_col := 'query_id', item_col := 'item_id',
                                         rel_col := 'rel', rnk_col := 'rnk') AS TABLE
SELECT s.measure, _ndcg_measure_mean(s.summary, r.value, r.query_id) AS value,
       count(*) AS queries
FROM measures_report(tbl, measures, grammar := grammar, query_col := query_col,
                     item_col := item_col, rel_col := rel_col, rnk_col := rnk_col) AS r
JOIN parse_measures(measures, grammar := grammar) AS s USING (measure)
GROUP BY s.position, s.measure, s.summary
ORDER BY s.position;
