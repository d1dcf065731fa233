-- TREC run and qrels files as tables.

-- _ndcg_trec_lines(path, kind) -> TABLE(query_id, item_id, value DOUBLE)
-- The checked lines of a TREC file (internal; behind read_qrels and read_trec_run). kind 'qrels':
-- "query_id iteration item_id grade", value = grade (exactly 4 fields); kind 'run': "query_id Q0
-- item_id rank score tag", value = score (6 fields; any after the tag are ignored, as trec_eval
-- ignores them). Every line is checked whichever columns a query selects (the checks are a
-- filter, which the optimiser cannot prune): the field count, a value that is not a finite number,
-- an item given twice for one query (naming both lines). With several bad lines, the error names
-- the first.
CREATE OR REPLACE MACRO _ndcg_trec_lines(path, kind) AS TABLE
SELECT query_id, item_id, value
FROM (
    SELECT *, arg_min(problem, line_no) FILTER (WHERE problem IS NOT NULL) OVER () AS first_problem
    FROM (
        SELECT
            line_no,
            fields[1] AS query_id,
            fields[3] AS item_id,
            TRY_CAST(fields[CASE kind WHEN 'qrels' THEN 4 ELSE 5 END] AS DOUBLE) AS value,
            CASE
                WHEN (kind = 'qrels' AND len(fields) <> 4) OR (kind = 'run' AND len(fields) < 6) THEN
                    path || ' line ' || line_no || ': a ' || kind || ' line has '
                    || CASE kind WHEN 'qrels' THEN '4 fields (query_id iteration item_id grade)'
                            ELSE '6 fields (query_id Q0 item_id rank score tag)' END
                    || ', got ' || len(fields)
                WHEN value IS NULL OR isnan(value) OR isinf(value) THEN
                    path || ' line ' || line_no || ': '
                    || CASE kind WHEN 'qrels' THEN 'grade' ELSE 'score' END || ' '''
                    || fields[CASE kind WHEN 'qrels' THEN 4 ELSE 5 END] || ''' is not a finite number'
                WHEN count(*) OVER (PARTITION BY fields[1], fields[3]) > 1 THEN
                    path || ': item ''' || fields[3] || ''' is '
                    || CASE kind WHEN 'qrels' THEN 'judged' ELSE 'listed' END || ' more than '
                    || 'once for query ''' || fields[1] || ''' (lines '
                    || array_to_string(list_sort(list(line_no) OVER (PARTITION BY fields[1], fields[3])),
                                       ', ')
                    || ')'
            END AS problem
        FROM _ndcg_read_fields(path)
    )
)
WHERE CASE WHEN first_problem IS NULL THEN true ELSE error('duckdb_ndcg: ' || first_problem) END;

-- _ndcg_read_fields(path): the whitespace-separated fields of each non-blank line of a text file,
-- with its line number (internal; the reader behind read_qrels and read_trec_run). Lines may end
-- in \n or \r\n, even mixed in one file (strict_mode = false).
CREATE OR REPLACE MACRO _ndcg_read_fields(path) AS TABLE
SELECT line_no, fields
FROM (
    SELECT row_number() OVER () AS line_no,
           list_filter(regexp_split_to_array(line, '\s+'), lambda f: f <> '') AS fields
    FROM read_csv(path, columns = {'line': 'VARCHAR'}, header = false, delim = '\0', quote = '',
                  escape = '', auto_detect = false, strict_mode = false)
)
WHERE len(fields) > 0;

-- read_trec_run(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, score DOUBLE, rnk BIGINT)
-- Reads a TREC run file ("query_id Q0 item_id rank score tag" per line, whitespace-separated:
-- spaces or tabs; blank lines are skipped). rnk follows trec_eval's order: score descending, then
-- item_id descending; the file's own rank column is ignored, as trec_eval ignores it. Errors name
-- the first bad line: fewer than 6 fields (fields after the tag are ignored, as in trec_eval), a
-- score that is not a finite number, an item listed twice for one query
-- (naming both lines; fatal in trec_eval too). Every line is checked whichever columns the query
-- selects.
-- Example: SELECT query_id, item_id, rnk FROM read_trec_run('run.txt') WHERE rnk <= 10;
CREATE OR REPLACE MACRO read_trec_run(path) AS TABLE
SELECT query_id, item_id, value AS score,
       row_number() OVER (PARTITION BY query_id ORDER BY value DESC, item_id DESC) AS rnk
FROM _ndcg_trec_lines(path, 'run');

-- read_qrels(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, rel DOUBLE)
-- Reads a TREC qrels file ("query_id iteration item_id grade" per line, whitespace-separated:
-- spaces or tabs; blank lines are skipped). Errors name the line: a line without 4 fields, a grade
-- that is not a finite number, an item judged twice for one query (naming both lines). Every line
-- is checked whichever columns the query selects.
-- Example: SELECT * FROM read_qrels('qrels.txt');
CREATE OR REPLACE MACRO read_qrels(path) AS TABLE
SELECT query_id, item_id, value AS rel
FROM _ndcg_trec_lines(path, 'qrels');
