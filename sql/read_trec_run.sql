-- read_trec_run(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, score DOUBLE, rnk BIGINT)
-- Reads a TREC run file ("query_id Q0 item_id rank score tag" per line, whitespace-separated:
-- spaces or tabs; blank lines are skipped). rnk follows trec_eval's order: score descending, then
-- item_id descending; the file's own rank column is ignored, as trec_eval ignores it. Errors name
-- the line: not 6 fields, a score that is not a finite number, an item listed twice for one query
-- (naming both lines; fatal in trec_eval too). Every line is checked whichever columns the query
-- selects.
-- Example: SELECT query_id, item_id, rnk FROM read_trec_run('run.txt') WHERE rnk <= 10;
CREATE OR REPLACE MACRO read_trec_run(path) AS TABLE
SELECT query_id, item_id, score,
       row_number() OVER (PARTITION BY query_id ORDER BY score DESC, item_id DESC) AS rnk
FROM (
    SELECT
        fields[1] AS query_id,
        fields[3] AS item_id,
        TRY_CAST(fields[5] AS DOUBLE) AS score,
        CASE
            WHEN len(fields) <> 6 THEN
                error('duckdb_ndcg: ' || path || ' line ' || line_no
                      || ': a run line has 6 fields (query_id Q0 item_id rank score tag), got '
                      || len(fields))
            WHEN score IS NULL OR isnan(score) OR isinf(score) THEN
                error('duckdb_ndcg: ' || path || ' line ' || line_no || ': score ''' || fields[5]
                      || ''' is not a finite number')
            WHEN count(*) OVER (PARTITION BY fields[1], fields[3]) > 1 THEN
                error('duckdb_ndcg: ' || path || ': item ''' || fields[3] || ''' is listed more than '
                      || 'once for query ''' || fields[1] || ''' (lines '
                      || array_to_string(list_sort(list(line_no) OVER (PARTITION BY fields[1], fields[3])),
                                         ', ')
                      || ')')
            ELSE true
        END AS line_ok
    FROM _ndcg_read_fields(path)
)
WHERE line_ok;
