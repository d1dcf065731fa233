-- _ndcg_relevant(rel, threshold): 1 when grade rel >= threshold, else 0; NULL (unjudged) is 0;
-- a NaN grade is an error (internal). Binary relevance of the family metrics.
CREATE OR REPLACE MACRO _ndcg_relevant(rel, threshold) AS
CASE
    WHEN rel IS NULL THEN 0
    WHEN isnan(rel::DOUBLE) THEN error('duckdb_ndcg: grade must be a number, got NaN')
    WHEN rel >= threshold THEN 1
    ELSE 0
END;
