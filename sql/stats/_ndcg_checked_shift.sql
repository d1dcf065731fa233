-- _ndcg_checked_shift(shift): shift as a DOUBLE when it is NULL or a finite number, else an error
-- naming it (internal; paired_ttest, welch_ttest). A NaN or infinite shift made every sum NaN.
CREATE OR REPLACE MACRO _ndcg_checked_shift(shift) AS
CASE WHEN shift IS NULL OR isfinite(shift::DOUBLE) THEN shift::DOUBLE
     ELSE error('duckdb_ndcg: shift must be a finite number or NULL, got ' || shift::VARCHAR)
END;
