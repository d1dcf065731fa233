-- _ndcg_table_name(t) -> VARCHAR
-- The name of a table argument as text, for error messages (internal): 'events' for 'events',
-- and also for a bare, unquoted events or logs.events (the quotes users forget). A table
-- function binds a bare name among its arguments as its text (query_table(events) reads the
-- table), but pasted into an expression it would be a column; repeat(t, 1) is a table function,
-- so its one row is the name's text either way (DuckDB 1.4, 1.5 and 2.x).
CREATE OR REPLACE MACRO _ndcg_table_name(t) AS
(SELECT * FROM repeat(t, 1));
