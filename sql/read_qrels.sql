-- read_qrels(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, rel DOUBLE)
-- Reads a TREC qrels file ("query_id iteration item_id grade" per line, whitespace-separated:
-- spaces or tabs; blank lines are skipped). Errors name the line: a line without 4 fields, a grade
-- that is not a finite number, an item judged twice for one query (naming
-- both lines). Every line is checked whichever
-- columns the query selects.
-- Example: SELECT * FROM read_qrels('qrels.txt');
CREATE OR REPLACE MACRO read_qrels(path) AS TABLE
SELECT query_id, item_id, rel
FROM (
    SELECT
        fields[1] AS query_id,
        fields[3] AS item_id,
        TRY_CAST(fields[4] AS DOUBLE) AS rel,
        CASE
            WHEN len(fields) <> 4 THEN
                error('duckdb_ndcg: ' || path || ' line ' || line_no
                      || ': a qrels line has 4 fields (query_id iteration item_id grade), got '
                      || len(fields))
            WHEN rel IS NULL OR isnan(rel) OR isinf(rel) THEN
                error('duckdb_ndcg: ' || path || ' line ' || line_no || ': grade '''
                      || fields[4] || ''' is not a finite number')
            WHEN count(*) OVER (PARTITION BY fields[1], fields[3]) > 1 THEN
                error('duckdb_ndcg: ' || path || ': item ''' || fields[3] || ''' is judged more than '
                      || 'once for query ''' || fields[1] || ''' (lines '
                      || array_to_string(list_sort(list(line_no) OVER (PARTITION BY fields[1], fields[3])),
                                         ', ')
                      || ')')
            ELSE true
        END AS line_ok
    FROM _ndcg_read_fields(path)
)
WHERE line_ok;
