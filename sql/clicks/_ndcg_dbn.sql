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
