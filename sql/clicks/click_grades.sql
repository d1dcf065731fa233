-- Grades from click logs: the log's pages, and the click models (CTR, COEC, cascade, SDBN, PBM,
-- DBN).

-- _ndcg_click_log(events_tbl, query_col := NULL, item_col := NULL, position_col := NULL,
--                 session_col := NULL, click_col := NULL, action_col := NULL, time_col := NULL,
--                 start_date := NULL, end_date := NULL, max_rank := NULL)
--   -> TABLE(_s, _q, _d, _p BIGINT, _imp INTEGER, _clk INTEGER)
-- The impression/click log that click_grades and position_bias read (internal; the options are
-- theirs, passed by name): one row per row of events_tbl inside the date range whose position is
-- at most max_rank, with its session (NULL without session_col), query, item, position and the
-- counts it adds: the flag form (action_col NULL) is one impression a row, clicked when click_col
-- is true or 1; the event form (action_col given) is one event a row, an impression when its
-- action is 'impression' and a click when it is 'click' (any case, as SRW reads UBI's
-- action_name; other actions add nothing). Every rule of the input is checked here, each an
-- error naming its column or option.
CREATE OR REPLACE MACRO _ndcg_click_log(events_tbl, query_col := NULL, item_col := NULL,
                                        position_col := NULL, session_col := NULL,
                                        click_col := NULL, action_col := NULL, time_col := NULL,
                                        start_date := NULL, end_date := NULL,
                                        max_rank := NULL) AS TABLE
WITH _ndcg_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = coalesce(session_col, query_col)) AS _s,
           COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _d,
           COLUMNS(lambda c: c = position_col) AS _pos,
           -- the flag of the flag form, the action of the event form
           COLUMNS(lambda c: c = coalesce(action_col, click_col)) AS _signal,
           COLUMNS(lambda c: c = coalesce(time_col, query_col)) AS _t
    FROM query_table(events_tbl)
),
_ndcg_typed AS NOT MATERIALIZED (
    SELECT CASE WHEN session_col IS NOT NULL THEN _s END AS _s, _q, _d,
           TRY_CAST(_pos AS BIGINT) AS _p,
           _pos IS NOT NULL AND coalesce(TRY_CAST(_pos AS DOUBLE) <> TRY_CAST(_pos AS BIGINT), true)
               AS _bad_pos,
           CASE WHEN action_col IS NULL THEN 1
                ELSE coalesce(lower(_signal::VARCHAR) = 'impression', false)::INTEGER END AS _imp,
           CASE WHEN action_col IS NULL
                     THEN CASE WHEN _signal::VARCHAR IN ('1', 'true', '1.0') THEN 1
                               WHEN _signal::VARCHAR IN ('0', 'false', '0.0') THEN 0 END
                ELSE coalesce(lower(_signal::VARCHAR) = 'click', false)::INTEGER END AS _clk,
           CASE WHEN time_col IS NOT NULL THEN TRY_CAST(_t AS DATE) END AS _day
    FROM _ndcg_read
),
_ndcg_checks AS (
    SELECT count(*) FILTER (WHERE _q IS NULL) AS _null_q,
           count(*) FILTER (WHERE _d IS NULL) AS _null_d,
           count(*) FILTER (WHERE _p IS NULL AND NOT _bad_pos) AS _null_p,
           count(*) FILTER (WHERE _bad_pos) AS _bad_p,
           count(*) FILTER (WHERE _p < 0) AS _negative_p,
           count(*) FILTER (WHERE session_col IS NOT NULL AND _s IS NULL) AS _null_s,
           count(*) FILTER (WHERE action_col IS NULL AND _clk IS NULL) AS _bad_click,
           count(*) FILTER (WHERE time_col IS NOT NULL AND _day IS NULL) AS _null_day
    FROM _ndcg_typed
),
_ndcg_names AS (
    SELECT _ndcg_table_name(events_tbl) AS _events_name
)
SELECT * FROM (
SELECT _s, _q, _d, _p, _imp,
       CASE
           WHEN TRY_CAST(max_rank AS BIGINT) IS NULL OR TRY_CAST(max_rank AS BIGINT) < 1
                OR TRY_CAST(max_rank AS DOUBLE) <> TRY_CAST(max_rank AS BIGINT) THEN
               error('duckdb_ndcg: max_rank must be a whole number >= 1, got '
                     || coalesce(max_rank::VARCHAR, 'NULL'))
           WHEN (start_date IS NOT NULL OR end_date IS NOT NULL) AND time_col IS NULL THEN
               error('duckdb_ndcg: start_date and end_date need time_col := <the time column>')
           WHEN _null_q > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in ' || query_col)
           WHEN _null_d > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in ' || item_col)
           WHEN _null_s > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || session_col)
           WHEN _null_p > 0 THEN
               error('duckdb_ndcg: events table ' || _events_name || ' has NULL in '
                     || position_col)
           WHEN _bad_p > 0 THEN
               error('duckdb_ndcg: ' || position_col || ' of events table ' || _events_name
                     || ' must hold whole numbers (' || _bad_p || ' rows do not)')
           WHEN _negative_p > 0 THEN
               error('duckdb_ndcg: ' || position_col || ' of events table ' || _events_name
                     || ' has negative positions (' || _negative_p || ' rows)')
           WHEN _bad_click > 0 THEN
               error('duckdb_ndcg: ' || click_col || ' of events table ' || _events_name
                     || ' must be true/false or 1/0 (' || _bad_click || ' rows are not; '
                     || 'a log of impression and click events takes action_col := <column>)')
           WHEN _null_day > 0 THEN
               error('duckdb_ndcg: time_col ' || time_col || ' of events table ' || _events_name
                     || ' must hold dates or timestamps (' || _null_day
                     || ' rows are NULL or are not)')
           ELSE _clk
       END AS _clk
-- one row more (NULL keys) so that the checks run even when no row is left; it is dropped by
-- the CASE's own result, which no filter can skip
FROM (SELECT _s, _q, _d, _p, _imp, _clk FROM _ndcg_typed
      WHERE _p <= TRY_CAST(max_rank AS BIGINT)
        AND (start_date IS NULL OR _day >= start_date::DATE)
        AND (end_date IS NULL OR _day <= end_date::DATE)
      UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL),
     _ndcg_checks CROSS JOIN _ndcg_names
)
WHERE _clk IS NOT NULL;

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

-- _ndcg_pbm(events_tbl, <the column and filter options of _ndcg_click_pages, by name>)
--   -> TABLE(_q, _d, _p BIGINT, _n BIGINT, _clicks BIGINT, _attr DOUBLE, _exam DOUBLE)
-- PyClick's position-based model (PBM) fitted by EM (internal): P(click) = attr(query, item) ×
-- exam(position). As PyClick's EMInference: 50 iterations; every parameter starts at 0.5; each
-- iteration computes every parameter anew from the previous iteration's values, as
-- (1 + Σ update) / (2 + number of results it covers) (the Beta(1, 1) prior), capped at 1 − 1e-6:
--   attr update of a result: 1 when clicked, else (1 − exam) attr / (1 − exam attr);
--   exam update of a result: 1 when clicked, else (1 − attr) exam / (1 − exam attr).
-- The results are grouped by (query, item, position) first, so an iteration costs one pass over
-- those groups, not over the log (benchmarks/results/clicks.md). One row per (query, item,
-- position) with its results (_n), clicks and the fitted attr and exam.
CREATE OR REPLACE MACRO _ndcg_pbm(events_tbl, query_col := NULL, item_col := NULL,
                                  position_col := NULL, session_col := NULL, click_col := NULL,
                                  action_col := NULL, time_col := NULL, start_date := NULL,
                                  end_date := NULL, max_rank := NULL,
                                  needed_by := NULL) AS TABLE
WITH RECURSIVE _ndcg_groups AS (
    SELECT _q, _d, _p, count(*) AS _n, count(*) FILTER (WHERE _c) AS _clicks
    FROM _ndcg_click_pages(events_tbl, query_col := query_col, item_col := item_col,
                           position_col := position_col, session_col := session_col,
                           click_col := click_col, action_col := action_col,
                           time_col := time_col, start_date := start_date,
                           end_date := end_date, max_rank := max_rank,
                           needed_by := needed_by)
    GROUP BY _q, _d, _p
),
_ndcg_em AS (
    SELECT 0 AS _it, _q, _d, _p, _n, _clicks, 0.5::DOUBLE AS _attr, 0.5::DOUBLE AS _exam
    FROM _ndcg_groups
    UNION ALL
    -- one EM step: the previous values (_ndcg_now), each parameter's new value grouped by its
    -- key (attr by (query, item), exam by position) and joined back: two hash aggregates and
    -- two joins, faster than window sums over the two partitionings (design_timings.md)
    (WITH _ndcg_now AS MATERIALIZED (
         SELECT *, (_n - _clicks) / (1 - _exam * _attr) AS _unclicked
         FROM _ndcg_em WHERE _it < 50
     ),
     _ndcg_attr AS (
         SELECT _q, _d, least((1 + sum(_clicks + _unclicked * (1 - _exam) * _attr))
                              / (2 + sum(_n)), 1 - 1e-6) AS _new
         FROM _ndcg_now GROUP BY _q, _d
     ),
     _ndcg_exam AS (
         SELECT _p, least((1 + sum(_clicks + _unclicked * (1 - _attr) * _exam))
                          / (2 + sum(_n)), 1 - 1e-6) AS _new
         FROM _ndcg_now GROUP BY _p
     )
     SELECT _it + 1, now._q, now._d, now._p, _n, _clicks, a._new, e._new
     FROM _ndcg_now AS now
     JOIN _ndcg_attr AS a ON a._q = now._q AND a._d = now._d
     JOIN _ndcg_exam AS e ON e._p = now._p)
)
SELECT _q, _d, _p, _n, _clicks, _attr, _exam FROM _ndcg_em WHERE _it = 50;

-- _ndcg_dbn(events_tbl, <the column and filter options of _ndcg_click_pages, by name>)
--   -> TABLE(_q, _d, _n BIGINT, _clicks BIGINT, _rank BIGINT, _attr DOUBLE, _sat DOUBLE)
-- PyClick's dynamic Bayesian network model (DBN) fitted by EM (internal): attractiveness and
-- satisfaction per (query, item), one continuation probability. As PyClick's DBN with
-- EMInference: 50 iterations from 0.5, each parameter (1 + Σ update) / (2 + Σ weight), capped at
-- 1 − 1e-6; per result at PyClick rank k (0-based) of a page of n results with last click L (n
-- when there is none):
--   attr: 1 when clicked; else, when k ≥ L, (1 − E_k) attr / (1 − E_k car_k); weight 1. E_k is
--     the page's unconditional examination Π_{i<k} cont ((1 − sat_i) attr_i + 1 − attr_i),
--     car_k = attr_k + (1 − attr_k) cont car_{k+1} (car_n = 0);
--   sat: on a clicked result, weight 1, and at k = L: sat / (1 − (1 − sat) cont car_{k+1});
--   cont: P(E_k = 1, S_k = 0, E_{k+1} = 1 | clicks) over P(E_k = 1, S_k = 0 | clicks), from
--     PyClick's eight factors (x, y, z) of E_k, S_k, E_{k+1}: the clicks after k enter through
--     the conditional click probabilities of the results from k + 1 on, which PyClick computes
--     with the parameters of the page's first results (ranks 0, 1, …: its _get_tail_clicks
--     indexes the parameters from 0), reproduced here; a page without clicks counts E_{k+1} = 0
--     as impossible, as PyClick's last-click rank n makes it.
-- Each step runs PyClick's recurrences in its order of operations (list_reduce over a page's
-- lists), so the numbers agree to rounding.
CREATE OR REPLACE MACRO _ndcg_dbn(events_tbl, query_col := NULL, item_col := NULL,
                                  position_col := NULL, session_col := NULL, click_col := NULL,
                                  action_col := NULL, time_col := NULL, start_date := NULL,
                                  end_date := NULL, max_rank := NULL,
                                  needed_by := NULL) AS TABLE
WITH RECURSIVE _ndcg_results AS (
    SELECT _s, _q, _d, _p, _c::INTEGER AS _c,
           row_number() OVER (PARTITION BY _s, _q ORDER BY _p) AS _r,
           count(*) OVER (PARTITION BY _s, _q) AS _n
    FROM _ndcg_click_pages(events_tbl, query_col := query_col, item_col := item_col,
                           position_col := position_col, session_col := session_col,
                           click_col := click_col, action_col := action_col,
                           time_col := time_col, start_date := start_date,
                           end_date := end_date, max_rank := max_rank,
                           needed_by := needed_by)
),
_ndcg_pairs AS (
    SELECT _q, _d, count(*) AS _n, sum(_c) AS _clicks, min(_p) AS _rank
    FROM _ndcg_results GROUP BY _q, _d
),
_ndcg_em AS (
    SELECT 0 AS _it, _q, _d, 0.5::DOUBLE AS _attr, 0.5::DOUBLE AS _sat, 0.5::DOUBLE AS _cont
    FROM _ndcg_pairs
    UNION ALL
    (WITH _ndcg_now AS MATERIALIZED (
         SELECT * FROM _ndcg_em WHERE _it < 50
     ),
     _ndcg_pages AS (
         -- a page's parameters and clicks as lists in rank order; L: its last click (1-based
         -- rank, n + 1 without clicks: PyClick's n, 0-based)
         SELECT r._s, r._q, any_value(r._n) AS _n, any_value(now._cont) AS _g,
                coalesce(max(r._r) FILTER (WHERE r._c = 1), any_value(r._n) + 1) AS _last,
                list(now._attr ORDER BY r._r) AS _attrs, list(now._sat ORDER BY r._r) AS _sats,
                list(r._c ORDER BY r._r) AS _clks, list(r._d ORDER BY r._r) AS _items
         FROM _ndcg_results AS r JOIN _ndcg_now AS now ON now._q = r._q AND now._d = r._d
         GROUP BY r._s, r._q
     ),
     _ndcg_at AS (
         SELECT _s, _q, _n, _g, _last, _attrs, _sats, _clks, _items,
                unnest(range(1, _n + 1)) AS _r
         FROM _ndcg_pages
     ),
     _ndcg_terms AS (
         SELECT _q, _items[_r] AS _d, _r, _n, _g, _last, _attrs[_r] AS _a, _sats[_r] AS _s_,
                _clks[_r] AS _c,
                -- unconditional examination E_k
                list_reduce(list_transform(range(1, _r), lambda i: _g * ((1 - _sats[i]) * _attrs[i]
                                                                         + (1 - _attrs[i]))),
                            lambda acc, x: acc * x, 1.0::DOUBLE) AS _exam,
                -- car_k and car_{k+1}: backward over the page's tail
                list_reduce(list_reverse(list_slice(_attrs, _r, _n)),
                            lambda acc, x: x + (1 - x) * _g * acc, 0.0::DOUBLE) AS _car,
                list_reduce(list_reverse(list_slice(_attrs, _r + 1, _n)),
                            lambda acc, x: x + (1 - x) * _g * acc, 0.0::DOUBLE) AS _car_next,
                -- examination at k given the clicks above it (PyClick's exam_probs[k])
                list_reduce(list_transform(range(1, _r), lambda i: {a: _attrs[i], s: _sats[i],
                                                                   c: _clks[i], e: 0.0::DOUBLE,
                                                                   l: 0.0::DOUBLE}),
                            lambda acc, x: {a: 0.0::DOUBLE, s: 0.0::DOUBLE, c: 0,
                                            e: CASE WHEN x.c = 1 THEN _g * (1 - x.s)
                                                    ELSE acc.e * (_g * (1 - x.a)
                                                                  / (1 - x.a * acc.e)) END,
                                            l: 0.0::DOUBLE},
                            {a: 0.0::DOUBLE, s: 0.0::DOUBLE, c: 0, e: 1.0::DOUBLE,
                             l: 0.0::DOUBLE}).e AS _exam_given,
                -- Σ log P(click_j | clicks above, E_{k+1} = 1) for the results after k, with the
                -- parameters of ranks 0, 1, … (PyClick's indexing)
                list_reduce(list_transform(range(1, _n - _r + 1),
                                           lambda j: {a: _attrs[j], s: _sats[j], c: _clks[_r + j],
                                                      e: 0.0::DOUBLE, l: 0.0::DOUBLE}),
                            lambda acc, x: {a: 0.0::DOUBLE, s: 0.0::DOUBLE, c: 0,
                                            e: CASE WHEN x.c = 1 THEN _g * (1 - x.s)
                                                    ELSE acc.e * (_g * (1 - x.a)
                                                                  / (1 - x.a * acc.e)) END,
                                            l: acc.l + ln(CASE WHEN x.c = 1 THEN x.a * acc.e
                                                               ELSE 1 - x.a * acc.e END)},
                            {a: 0.0::DOUBLE, s: 0.0::DOUBLE, c: 0, e: 1.0::DOUBLE,
                             l: 0.0::DOUBLE}).l AS _tail
         FROM _ndcg_at
     ),
     _ndcg_factors AS (
         -- PyClick's factors: f000 (x = 0), f100, f101 (S_k = 0, E_{k+1} = 0 or 1), f110
         -- (S_k = 1); a click after k rules out E_{k+1} = 0
         SELECT *,
                CASE WHEN _c = 0 AND _last < _r + 1
                     THEN exp(ln(1 - _a) + ln(1 - _exam_given)) ELSE 0 END AS _f000,
                CASE WHEN _last >= _r + 1 THEN 0
                     WHEN _c = 0 THEN exp(ln(1 - _a) + ln(1 - _g) + ln(_exam_given))
                     ELSE exp(ln(_a) + ln(1 - _s_) + ln(1 - _g) + ln(_exam_given)) END AS _f100,
                exp(CASE WHEN _c = 0 THEN ln(1 - _a) + ln(_g)
                         ELSE ln(_a) + ln(1 - _s_) + ln(_g) END
                    + CASE WHEN _r < _n THEN _tail ELSE 0 END + ln(_exam_given)) AS _f101,
                CASE WHEN _c = 1 AND _last < _r + 1
                     THEN exp(ln(_a) + ln(_s_) + ln(_exam_given)) ELSE 0 END AS _f110
         FROM _ndcg_terms
     ),
     _ndcg_updates AS (
         SELECT _q, _d,
                CASE WHEN _c = 1 THEN 1
                     WHEN _r >= _last THEN (1 - _exam) * _a / (1 - _exam * _car) ELSE 0 END
                    AS _attr_up,
                CASE WHEN _c = 1 AND _r = _last
                     THEN _s_ / (1 - (1 - _s_) * _g * _car_next) ELSE 0 END AS _sat_up,
                _c AS _sat_weight,
                _f101 / (((_f000 + _f100) + _f101) + _f110) AS _cont_up,
                _f100 / (((_f000 + _f100) + _f101) + _f110)
                    + _f101 / (((_f000 + _f100) + _f101) + _f110) AS _cont_weight
         FROM _ndcg_factors
     ),
     _ndcg_cont AS (
         SELECT least((1 + sum(_cont_up)) / (2 + sum(_cont_weight)), 1 - 1e-6) AS _new
         FROM _ndcg_updates
     ),
     _ndcg_item AS (
         SELECT _q, _d, least((1 + sum(_attr_up)) / (2 + count(*)), 1 - 1e-6) AS _attr,
                least((1 + sum(_sat_up)) / (2 + sum(_sat_weight)), 1 - 1e-6) AS _sat
         FROM _ndcg_updates GROUP BY _q, _d
     )
     SELECT now._it + 1, now._q, now._d, i._attr, i._sat, c._new
     FROM _ndcg_now AS now JOIN _ndcg_item AS i ON i._q = now._q AND i._d = now._d,
          _ndcg_cont AS c)
)
SELECT p._q, p._d, p._n, p._clicks, p._rank, em._attr, em._sat, em._cont
FROM _ndcg_em AS em JOIN _ndcg_pairs AS p ON p._q = em._q AND p._d = em._d
WHERE em._it = 50;

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
