-- click_grades(events_tbl, model := 'coec', query_col := 'query_id', item_col := 'item_id',
--              position_col := 'position', session_col := NULL, click_col := 'click',
--              action_col := NULL, time_col := NULL, start_date := NULL, end_date := NULL,
--              max_rank := 20, bins := NULL, min_impressions := 0)
--   -> TABLE(query_id, item_id, rel DOUBLE, rnk BIGINT, impressions BIGINT, clicks BIGINT)
-- Relevance grades from an impression/click log, one row per (query, item): a judged run that
-- run_report scores as it is (rel the grade, rnk the item's lowest logged position: the logged
-- ranker at its best placement), or judgments to join to another ranking.
--   events_tbl  the log (a name, as for event_relevance). Two forms:
--               flag form (action_col NULL): one row per shown result, click_col true/1 when it
--               was clicked, false/0 when not;
--               event form (action_col given, e.g. UBI's 'action_name'): one row per event,
--               action 'impression' or 'click' (any case); other actions are ignored.
--   query_col, item_col, position_col  the columns of the query (SRW: user_query), the item
--               (object_id) and its position (whole numbers >= 0; UBI ordinals start at 0).
--   session_col  the column naming one search, a page of results (UBI: query_id); needed by
--               'sdbn', 'cascade', 'pbm' and 'dbn' (a page is a (session, query); a position holds
--               one item a page; a click needs an impression at its page and position).
--   time_col, start_date, end_date  keep the rows whose time_col::DATE lies in
--               [start_date, end_date] (either bound NULL: open), as SRW's date range.
--   max_rank    rows whose position is above max_rank are left out (all models).
--   model       'coec': OpenSearch Search Relevance Workbench's CoecClickModel: rank CTR
--                 ctr[r] = clicks / impressions at position r for r in [0, max_rank) (0 where
--                 nothing was shown); per (query, item) its clicks, impressions and lowest
--                 position r over both; grade = clicks / (ctr[r] × impressions) when that
--                 product is > 0, else 0, rounded to 3 decimals as Java's "%.3f" (half up on
--                 the shortest decimal form of the double).
--               'ctr': clicks / impressions. 'dctr': PyClick's DCTR, (clicks + 1) / (impressions
--                 + 2) (its Beta(1, 1) prior: an item never clicked is not 0).
--               'cascade': PyClick's CM: (1 + clicks) / (2 + results) over each page's
--                 results down to its first click (all of them on a page without clicks).
--               'sdbn': PyClick's SDBN, attractiveness × satisfaction: attractiveness (1 +
--                 clicks) / (2 + results) over each page's results down to its last click (all
--                 of them without clicks); satisfaction (1 + last clicks) / (2 + clicks).
--               'pbm': PyClick's PBM by EM (50 iterations from 0.5, capped at 1 − 1e-6): the
--                 attractiveness, with an examination per position (position_bias(method :=
--                 'pbm') returns those).
--               'dbn': PyClick's DBN by EM (the same 50 steps, prior and cap; a continuation
--                 probability besides): attractiveness × satisfaction. Its E-step walks each
--                 page's results once per result (quadratic in the page's length).
--               In the event form 'ctr' and 'dctr' count events, and a (query, item) with more
--               clicks than impressions is an error; the page models count a result once.
--   bins        NULL: the grade is the model's number; a list of ascending thresholds turns it
--               into a whole grade, the number of thresholds <= the number ([0.1, 0.3, 0.6]:
--               grades 0 to 3).
--   min_impressions  the (query, item) pairs with fewer impressions are left out (0 keeps
--               SRW's pairs with clicks but no impression, graded 0).
-- Example: SELECT * FROM click_grades('ubi_events', action_col := 'action_name',
--              query_col := 'user_query', item_col := 'object_id', position_col := 'ordinal');
CREATE OR REPLACE MACRO click_grades(events_tbl, model := 'coec', query_col := 'query_id',
                                     item_col := 'item_id', position_col := 'position',
                                     session_col := NULL, click_col := 'click',
                                     action_col := NULL, time_col := NULL, start_date := NULL,
                                     end_date := NULL, max_rank := 20, bins := NULL,
                                     min_impressions := 0) AS TABLE
WITH _ndcg_log AS (
    SELECT * FROM _ndcg_click_log(events_tbl, query_col := query_col, item_col := item_col,
                                  position_col := position_col, session_col := session_col,
                                  click_col := click_col, action_col := action_col,
                                  time_col := time_col, start_date := start_date,
                                  end_date := end_date, max_rank := max_rank)
    WHERE model IN ('coec', 'ctr', 'dctr')
),
_ndcg_counted AS (
    -- per (query, item): its events (impressions, clicks) and its lowest position over both
    SELECT _q, _d, sum(_imp) AS _imps, sum(_clk) AS _clks,
           min(_p) FILTER (WHERE _imp > 0 OR _clk > 0) AS _rank
    FROM _ndcg_log GROUP BY _q, _d
),
_ndcg_rank_ctr AS (
    -- SRW's rank CTR over [0, max_rank): positions shown nowhere have none (CTR 0)
    SELECT _p, sum(_clk) / sum(_imp) AS _ctr
    FROM _ndcg_log WHERE _p < max_rank GROUP BY _p HAVING sum(_imp) > 0
),
_ndcg_pages AS (
    SELECT *,
           min(_p) FILTER (WHERE _c) OVER (PARTITION BY _s, _q) AS _first_click,
           max(_p) FILTER (WHERE _c) OVER (PARTITION BY _s, _q) AS _last_click
    FROM _ndcg_click_pages(events_tbl, query_col := query_col, item_col := item_col,
                           position_col := position_col, session_col := session_col,
                           click_col := click_col, action_col := action_col,
                           time_col := time_col, start_date := start_date,
                           end_date := end_date, max_rank := max_rank,
                           needed_by := 'model := ''' || model || '''')
    WHERE model IN ('cascade', 'sdbn')
),
_ndcg_paged AS (
    SELECT _q, _d, count(*) AS _imps, count(*) FILTER (WHERE _c) AS _clks, min(_p) AS _rank,
           -- cascade: the results down to the first click
           count(*) FILTER (WHERE _p <= coalesce(_first_click, _p)) AS _to_first,
           count(*) FILTER (WHERE _c AND _p = _first_click) AS _first_clicks,
           -- SDBN: the results down to the last click; the last clicks
           count(*) FILTER (WHERE _p <= coalesce(_last_click, _p)) AS _to_last,
           count(*) FILTER (WHERE _c AND _p = _last_click) AS _last_clicks
    FROM _ndcg_pages GROUP BY _q, _d
),
_ndcg_graded AS (
    SELECT _q, _d, _imps, _clks, _rank,
           CASE model
               WHEN 'coec' THEN
                   -- SRW prints the rating with Java's "%.3f": half up on the double's shortest
                   -- decimal form (0.5465 -> 0.547, though its binary value is below the half),
                   -- which rounding that form as a DECIMAL reproduces (checked against Java on
                   -- 240,000 ratings); from 1e15 up a double has no finer digits to round
                   CASE WHEN coalesce(_ctr, 0) * _imps > 0 THEN
                        CASE WHEN _clks / (_ctr * _imps) < 1e15
                             THEN round((_clks / (_ctr * _imps))::VARCHAR::DECIMAL(38, 18), 3)
                             ELSE _clks / (_ctr * _imps) END
                        ELSE 0 END
               WHEN 'ctr' THEN _clks / _imps
               WHEN 'dctr' THEN (_clks + 1) / (_imps + 2)
           END::DOUBLE AS _grade,
           model IN ('ctr', 'dctr') AND _clks > _imps AS _unseen
    FROM _ndcg_counted LEFT JOIN _ndcg_rank_ctr ON _ndcg_rank_ctr._p = _ndcg_counted._rank
    UNION ALL
    SELECT _q, _d, _imps, _clks, _rank,
           CASE model
               WHEN 'cascade' THEN (1 + _first_clicks) / (2 + _to_first)
               WHEN 'sdbn' THEN ((1 + _clks) / (2 + _to_last)) * ((1 + _last_clicks) / (2 + _clks))
           END::DOUBLE,
           false
    FROM _ndcg_paged
    UNION ALL
    SELECT _q, _d, sum(_n), sum(_clicks), min(_p), any_value(_attr), false
    FROM _ndcg_pbm(events_tbl, query_col := query_col, item_col := item_col,
                   position_col := position_col, session_col := session_col,
                   click_col := click_col, action_col := action_col, time_col := time_col,
                   start_date := start_date, end_date := end_date, max_rank := max_rank,
                   needed_by := 'model := ''' || model || '''')
    WHERE model = 'pbm'
    GROUP BY _q, _d
    UNION ALL
    SELECT _q, _d, _n, _clicks, _rank, _attr * _sat, false
    FROM _ndcg_dbn(events_tbl, query_col := query_col, item_col := item_col,
                   position_col := position_col, session_col := session_col,
                   click_col := click_col, action_col := action_col, time_col := time_col,
                   start_date := start_date, end_date := end_date, max_rank := max_rank,
                   needed_by := 'model := ''' || model || '''')
    WHERE model = 'dbn'
)
SELECT * FROM (
SELECT _q AS query_id, _d AS item_id,
       CASE
           WHEN model IS NULL
                OR model NOT IN ('coec', 'ctr', 'dctr', 'cascade', 'sdbn', 'pbm', 'dbn') THEN
               error('duckdb_ndcg: model must be ''coec'', ''ctr'', ''dctr'', ''cascade'', '
                     || '''sdbn'', ''pbm'' or ''dbn'', got '
                     || coalesce('''' || model || '''', 'NULL'))
           WHEN TRY_CAST(min_impressions AS BIGINT) IS NULL THEN
               error('duckdb_ndcg: min_impressions must be a whole number, got '
                     || coalesce(min_impressions::VARCHAR, 'NULL'))
           WHEN bins IS NOT NULL AND (len(bins) = 0
                OR list_sort(bins::DOUBLE[]) <> bins::DOUBLE[]
                OR NOT list_bool_and(list_transform(bins::DOUBLE[],
                                                    lambda b: coalesce(isfinite(b), false)))) THEN
               error('duckdb_ndcg: bins must be a non-empty list of finite thresholds in '
                     || 'ascending order, got ' || bins::VARCHAR)
           WHEN _unseen THEN
               error('duckdb_ndcg: (' || _q::VARCHAR || ', ' || _d::VARCHAR || ') of '
                     || _ndcg_table_name(events_tbl) || ' has more clicks (' || _clks
                     || ') than impressions (' || _imps || '); model := ''' || model
                     || ''' needs an impression per click')
           -- (0 / 0 of 'ctr' where a pair has only other actions: left out, no support)
           WHEN bins IS NULL OR _grade IS NULL THEN _grade
           ELSE len(list_filter(bins::DOUBLE[], lambda b: b <= _grade))
       END AS rel,
       _rank AS rnk, _imps::BIGINT AS impressions, _clks::BIGINT AS clicks
FROM (SELECT * FROM _ndcg_graded
      UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, false)
WHERE _imps IS NULL OR _imps >= TRY_CAST(min_impressions AS BIGINT)
)
WHERE rel IS NOT NULL;
