-- _ndcg_checked_resamples(resamples): resamples as a BIGINT when it is a whole number >= 1, else an
-- error naming it (internal).
CREATE OR REPLACE MACRO _ndcg_checked_resamples(resamples) AS
CASE WHEN resamples >= 1 AND resamples = floor(resamples) THEN resamples::BIGINT
     ELSE error('duckdb_ndcg: resamples must be a whole number >= 1, got '
                || coalesce(resamples::VARCHAR, 'NULL'))
END;
