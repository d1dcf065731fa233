-- run_report(tbl, k := [5, 10], metrics := ['ndcg'], query_col := 'query_id',
--            item_col := 'item_id', rel_col := 'rel', rnk_col := 'rnk', ties := 'average',
--            gain := 'linear', log_base := 2, empty_ideal := 0.0, full_ideal := false,
--            threshold := 1)
--   -> TABLE(query_id, metric VARCHAR, k BIGINT, value DOUBLE)
-- Metrics of every query of a judged-run table, in long format, for logs larger than memory: the
-- aggregates (ndcg(rel, rnk, 10) under GROUP BY) keep list and top-N states that DuckDB does not
-- spill, while this plan is made of what it does spill: one hash aggregate per tie group, window
-- sums over sorted groups, joins; its tie groups and ideal are scored by the scorer of
-- ndcg_report's engine (_ndcg_scored_gains, _ndcg_scored_ideal). Same conventions as the
-- aggregates (one row per (query, item); rel NULL = unjudged; rnk NULL = judged but not returned,
-- in the ideal only; smaller rnk first).
--   k          a cutoff or a list of them; NULL = the returned rows (the aggregates' k NULL).
--   metrics    any of 'ndcg', 'dcg', 'idcg', 'cg', 'precision_at_k', 'recall_at_k'.
--   ties       'average': a tie group's rows share its mean gain at each of its positions, also
--              when it straddles k (exact, as the aggregates); 'key': equal rnk broken by
--              item_col descending (trec_eval).
--   gain, log_base, empty_ideal, full_ideal, threshold: as for ndcg, precision_at_k, recall_at_k.
--   measures  measures := 'nDCG@10 P(rel=2)@5 RR' scores measure strings as IR tools write them
--             (parse_measures reads them) instead: an overload, run_report(tbl, measures,
--             grammar := NULL, ...every other run_report parameter), that gives
--             measures_report's rows (query_id, measure, value). Each measure names its own cutoff, relevance
--             level and gains, so k, metrics, ties, gain, log_base, empty_ideal, full_ideal and
--             threshold keep their defaults there (another value is an error naming the option).
--             A call without measures never binds the overload.
-- Example: SELECT metric, k, avg(value) FROM run_report('judged_run', k := [5, 10],
--              metrics := ['ndcg', 'precision_at_k']) GROUP BY ALL ORDER BY ALL;
CREATE OR REPLACE MACRO run_report(tbl, k := [5, 10], metrics := ['ndcg'],
                                   query_col := 'query_id', item_col := 'item_id',
                                   rel_col := 'rel', rnk_col := 'rnk', ties := 'average',
                                   gain := 'linear', log_base := 2, empty_ideal := 0.0,
                                   full_ideal := false, threshold := 1) AS TABLE (
WITH _ndcg_judged AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _i,
           TRY_CAST(COLUMNS(lambda c: c = rel_col) AS DOUBLE) AS _rel,
           TRY_CAST(COLUMNS(lambda c: c = rnk_col) AS DOUBLE) AS _rnk,
           -- the key in its own type, which the groups and their order read: as DOUBLE, BIGINT
           -- keys beyond 2^53 or DECIMAL keys of more than 15 digits can be one value and tie
           COLUMNS(lambda c: c = rnk_col) AS _order
    FROM query_table(tbl)
),
_ndcg_checks AS (
    -- one fixed-size aggregate over the table: every input rule of the aggregates, named
    SELECT CASE
               WHEN _ndcg_run_columns_error(tbl, rel_col, rnk_col) IS NOT NULL THEN NULL
               WHEN len(list_filter(metrics, lambda m: NOT coalesce(list_contains(
                        ['ndcg', 'dcg', 'idcg', 'cg', 'precision_at_k', 'recall_at_k'], m), false)))
                    > 0 OR len(metrics) = 0 THEN
                   error('duckdb_ndcg: metrics must name some of ndcg, dcg, idcg, cg, '
                         || 'precision_at_k, recall_at_k, got ' || coalesce(metrics::VARCHAR, 'NULL'))
               WHEN _ndcg_threshold_error(threshold, false) IS NOT NULL THEN NULL
               WHEN full_ideal IS NULL THEN error('duckdb_ndcg: full_ideal must be true or false, got NULL')
               WHEN _ndcg_rank_error(_rnk, ties, _i) IS NOT NULL
                    OR _ndcg_grade_error(_rel, gain, 'error') IS NOT NULL
                    OR _ndcg_discount(1, log_base) IS NULL THEN NULL
               WHEN count(*) FILTER (WHERE _q IS NULL) > 0 THEN
                   error('duckdb_ndcg: ' || tbl || ' has NULL in ' || query_col)
           END AS _failed
    FROM _ndcg_judged
),
_ndcg_groups AS (
    -- one row per tie group of a ranking (per returned row with ties := 'key'): a fixed-size
    -- hash aggregate, which spills
    SELECT _q, _order, CASE WHEN ties = 'key' THEN _i END AS _tie, count(*) AS _n,
           sum(_ndcg_gain_value(_rel, gain)) AS _gain,
           count(*) FILTER (WHERE _rel >= threshold) AS _hits
    FROM _ndcg_judged
    WHERE _order IS NOT NULL
    GROUP BY ALL
),
_ndcg_placed AS (
    -- each group's first position: the rows of the groups ranked before it, plus one
    SELECT *, sum(_n) OVER (PARTITION BY _q ORDER BY _order, _tie DESC
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS _before
    FROM _ndcg_groups
),
_ndcg_queries AS (
    SELECT _q, count(_rnk) AS _returned, count(*) FILTER (WHERE _rel >= threshold) AS _relevant
    FROM _ndcg_judged
    GROUP BY _q
),
_ndcg_gain_rows AS (
    -- each tie group as one of the scorer's placed rows: its first position, size, gain and hits
    SELECT _q AS _key, (coalesce(_before, 0) + 1)::BIGINT AS _s, _n, _gain AS _g, _hits
    FROM _ndcg_placed
),
_ndcg_ideal_gains AS (
    -- the gains of the judged rows (rows with gain 0 add nothing); with k NULL the ideal ends at
    -- the returned rows, as the aggregates' (full_ideal: it does not)
    SELECT _q AS _key, _g, CASE WHEN NOT full_ideal THEN _returned END AS _depth
    FROM (SELECT _q, _ndcg_gain_value(_rel, gain) AS _g FROM _ndcg_judged)
    JOIN _ndcg_queries USING (_q)
    WHERE _g > 0
),
_ndcg_cuts AS (
    SELECT unnest(_ndcg_report_cuts(k)) AS _k
),
_ndcg_group_terms AS (
    SELECT _key AS _q, _k, dcg AS _dcg, cg AS _cg, hits AS _hit
    FROM _ndcg_scored_gains('_ndcg_gain_rows', '_ndcg_cuts', log_base := log_base)
),
_ndcg_ideal_terms AS (
    SELECT _key AS _q, _k, idcg AS _idcg
    FROM _ndcg_scored_ideal('_ndcg_ideal_gains', '_ndcg_cuts', log_base := log_base)
)
SELECT _ndcg_queries._q AS query_id, metric, _ndcg_cuts._k AS k,
       CASE metric
           WHEN 'ndcg' THEN _ndcg_scored_ndcg(_dcg, _idcg, empty_ideal)
           WHEN 'dcg' THEN coalesce(_dcg, 0.0)
           WHEN 'idcg' THEN coalesce(_idcg, 0.0)
           WHEN 'cg' THEN coalesce(_cg, 0.0)
           WHEN 'precision_at_k' THEN _ndcg_scored_precision(_hit, _ndcg_cuts._k, _returned)
           WHEN 'recall_at_k' THEN _ndcg_scored_recall(_hit, _relevant, empty_ideal)
       END::DOUBLE AS value
FROM _ndcg_queries
CROSS JOIN _ndcg_cuts
CROSS JOIN (SELECT unnest(metrics) AS metric) AS m
LEFT JOIN _ndcg_group_terms
    ON _ndcg_group_terms._q = _ndcg_queries._q
   AND _ndcg_group_terms._k IS NOT DISTINCT FROM _ndcg_cuts._k
LEFT JOIN _ndcg_ideal_terms
    ON _ndcg_ideal_terms._q = _ndcg_queries._q
   AND _ndcg_ideal_terms._k IS NOT DISTINCT FROM _ndcg_cuts._k
CROSS JOIN _ndcg_checks
WHERE _failed IS NULL
),
-- the measures overload (measures := 'nDCG@10 P@5'): measures_report's rows
(tbl, measures, grammar := NULL, k := [5, 10], metrics := ['ndcg'], query_col := 'query_id',
 item_col := 'item_id', rel_col := 'rel', rnk_col := 'rnk', ties := 'average', gain := 'linear',
 log_base := 2, empty_ideal := 0.0, full_ideal := false, threshold := 1) AS TABLE (
SELECT * FROM measures_report(
    tbl,
    -- an option the measures do not read, given: an error naming it
    _ndcg_measures_only(measures, [
        _ndcg_unless_default('k', k, ['[5, 10]']),
        _ndcg_unless_default('metrics', metrics, ['[ndcg]', 'ndcg']),
        _ndcg_unless_default('ties', ties, ['average']),
        _ndcg_unless_default('gain', gain, ['linear']),
        _ndcg_unless_default('log_base', log_base, ['2', '2.0']),
        _ndcg_unless_default('empty_ideal', empty_ideal, ['0', '0.0']),
        _ndcg_unless_default('full_ideal', full_ideal, ['false']),
        _ndcg_unless_default('threshold', threshold, ['1', '1.0'])]),
    grammar := grammar, query_col := query_col, item_col := item_col, rel_col := rel_col,
    rnk_col := rnk_col)
);
