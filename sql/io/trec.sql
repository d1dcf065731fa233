-- TREC run and qrels files as tables.

-- _ndcg_trec_lines(path, kind) -> TABLE(query_id, item_id, value DOUBLE)
-- The checked lines of a TREC file (internal; behind read_qrels and read_trec_run). kind 'qrels':
-- "query_id iteration item_id grade", value = grade (exactly 4 fields); kind 'run': "query_id Q0
-- item_id rank score tag", value = score (6 fields; any after the tag are ignored, as trec_eval
-- ignores them). Every line is checked whichever columns a query selects (the checks are a
-- filter, which the optimiser cannot prune): the field count, a value that is not a finite number,
-- an item given twice for one query (naming both lines). With several bad lines, the error names
-- the first. The checks are aggregates over the lines, read once (fixed-size hash aggregates,
-- which spill; only the first duplicate's lines are listed), not windows over every line.
CREATE OR REPLACE MACRO _ndcg_trec_lines(path, kind) AS TABLE
WITH _ndcg_lines AS MATERIALIZED (
    SELECT line_no, fields[1] AS query_id, fields[3] AS item_id, len(fields) AS _fields,
           fields[CASE kind WHEN 'qrels' THEN 4 ELSE 5 END] AS _text,
           TRY_CAST(fields[CASE kind WHEN 'qrels' THEN 4 ELSE 5 END] AS DOUBLE) AS value
    FROM _ndcg_read_fields(path)
),
_ndcg_bad_line AS (
    -- the first line with a wrong number of fields, or a value that is not a finite number
    SELECT min(line_no) AS _at,
           arg_min(CASE
               WHEN (kind = 'qrels' AND _fields <> 4) OR (kind = 'run' AND _fields < 6) THEN
                   path || ' line ' || line_no || ': a ' || kind || ' line has '
                   || CASE kind WHEN 'qrels' THEN '4 fields (query_id iteration item_id grade)'
                           ELSE '6 fields (query_id Q0 item_id rank score tag)' END
                   || ', got ' || _fields
               ELSE path || ' line ' || line_no || ': '
                    || CASE kind WHEN 'qrels' THEN 'grade' ELSE 'score' END || ' '''
                    || _text || ''' is not a finite number'
           END, line_no) AS _problem
    FROM _ndcg_lines
    WHERE (kind = 'qrels' AND _fields <> 4) OR (kind = 'run' AND _fields < 6)
          OR value IS NULL OR isnan(value) OR isinf(value)
),
_ndcg_duplicate AS (
    -- the (query, item) given more than once whose first line comes first (a line that is bad
    -- itself is named for that first: the order of the checks of one line)
    SELECT arg_min({'q': query_id, 'i': item_id}, _first) AS _pair, min(_first) AS _at
    FROM (SELECT query_id, item_id, min(line_no) AS _first
          FROM _ndcg_lines GROUP BY query_id, item_id HAVING count(*) > 1)
),
_ndcg_problem AS (
    SELECT CASE
        WHEN b._at IS NOT NULL AND (d._at IS NULL OR b._at <= d._at) THEN b._problem
        WHEN d._at IS NOT NULL THEN
            path || ': item ''' || d._pair.i || ''' is '
            || CASE kind WHEN 'qrels' THEN 'judged' ELSE 'listed' END || ' more than once for '
            || 'query ''' || d._pair.q || ''' (lines '
            || (SELECT array_to_string(list(line_no ORDER BY line_no), ', ') FROM _ndcg_lines
                WHERE query_id = d._pair.q AND item_id = d._pair.i)
            || ')'
    END AS _problem
    FROM _ndcg_bad_line b, _ndcg_duplicate d
)
SELECT query_id, item_id, value
FROM _ndcg_lines, _ndcg_problem
WHERE CASE WHEN _problem IS NULL THEN true ELSE error('duckdb_ndcg: ' || _problem) END;

-- _ndcg_read_fields(path): the whitespace-separated fields of each non-blank line of a text file,
-- with its line number (internal; the reader behind read_qrels and read_trec_run). Lines may end
-- in \n or \r\n, even mixed in one file (strict_mode = false).
CREATE OR REPLACE MACRO _ndcg_read_fields(path) AS TABLE
SELECT line_no, regexp_split_to_array(_text, '\s+') AS fields
FROM (
    -- each line without the whitespace around it (what \s matches: space, \t, \n, \f, \r), so
    -- that splitting at runs of whitespace leaves no empty field (no lambda over the fields)
    SELECT row_number() OVER () AS line_no,
           trim(line, ' ' || chr(9) || chr(10) || chr(12) || chr(13)) AS _text
    FROM read_csv(path, columns = {'line': 'VARCHAR'}, header = false, delim = '\0', quote = '',
                  escape = '', auto_detect = false, strict_mode = false)
)
WHERE _text <> '';

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
