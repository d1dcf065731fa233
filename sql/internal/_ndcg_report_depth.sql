-- _ndcg_report_depth(k): how deep a report reads each ranking, from its k argument (one cutoff or
-- a list): the deepest cutoff, or NULL (the whole ranking) when one of them is NULL (internal).
-- Written without lambdas, so that a literal k folds to a constant and the report's aggregates
-- for the other depth drop out; a k that is not whole numbers reads whole rankings here and is
-- rejected by _ndcg_report_cuts.
CREATE OR REPLACE MACRO _ndcg_report_depth(k) AS
CASE
    WHEN k IS NULL THEN NULL
    WHEN list_count(TRY_CAST('[' || trim(k::VARCHAR, '[]') || ']' AS BIGINT[]))
         < len(TRY_CAST('[' || trim(k::VARCHAR, '[]') || ']' AS BIGINT[])) THEN NULL
    WHEN list_max(TRY_CAST('[' || trim(k::VARCHAR, '[]') || ']' AS BIGINT[])) > 100 THEN NULL
    ELSE list_max(TRY_CAST('[' || trim(k::VARCHAR, '[]') || ']' AS BIGINT[]))
END;
