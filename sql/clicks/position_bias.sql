-- position_bias(events_tbl, method := 'ctr_ratio', query_col := 'query_id',
--               item_col := 'item_id', position_col := 'position', session_col := NULL,
--               click_col := 'click', action_col := NULL, time_col := NULL, start_date := NULL,
--               end_date := NULL, max_rank := 20)
--   -> TABLE(position BIGINT, propensity DOUBLE, impressions BIGINT, clicks BIGINT,
--            pairs BIGINT, note VARCHAR)
-- The examination propensity of each position of an impression/click log (the log and its
-- options as click_grades reads them), relative to the lowest position p0 (propensity 1 there).
--   method  'ctr_ratio': CTR at the position / CTR at p0 (ultr-bias-toolkit's naive estimator;
--             biased: better items sit higher).
--           'pivot': intervention harvesting (Agarwal et al. 2019) against p0: over the (query,
--             item) pairs shown both at p0 and at the position, Σ their CTR at the position /
--             Σ their CTR at p0 (ultr-bias-toolkit's PivotEstimator with pivot rank p0).
--           'adjacent_chain': the product along the chain of neighbours p − 1 → p of the same
--             ratio over the pairs shown at both (ultr-bias-toolkit's AdjacentChainEstimator).
--           'pbm': PyClick's PBM examination by EM (as click_grades(model := 'pbm'); needs
--             session_col), divided by that of p0.
--   Support: impressions and clicks at the position; pairs: the (query, item) pairs a harvested
--   ratio reads (NULL for 'ctr_ratio' and 'pbm').
--   note: NULL when the propensity is a number; otherwise why it is NULL: no (query, item) was
--   shown at both positions (a log whose ranker never moves an item cannot be harvested), their
--   CTR at the reference position is 0, the chain broke at an earlier position, or the
--   reference position has no clicks. The rows come ordered by position.
-- Example: SELECT * FROM position_bias('clicks', method := 'pivot');
CREATE OR REPLACE MACRO position_bias(events_tbl, method := 'ctr_ratio', query_col := 'query_id',
                                      item_col := 'item_id', position_col := 'position',
                                      session_col := NULL, click_col := 'click',
                                      action_col := NULL, time_col := NULL, start_date := NULL,
                                      end_date := NULL, max_rank := 20) AS TABLE
WITH _ndcg_cells AS (
    -- per (query, item, position): its impressions, clicks and CTR (ultr-bias-toolkit's
    -- intervention sets are built from these)
    SELECT _q, _d, _p, sum(_imp) AS _imps, sum(_clk) AS _clks,
           sum(_clk) / sum(_imp) AS _ctr
    FROM _ndcg_click_log(events_tbl, query_col := query_col, item_col := item_col,
                         position_col := position_col, session_col := session_col,
                         click_col := click_col, action_col := action_col, time_col := time_col,
                         start_date := start_date, end_date := end_date, max_rank := max_rank)
    GROUP BY _q, _d, _p
),
_ndcg_cell_checks AS (
    -- the event form counts events: a (query, item, position) needs an impression per click
    SELECT count(*) FILTER (WHERE _clks > _imps) AS _unseen FROM _ndcg_cells
),
_ndcg_positions AS (
    SELECT _p, sum(_imps) AS _imps, sum(_clks) AS _clks, min(_p) OVER () AS _p0
    FROM _ndcg_cells GROUP BY _p
),
_ndcg_harvest AS (
    -- per position p, the pairs shown at both p and its reference r (p0 for 'pivot', p − 1 for
    -- 'adjacent_chain'; p0 is its own reference): Σ CTR at p, Σ CTR at r
    SELECT at_p._p, count(*) AS _pairs, sum(at_p._ctr) AS _sum_p, sum(at_r._ctr) AS _sum_r
    FROM _ndcg_cells AS at_p
    JOIN _ndcg_positions AS pos ON pos._p = at_p._p
    JOIN _ndcg_cells AS at_r
      ON at_r._q = at_p._q AND at_r._d = at_p._d
     AND at_r._p = CASE WHEN method = 'pivot' OR at_p._p = pos._p0 THEN pos._p0 ELSE at_p._p - 1 END
    WHERE method IN ('pivot', 'adjacent_chain')
    GROUP BY at_p._p
),
_ndcg_exam AS (
    SELECT _p, any_value(_exam) AS _exam
    FROM _ndcg_pbm(events_tbl, query_col := query_col, item_col := item_col,
                   position_col := position_col, session_col := session_col,
                   click_col := click_col, action_col := action_col, time_col := time_col,
                   start_date := start_date, end_date := end_date, max_rank := max_rank,
                   needed_by := 'method := ''' || method || '''')
    WHERE method = 'pbm'
    GROUP BY _p
),
_ndcg_ratios AS (
    SELECT pos._p, pos._p0, pos._imps, pos._clks, h._pairs,
           CASE method
               WHEN 'ctr_ratio' THEN
                   (pos._clks / pos._imps)
                   / nullif(first(pos._clks / pos._imps) OVER (ORDER BY pos._p), 0)
               WHEN 'pbm' THEN e._exam / first(e._exam) OVER (ORDER BY pos._p)
               ELSE h._sum_p / nullif(h._sum_r, 0)
           END AS _ratio,
           CASE
               WHEN method = 'ctr_ratio' AND first(pos._clks) OVER (ORDER BY pos._p) = 0 THEN
                   'no clicks at position ' || pos._p0
               WHEN method NOT IN ('pivot', 'adjacent_chain') THEN NULL
               WHEN h._pairs IS NULL THEN
                   'no (query, item) was shown at both position '
                   || CASE WHEN method = 'pivot' THEN pos._p0 ELSE pos._p - 1 END
                   || ' and position ' || pos._p
               WHEN h._sum_r = 0 THEN
                   'the ' || h._pairs || ' (query, item) shown at both have no clicks at position '
                   || CASE WHEN method = 'pivot' OR pos._p = pos._p0 THEN pos._p0
                           ELSE pos._p - 1 END
           END AS _why
    FROM _ndcg_positions AS pos
    LEFT JOIN _ndcg_harvest AS h ON h._p = pos._p
    LEFT JOIN _ndcg_exam AS e ON e._p = pos._p
),
_ndcg_chained AS (
    SELECT *,
           CASE WHEN method = 'adjacent_chain'
                THEN product(_ratio) OVER (ORDER BY _p) ELSE _ratio END AS _value,
           -- the first position of the chain that has no ratio (adjacent_chain only)
           min(_p) FILTER (WHERE _why IS NOT NULL) OVER (ORDER BY _p) AS _broken_at
    FROM _ndcg_ratios, _ndcg_cell_checks
)
SELECT * FROM (
SELECT _p AS position,
       CASE
           WHEN method IS NULL OR method NOT IN ('ctr_ratio', 'pivot', 'adjacent_chain', 'pbm') THEN
               error('duckdb_ndcg: method must be ''ctr_ratio'', ''pivot'', ''adjacent_chain'' '
                     || 'or ''pbm'', got ' || coalesce('''' || method || '''', 'NULL'))
           WHEN _unseen > 0 THEN
               error('duckdb_ndcg: ' || _unseen || ' (' || query_col || ', ' || item_col || ', '
                     || position_col || ') of ' || _ndcg_table_name(events_tbl)
                     || ' have more clicks than impressions (' || action_col
                     || ' = ''impression''): a position''s CTR needs an impression per click')
           WHEN _p IS NULL THEN NULL
           WHEN method = 'adjacent_chain' AND _broken_at IS NOT NULL THEN NULL
           WHEN _why IS NOT NULL THEN NULL
           ELSE _value
       END AS propensity,
       _imps::BIGINT AS impressions, _clks::BIGINT AS clicks, _pairs AS pairs,
       CASE
           WHEN method = 'adjacent_chain' AND _broken_at < _p THEN
               'the chain broke at position ' || _broken_at
           ELSE _why
       END AS note
FROM (SELECT _p, _imps, _clks, _pairs, _value, _why, _broken_at FROM _ndcg_chained
      UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL), _ndcg_cell_checks
)
-- the extra row (which makes the method check run on an empty log) goes; a position with a
-- NULL propensity stays, with its note
WHERE position IS NOT NULL OR propensity IS NOT NULL
ORDER BY position;
