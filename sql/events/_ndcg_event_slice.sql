-- _ndcg_event_slice(x, query, query_col, events_name) -> the type of x (an aggregate)
-- The one value a query's events give slice column x (internal; _ndcg_report_rows, which calls
-- it on COLUMNS(...) grouped by query, so that each column keeps its name): NULL values are
-- skipped (NULL when there is none); two values are an error naming the events table, the query,
-- the column and two of them. A macro, so that x appears once in the COLUMNS expression.
CREATE OR REPLACE MACRO _ndcg_event_slice(x, query, query_col, events_name) AS
CASE WHEN min(x) <> max(x) THEN
         error('duckdb_ndcg: events table ' || any_value(events_name) || ' gives ' || query_col
               || ' ' || query::VARCHAR || ' more than one ' || any_value(alias(x)) || ' ('
               || min(x)::VARCHAR || ', ' || max(x)::VARCHAR
               || '): a slice taken from the events must have one value per query')
     ELSE min(x)
END;
