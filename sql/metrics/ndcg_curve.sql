-- ndcg_curve(tbl, max_k := 10, gain := 'linear', log_base := 2, query_col := 'query_id',
--            rel_col := 'rel', rnk_col := 'rnk') -> TABLE(query_id, k BIGINT, ndcg DOUBLE)
-- NDCG@k for every k = 1..least(max_k, n) and every query of table `tbl` (a name, quoted as in SQL
-- when it needs quotes), n the most rows of any query (returned or judged only): beyond n no
-- query's NDCG@k changes, so a huge max_k costs no more than max_k := n. With the conventions of
-- the ndcg aggregate (average ties, NULL rnk = judged but not returned, NULL rel = unjudged).
-- Column names are given as strings.
-- Example: SELECT k, avg(ndcg) FROM ndcg_curve('judged_run', max_k := 20) GROUP BY k ORDER BY k;
CREATE OR REPLACE MACRO ndcg_curve(tbl, max_k := 10, gain := 'linear', log_base := 2,
                                   query_col := 'query_id', rel_col := 'rel', rnk_col := 'rnk') AS TABLE
SELECT query_id, cut.k, ndcg(rel, rnk, cut.k, gain := gain, log_base := log_base) AS ndcg
FROM (
    SELECT COLUMNS(lambda c: c = query_col) AS query_id,
           COLUMNS(lambda c: c = rel_col) AS rel,
           COLUMNS(lambda c: c = rnk_col) AS rnk
    FROM query_table(tbl)
) AS judged,
(
    -- the cutoffs: 1 .. least(max_k, the most rows of a query), one small list
    SELECT unnest(range(1, least(CASE
        WHEN max_k IS NULL THEN error('duckdb_ndcg: max_k must be a positive whole number, got NULL')
        ELSE _ndcg_checked_k(max_k)
    END, max(_ndcg_rows.n)) + 1)) AS k
    FROM (
        SELECT count(*) AS n
        FROM (SELECT COLUMNS(lambda c: c = query_col) AS query_id FROM query_table(tbl))
        GROUP BY query_id
    ) AS _ndcg_rows
) AS cut
GROUP BY query_id, cut.k
ORDER BY query_id, cut.k;
