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
