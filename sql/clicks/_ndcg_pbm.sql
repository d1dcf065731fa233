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
    -- two joins, 3x faster than window sums over the two partitionings
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
