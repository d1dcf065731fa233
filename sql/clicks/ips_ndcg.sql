-- ips_ndcg(logs_tbl, ranking_tbl, k := 10, propensity := 'power', eta := 1.0,
--          query_col := 'query_id', item_col := 'item_id', position_col := 'position',
--          session_col := 'session_id', click_col := 'click', rnk_col := 'rnk')
--   -> TABLE(query_id, searches BIGINT, clicked BIGINT, ips_dcg DOUBLE, ips_ndcg DOUBLE,
--            max_weight DOUBLE, warning VARCHAR)
-- Propensity-weighted click DCG and NDCG of a new ranking from a click log (Joachims,
-- Swaminathan, Schnabel 2017, "Unbiased Learning-to-Rank with Biased Feedback", the IPS
-- estimate of an additive metric with λ(rank) = 1 / log2(1 + rank); Agarwal et al. 2019):
-- clicks are relevance seen through examination, so each click weighs 1 / the examination
-- propensity of the position it was logged at, and the new ranking places the clicked items.
--   logs_tbl     one row per shown result: session_col (one search), query_col, item_col,
--                position_col, click_col (true/1 or false/0).
--   ranking_tbl  the new ranking: query_col, item_col, rnk_col (ascending; its order is the
--                new position; an item it lacks is not ranked).
--   propensity   'power': p(position) = 1 / position^eta (positions from 1); or the name of a
--                table with columns position and propensity (position_bias's output), every
--                clicked position listed, each propensity in (0, 1].
-- For a search s with clicked items C, logged positions pos(d), new rank r(d):
--   DCG_s@k  = Σ_{d in C, r(d) <= k} 1 / (p(pos(d)) × log2(1 + r(d)))
--   IDCG_s@k = Σ_{j <= min(k, |C|)} w_(j) / log2(1 + j), w_(j) the j-th largest 1 / p(pos(d))
--   NDCG_s@k = DCG_s@k / IDCG_s@k
-- Output per query, then all searches (query_id NULL): searches; clicked, the searches with a
-- click; ips_dcg, the mean DCG_s over all searches (one without clicks scores 0: the unbiased
-- estimate of the new ranking's DCG of relevance); ips_ndcg, the mean NDCG_s over the clicked
-- searches (a search without clicks has no ideal); max_weight, the largest 1 / p of a click;
-- warning, when the new ranking has no row for a logged query (a key mismatch would score 0).
-- Example: SELECT * FROM ips_ndcg('clicks', 'new_run', propensity := 'bias', k := 5);
CREATE OR REPLACE MACRO ips_ndcg(logs_tbl, ranking_tbl, k := 10, propensity := 'power',
                                 eta := 1.0, query_col := 'query_id', item_col := 'item_id',
                                 position_col := 'position', session_col := 'session_id',
                                 click_col := 'click', rnk_col := 'rnk') AS TABLE
WITH _ndcg_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = session_col) AS _s, COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _d, COLUMNS(lambda c: c = position_col) AS _pos,
           COLUMNS(lambda c: c = click_col)::VARCHAR AS _flag
    FROM query_table(logs_tbl)
),
_ndcg_logged AS (
    SELECT _s, _q, _d, TRY_CAST(_pos AS DOUBLE) AS _pos,
           CASE WHEN _flag IN ('1', 'true', '1.0') THEN 1
                WHEN _flag IN ('0', 'false', '0.0') THEN 0 END AS _click
    FROM _ndcg_read
),
-- the propensity table ('power' reads the logs' positions, unused, so that it binds)
_ndcg_bias AS (
    SELECT TRY_CAST(COLUMNS(lambda c: c = CASE WHEN coalesce(propensity, 'power') = 'power'
                                               THEN position_col ELSE 'position' END)
                    AS DOUBLE) AS _pos,
           TRY_CAST(COLUMNS(lambda c: c = CASE WHEN coalesce(propensity, 'power') = 'power'
                                               THEN position_col ELSE 'propensity' END)
                    AS DOUBLE) AS _prop
    FROM query_table(CASE WHEN coalesce(propensity, 'power') = 'power' THEN logs_tbl
                          ELSE propensity END)
    WHERE propensity <> 'power'
),
_ndcg_ranking AS (
    SELECT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _d,
           COLUMNS(lambda c: c = rnk_col) AS _r
    FROM query_table(ranking_tbl)
),
_ndcg_ranked AS (
    SELECT _q, _d, _r, row_number() OVER (PARTITION BY _q ORDER BY _r) AS _rank
    FROM _ndcg_ranking
),
_ndcg_clicked AS (
    SELECT l._s, l._q, l._d, l._pos,
           CASE WHEN propensity = 'power' THEN power(l._pos, -TRY_CAST(eta AS DOUBLE))
                ELSE b._prop END AS _p,
           b._pos IS NOT NULL AS _listed, r._rank
    FROM _ndcg_logged AS l
    LEFT JOIN _ndcg_bias AS b ON b._pos = l._pos
    LEFT JOIN _ndcg_ranked AS r ON r._q = l._q AND r._d = l._d
    WHERE l._click = 1
),
_ndcg_checks AS (
    SELECT (SELECT count(*) FILTER (WHERE _s IS NULL OR _q IS NULL OR _d IS NULL
                                     OR _pos IS NULL) FROM _ndcg_logged) AS _null_key,
           (SELECT count(*) FILTER (WHERE _click IS NULL) FROM _ndcg_logged) AS _bad_click,
           (SELECT count(*) - count(DISTINCT (_s, _q, _d)) FROM _ndcg_logged
            WHERE _click = 1) AS _twice,
           (SELECT count(*) FILTER (WHERE _pos IS NULL OR _prop IS NULL
                                     OR NOT (_prop > 0 AND _prop <= 1)) FROM _ndcg_bias)
               AS _bad_prop,
           (SELECT count(*) - count(DISTINCT _pos) FROM _ndcg_bias) AS _bias_twice,
           (SELECT min(_pos) FILTER (WHERE NOT _listed AND propensity <> 'power')
            FROM _ndcg_clicked) AS _unlisted,
           (SELECT min(_pos) FILTER (WHERE _pos < 1 OR _pos <> floor(_pos))
            FROM _ndcg_clicked) AS _bad_pos,
           (SELECT count(*) FILTER (WHERE _q IS NULL OR _d IS NULL OR _r IS NULL)
            FROM _ndcg_ranking) AS _null_rank,
           (SELECT count(*) - count(DISTINCT (_q, _d)) FROM _ndcg_ranking) AS _rank_twice,
           (SELECT count(*) - count(DISTINCT (_q, _r)) FROM _ndcg_ranking) AS _rank_ties,
           _ndcg_table_name(logs_tbl) AS _logs_name,
           _ndcg_table_name(ranking_tbl) AS _ranking_name
),
_ndcg_valid AS (
    SELECT CASE
        WHEN TRY_CAST(k AS DOUBLE) IS NULL OR NOT (TRY_CAST(k AS DOUBLE) >= 1)
             OR TRY_CAST(k AS DOUBLE) <> floor(TRY_CAST(k AS DOUBLE)) THEN
            error('duckdb_ndcg: k must be a whole number >= 1, got '
                  || coalesce(k::VARCHAR, 'NULL'))
        WHEN propensity IS NULL THEN
            error('duckdb_ndcg: propensity must be ''power'' or a table name, got NULL')
        WHEN propensity = 'power' AND (TRY_CAST(eta AS DOUBLE) IS NULL
                                       OR NOT (TRY_CAST(eta AS DOUBLE) >= 0)
                                       OR isinf(TRY_CAST(eta AS DOUBLE))) THEN
            error('duckdb_ndcg: propensity := ''power'' needs eta := <a finite number >= 0>, '
                  || 'got ' || coalesce(eta::VARCHAR, 'NULL'))
        WHEN _null_key > 0 THEN
            error('duckdb_ndcg: logs table ' || _logs_name || ' has NULL (or a position that '
                  || 'is not a number) in ' || session_col || ', ' || query_col || ', '
                  || item_col || ' or ' || position_col || ' (' || _null_key || ' rows)')
        WHEN _bad_click > 0 THEN
            error('duckdb_ndcg: ' || click_col || ' of logs table ' || _logs_name
                  || ' must be true/false or 1/0 (' || _bad_click || ' rows are not)')
        WHEN _twice > 0 THEN
            error('duckdb_ndcg: logs table ' || _logs_name || ' has ' || _twice || ' clicks on '
                  || 'an ' || item_col || ' already clicked in the same ' || session_col)
        WHEN _bias_twice > 0 THEN
            error('duckdb_ndcg: propensity table ' || propensity || ' lists ' || _bias_twice
                  || ' position more than once')
        WHEN _bad_prop > 0 THEN
            error('duckdb_ndcg: propensity of propensity table ' || propensity || ' must be a '
                  || 'probability in (0, 1] at a numeric position (' || _bad_prop
                  || ' rows are NULL, 0 or above 1)')
        WHEN _unlisted IS NOT NULL THEN
            error('duckdb_ndcg: ' || position_col || ' '
                  || CASE WHEN _unlisted = floor(_unlisted) THEN _unlisted::BIGINT::VARCHAR
                          ELSE _unlisted::VARCHAR END
                  || ' of a click in logs table ' || _logs_name || ' has no propensity in propensity table '
                  || propensity)
        WHEN propensity = 'power' AND _bad_pos IS NOT NULL THEN
            error('duckdb_ndcg: propensity := ''power'' reads ' || position_col || ' as whole '
                  || 'numbers from 1, but a click in logs table ' || _logs_name || ' is at '
                  || CASE WHEN _bad_pos = floor(_bad_pos) THEN _bad_pos::BIGINT::VARCHAR
                          ELSE _bad_pos::VARCHAR END)
        WHEN _null_rank > 0 THEN
            error('duckdb_ndcg: ranking table ' || _ranking_name || ' has NULL in ' || query_col
                  || ', ' || item_col || ' or ' || rnk_col || ' (' || _null_rank || ' rows)')
        WHEN _rank_twice > 0 THEN
            error('duckdb_ndcg: ranking table ' || _ranking_name || ' lists ' || _rank_twice
                  || ' (' || query_col || ', ' || item_col || ') more than once')
        WHEN _rank_ties > 0 THEN
            error('duckdb_ndcg: ' || rnk_col || ' of ranking table ' || _ranking_name
                  || ' has ' || _rank_ties || ' ties within a ' || query_col
                  || ' (the new ranking must order its items)')
        ELSE true
    END AS _checked  -- every number below reads it, so no projection skips a check
    FROM _ndcg_checks
),
_ndcg_ideal AS (
    SELECT *, 1 / _p AS _w,
           row_number() OVER (PARTITION BY _s, _q ORDER BY 1 / _p DESC) AS _ideal_rank
    FROM _ndcg_clicked
),
_ndcg_per_search AS (
    SELECT s._s, s._q, c._dcg, c._idcg, c._max_w,
           s._q IN (SELECT _q FROM _ndcg_ranking) AS _ranked
    FROM (SELECT DISTINCT _s, _q FROM _ndcg_logged) AS s
    LEFT JOIN (
        SELECT _s, _q,
               sum(CASE WHEN _rank <= k THEN _w / log2(1 + _rank) ELSE 0 END) AS _dcg,
               sum(CASE WHEN _ideal_rank <= k THEN _w / log2(1 + _ideal_rank) ELSE 0 END)
                   AS _idcg,
               max(_w) AS _max_w
        FROM _ndcg_ideal
        GROUP BY _s, _q
    ) AS c ON c._s IS NOT DISTINCT FROM s._s AND c._q IS NOT DISTINCT FROM s._q
)
SELECT _q AS query_id, count(*) AS searches, count(_idcg) AS clicked,
       CASE WHEN any_value(_checked) THEN avg(coalesce(_dcg, 0)) END AS ips_dcg,
       CASE WHEN any_value(_checked) THEN avg(_dcg / _idcg) END AS ips_ndcg,
       CASE WHEN any_value(_checked) THEN max(_max_w) END AS max_weight,
       CASE WHEN count(DISTINCT _q) FILTER (WHERE NOT _ranked) > 0 THEN
           CASE WHEN GROUPING(_q) = 0 THEN 'the new ranking has no row for this query: it '
                                           || 'scores 0'
                ELSE count(DISTINCT _q) FILTER (WHERE NOT _ranked) || ' of the '
                     || count(DISTINCT _q) || ' logged queries have no row in the new '
                     || 'ranking: they score 0' END
       END AS warning
FROM _ndcg_per_search, _ndcg_valid
GROUP BY GROUPING SETS ((_q), ())
ORDER BY GROUPING(_q), query_id;
