-- _ndcg_click_pages(events_tbl, query_col := NULL, item_col := NULL, position_col := NULL,
--                   session_col := NULL, click_col := NULL, action_col := NULL,
--                   time_col := NULL, start_date := NULL, end_date := NULL, max_rank := NULL,
--                   needed_by := NULL) -> TABLE(_s, _q, _d, _p BIGINT, _c BOOLEAN)
-- The result pages of the log (internal): one row per shown result, (session, query, position)
-- holding one item, clicked when any of its rows is a click: what the session models (PyClick's
-- SearchSession: one query, its results in position order) read. A page is a (session, query):
-- a session_col that spans queries holds one page per query. Errors: no session_col (naming
-- needed_by, the option that needs pages: "model := 'pbm'"); two items at one (session, query,
-- position); a click on a result the log has no impression of (event form).
CREATE OR REPLACE MACRO _ndcg_click_pages(events_tbl, query_col := NULL, item_col := NULL,
                                          position_col := NULL, session_col := NULL,
                                          click_col := NULL, action_col := NULL,
                                          time_col := NULL, start_date := NULL,
                                          end_date := NULL, max_rank := NULL,
                                          needed_by := NULL) AS TABLE
WITH _ndcg_results AS (
    SELECT _s, _q, _p, min(_d) AS _d, min(_d) <> max(_d) AS _two_items, sum(_imp) AS _imps,
           sum(_clk) AS _clks
    FROM _ndcg_click_log(events_tbl, query_col := query_col, item_col := item_col,
                         position_col := position_col, session_col := session_col,
                         click_col := click_col, action_col := action_col, time_col := time_col,
                         start_date := start_date, end_date := end_date, max_rank := max_rank)
    GROUP BY _s, _q, _p
),
_ndcg_checks AS (
    SELECT count(*) FILTER (WHERE _two_items OR (action_col IS NULL AND _imps > 1)) AS _doubled,
           count(*) FILTER (WHERE _clks > 0 AND _imps = 0) AS _unseen
    FROM _ndcg_results
)
SELECT * FROM (
SELECT _s, _q, _d, _p,
       CASE
           WHEN session_col IS NULL THEN
               error('duckdb_ndcg: ' || needed_by || ' reads result pages: it needs '
                     || 'session_col := <the column naming one search (a page of results)>')
           WHEN _doubled > 0 THEN
               error('duckdb_ndcg: ' || _doubled || ' (' || session_col || ', ' || query_col
                     || ', ' || position_col || ') of ' || _ndcg_table_name(events_tbl)
                     || ' show more than one result (a position holds one item a page)')
           WHEN _unseen > 0 THEN
               error('duckdb_ndcg: ' || _unseen || ' clicked results of '
                     || _ndcg_table_name(events_tbl) || ' have no impression (' || action_col
                     || ' = ''impression'') at their ' || session_col || ' and '
                     || position_col)
           ELSE _clks > 0
       END AS _c
FROM (SELECT * FROM _ndcg_results UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL),
     _ndcg_checks
)
WHERE _c IS NOT NULL;
