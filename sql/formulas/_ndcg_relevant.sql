-- _ndcg_relevant(rel, threshold): 1 when grade rel >= threshold, else 0; NULL (unjudged) is 0;
-- a NaN or infinite grade is an error (internal). Binary relevance of the family metrics.
CREATE OR REPLACE MACRO _ndcg_relevant(rel, threshold) AS
CASE
    WHEN coalesce(NOT isfinite(TRY_CAST(threshold AS DOUBLE)), true) THEN
        error('duckdb_ndcg: threshold must be a finite number, got '
              || coalesce(threshold::VARCHAR, 'NULL'))
    WHEN rel IS NULL THEN 0
    WHEN NOT isfinite(_ndcg_number(rel, 'rel')) THEN
        error('duckdb_ndcg: grade must be a finite number, got ' || rel::VARCHAR)
    WHEN _ndcg_number(rel, 'rel') >= threshold THEN 1
    ELSE 0
END;
