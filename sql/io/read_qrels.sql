-- read_qrels(path) -> TABLE(query_id VARCHAR, item_id VARCHAR, rel DOUBLE)
-- Reads a TREC qrels file ("query_id iteration item_id grade" per line, whitespace-separated:
-- spaces or tabs; blank lines are skipped). Errors name the line: a line without 4 fields, a grade
-- that is not a finite number, an item judged twice for one query (naming both lines). Every line
-- is checked whichever columns the query selects.
-- Example: SELECT * FROM read_qrels('qrels.txt');
CREATE OR REPLACE MACRO read_qrels(path) AS TABLE
SELECT query_id, item_id, value AS rel
FROM _ndcg_trec_lines(path, 'qrels');
