-- read_qrels(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, rel DOUBLE)
-- Reads a TREC qrels file ("query_id iteration item_id grade" per line, whitespace-separated).
-- Errors name the line: a line without 4 fields, a grade that is not a number, an item judged twice
-- for one query.
-- Example: SELECT * FROM read_qrels('qrels.txt');
CREATE OR REPLACE MACRO read_qrels(path) AS TABLE
SELECT
    fields[1] AS query_id,
    fields[3] AS item_id,
    CASE
        WHEN len(fields) <> 4 THEN
            error('duckdb_ndcg: ' || path || ' line ' || line_no
                  || ': a qrels line has 4 fields (query_id iteration item_id grade), got '
                  || len(fields))
        WHEN TRY_CAST(fields[4] AS DOUBLE) IS NULL THEN
            error('duckdb_ndcg: ' || path || ' line ' || line_no || ': grade '''
                  || fields[4] || ''' is not a number')
        WHEN count(*) OVER (PARTITION BY fields[1], fields[3]) > 1 THEN
            error('duckdb_ndcg: ' || path || ': item ''' || fields[3] || ''' is judged twice for query '''
                  || fields[1] || '''')
        ELSE fields[4]::DOUBLE
    END AS rel
FROM _ndcg_read_fields(path);
