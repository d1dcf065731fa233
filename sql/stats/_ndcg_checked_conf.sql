-- _ndcg_checked_conf(conf): conf when 0 < conf < 1, else an error naming it (internal).
CREATE OR REPLACE MACRO _ndcg_checked_conf(conf) AS
CASE WHEN conf > 0 AND conf < 1 THEN conf::DOUBLE
     ELSE error('duckdb_ndcg: conf must be between 0 and 1 (exclusive), got '
                || coalesce(conf::VARCHAR, 'NULL'))
END;
