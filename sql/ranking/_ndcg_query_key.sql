-- _ndcg_query_key(query_id): query_id itself, or an error when it is NULL (internal). The mean_*
-- measures score each query_id's rows as one ranking: NULL would silently pool every row that
-- lacks a query into one ranking, as ndcg_report refuses NULL keys.
CREATE OR REPLACE MACRO _ndcg_query_key(query_id) AS
CASE
    WHEN query_id IS NULL THEN
        error('duckdb_ndcg: query_id is NULL in a row of a mean_* measure (each query_id''s rows '
              || 'form one ranking; filter or label those rows)')
    ELSE query_id
END;
