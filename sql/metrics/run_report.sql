-- run_report(tbl, k := [5, 10], metrics := ['ndcg'], query_col := 'query_id',
--            item_col := 'item_id', rel_col := 'rel', rnk_col := 'rnk', ties := 'average',
--            gain := 'linear', log_base := 2, empty_ideal := 0.0, full_ideal := false,
--            threshold := 1)
--   -> TABLE(query_id, metric VARCHAR, k BIGINT, value DOUBLE)
-- Metrics of every query of a judged-run table, in long format, for logs larger than memory: the
-- aggregates (ndcg(rel, rnk, 10) under GROUP BY) keep list and top-N states that DuckDB does not
-- spill, while this plan is made of what it does spill: one hash aggregate per tie group, window
-- sums over sorted groups, joins. Same conventions as the aggregates (one row per (query, item);
-- rel NULL = unjudged; rnk NULL = judged but not returned, in the ideal only; smaller rnk first).
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
               WHEN coalesce(NOT isfinite(TRY_CAST(threshold AS DOUBLE)), true) THEN
                   error('duckdb_ndcg: threshold must be a finite number, got '
                         || coalesce(threshold::VARCHAR, 'NULL'))
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
_ndcg_ideal AS (
    -- the gains of the judged rows, best first (rows with gain 0 add nothing)
    SELECT _q, _g, row_number() OVER (PARTITION BY _q ORDER BY _g DESC) AS _p
    FROM (SELECT _q, _ndcg_gain_value(_rel, gain) AS _g FROM _ndcg_judged)
    WHERE _g > 0
),
_ndcg_cuts AS (
    SELECT unnest(_ndcg_report_cuts(k)) AS _k
),
_ndcg_group_terms AS (
    -- positions s .. e of a group, cut at m: its mean gain (or relevance) at each position
    SELECT _q, _k,
           fsum(_gain / _n * _ndcg_discount_sum(_s, _e, log_base))
               AS _dcg,
           fsum(_gain / _n * (_e - _s + 1)) AS _cg,
           fsum(_hits / _n * (_e - _s + 1)) AS _hit
    FROM (
        SELECT _ndcg_placed.*, _ndcg_cuts._k, (coalesce(_before, 0) + 1)::BIGINT AS _s,
               least(coalesce(_before, 0) + _n, _ndcg_cuts._k, _ndcg_queries._returned)::BIGINT
                   AS _e
        FROM _ndcg_placed JOIN _ndcg_queries USING (_q), _ndcg_cuts
    )
    WHERE _s <= _e
    GROUP BY _q, _k
),
_ndcg_ideal_terms AS (
    SELECT _ndcg_ideal._q, _ndcg_cuts._k, fsum(_g / _ndcg_discount(_p, log_base)) AS _idcg
    FROM _ndcg_ideal JOIN _ndcg_queries USING (_q), _ndcg_cuts
    WHERE _p <= coalesce(_ndcg_ideal_cut(_ndcg_cuts._k, _returned, false, full_ideal),
                         9223372036854775807)
    GROUP BY _ndcg_ideal._q, _ndcg_cuts._k
)
SELECT _ndcg_queries._q AS query_id, metric, _ndcg_cuts._k AS k,
       CASE metric
           WHEN 'ndcg' THEN coalesce(coalesce(_dcg, 0.0) / nullif(coalesce(_idcg, 0.0), 0),
                                     empty_ideal)
           WHEN 'dcg' THEN coalesce(_dcg, 0.0)
           WHEN 'idcg' THEN coalesce(_idcg, 0.0)
           WHEN 'cg' THEN coalesce(_cg, 0.0)
           WHEN 'precision_at_k' THEN
               coalesce(coalesce(_hit, 0.0) / nullif(coalesce(_ndcg_cuts._k, _returned), 0), 0.0)
           WHEN 'recall_at_k' THEN coalesce(coalesce(_hit, 0.0) / nullif(_relevant, 0), 0.0)
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
