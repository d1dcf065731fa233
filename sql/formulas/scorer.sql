-- The spillable scorer: placed rows and ideal gains -> DCG, IDCG, CG and hit sums per (ranking,
-- cutoff), and NDCG from them (internal). The one place where the engines that must finish on
-- logs larger than memory (ndcg_report's _ndcg_report_rows, run_report) spread a tie group over
-- its positions and cut the ideal. Each judges its own input into the two tables below, which
-- these macros read by the name of a CTE of the caller (query_table: no user text goes into that
-- name), and every step is a hash aggregate, a window sort or a join: what DuckDB spills.

-- _ndcg_scored_gains(placed, cuts, log_base := NULL) -> TABLE(_key, _k, dcg, cg, hits)
-- The gains of the rows within each cutoff, summed per (ranking _key, cutoff _k) (internal).
--   placed  a CTE of rows (_key, _s, _n, _g, _hits): _s the first position of the row's tie group,
--           _n its size (the rows of one group share _key, _s and _n), _g the row's gain and _hits
--           how many relevant rows it stands for (0 or 1 for a row; a whole group may come as one
--           row with its summed gain and count). Rows with _g = 0 and _hits = 0 add nothing.
--   cuts    a CTE of the cutoffs _k (BIGINT; NULL = the whole ranking).
-- A group holding positions s .. s + n - 1 shows e - s + 1 of them within k (e = least(s + n - 1,
-- k)); each of those holds the group's mean gain (ties := 'average': the expectation over the
-- orders of its rows, exact when it straddles k), so it adds gain / n x (the discounts of s .. e)
-- to DCG, gain / n x (e - s + 1) to CG and hits / n x (e - s + 1) to the hit count. A row alone in
-- its group adds gain / discount(s). Groups are summed first, so a huge group costs its size
-- once. A ranking or cutoff no row reaches has no row here (a LEFT JOIN reads it as 0).
-- Example: WITH p AS (SELECT 'q' AS _key, 1 AS _s, 2 AS _n, 3.0 AS _g, 1 AS _hits),
--          c AS (SELECT 1::BIGINT AS _k) SELECT * FROM _ndcg_scored_gains('p', 'c', log_base := 2);
--          -- dcg 1.5, cg 1.5, hits 0.5
CREATE OR REPLACE MACRO _ndcg_scored_gains(placed, cuts, log_base := NULL) AS TABLE
SELECT _key, _k, fsum(_dcg) AS dcg, fsum(_cg) AS cg, fsum(_hit) AS hits
FROM (
    SELECT _key, _k, _g / _ndcg_discount(_s, log_base) AS _dcg, _g AS _cg, _hits AS _hit
    FROM query_table(placed), query_table(cuts)
    WHERE _n = 1 AND (_g <> 0 OR _hits <> 0) AND _s <= coalesce(_k, _s)
    UNION ALL
    SELECT _key, _k, _gain / _n * _ndcg_discount_sum(_s, _e, log_base),
           _gain / _n * (_e - _s + 1), _hits / _n * (_e - _s + 1)
    FROM (SELECT *, least(_s + _n - 1, coalesce(_k, _s + _n - 1)) AS _e
          FROM (SELECT _key, _s, _n, fsum(_g) AS _gain, sum(_hits) AS _hits
                FROM query_table(placed)
                WHERE _n > 1 AND (_g <> 0 OR _hits <> 0)
                GROUP BY ALL),
               query_table(cuts))
    WHERE _s <= coalesce(_k, _s)
)
GROUP BY _key, _k;

-- _ndcg_scored_ideal(ideal, cuts, log_base := NULL) -> TABLE(_key, _k, idcg)
-- IDCG per (ideal _key, cutoff _k) (internal): the gains best first, each discounted by its
-- position, cut at k.
--   ideal  a CTE of rows (_key, _g, _depth): the gains of the judged items of each ideal (the
--          query's, or a ranking's own when it repeats items); _depth, the same on every row of a
--          _key, is where the ideal ends when k is NULL (the returned rows, as the aggregates'
--          k NULL), NULL for no end (full_ideal).
--   cuts   as for _ndcg_scored_gains.
-- Example: WITH i AS (SELECT 'q' AS _key, unnest([3.0, 1.0]) AS _g, NULL::BIGINT AS _depth),
--          c AS (SELECT 1::BIGINT AS _k) SELECT * FROM _ndcg_scored_ideal('i', 'c', log_base := 2);
--          -- idcg 3.0
CREATE OR REPLACE MACRO _ndcg_scored_ideal(ideal, cuts, log_base := NULL) AS TABLE
SELECT _key, _k, fsum(_g / _ndcg_discount(_p, log_base)) AS idcg
FROM (SELECT _key, _g, _depth, row_number() OVER (PARTITION BY _key ORDER BY _g DESC) AS _p
      FROM query_table(ideal)),
     query_table(cuts)
WHERE _p <= coalesce(_k, _depth, _p)
GROUP BY _key, _k;

-- _ndcg_scored_ndcg(dcg, idcg, empty_ideal) -> DOUBLE (internal): NDCG from the scorer's sums,
-- a missing sum read as 0 (no row reached the cut); empty_ideal when the ideal is 0 (no relevant
-- item within it).
CREATE OR REPLACE MACRO _ndcg_scored_ndcg(dcg, idcg, empty_ideal) AS
coalesce(coalesce(dcg, 0.0) / nullif(coalesce(idcg, 0.0), 0), empty_ideal);

-- _ndcg_scored_precision(hits, k, returned) -> DOUBLE (internal): precision_at_k from the scorer's
-- hits (NULL: none reached the cut), divided by k, or by the returned rows when k is NULL; 0.0
-- for an empty ranking.
CREATE OR REPLACE MACRO _ndcg_scored_precision(hits, k, returned) AS
coalesce(coalesce(hits, 0.0) / nullif(coalesce(k, returned), 0), 0.0);

-- _ndcg_scored_recall(hits, relevant, empty_ideal) -> DOUBLE (internal): recall_at_k from the
-- scorer's hits over the relevant rows of the judged run; empty_ideal when there is none.
CREATE OR REPLACE MACRO _ndcg_scored_recall(hits, relevant, empty_ideal) AS
_ndcg_empty(coalesce(coalesce(hits, 0.0) / nullif(relevant, 0), 0.0), relevant, empty_ideal);

-- _ndcg_scored_f1(hits, k, returned, relevant, empty_ideal) -> DOUBLE (internal): f1_at_k from
-- the scorer's hits, 2 hits / (k + relevant), k the returned rows when NULL (as f1_at_k);
-- empty_ideal when there is no relevant row.
CREATE OR REPLACE MACRO _ndcg_scored_f1(hits, k, returned, relevant, empty_ideal) AS
_ndcg_empty(coalesce(2.0 * coalesce(hits, 0.0) / nullif(coalesce(k, returned) + relevant, 0),
                     0.0),
            relevant, empty_ideal);
