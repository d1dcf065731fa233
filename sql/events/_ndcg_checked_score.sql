-- _ndcg_checked_score(ndcg, key, k, empty_ideal): a query's NDCG@k when it is a finite number or
-- NULL, else an error naming the query (internal; compare_summary and ab_summary, before their
-- tests). empty_ideal := 'nan' gives a query with no relevant item NaN, which a test cannot use;
-- NULL (empty_ideal := NULL) leaves such a query out of every test.
CREATE OR REPLACE MACRO _ndcg_checked_score(ndcg, key, k, empty_ideal) AS
CASE WHEN isfinite(ndcg) IS NOT false THEN ndcg
     ELSE error('duckdb_ndcg: the NDCG' || coalesce('@' || k::VARCHAR, '') || ' of query '
                || to_json(key) || ' is NaN or infinite (empty_ideal := '
                || coalesce(empty_ideal::VARCHAR, 'NULL') || '): the tests need a number per '
                || 'query; empty_ideal := NULL leaves the queries with no relevant item out')
END;
