-- _ndcg_top_n(k): a safe size for the top-N aggregates that read the first k rows: k when it is a
-- positive whole number, else 1 (internal). It never raises, so a literal k folds to a constant
-- and DuckDB drops the aggregates of the branches that k rules out; _ndcg_checked_k raises the
-- error for a bad k after aggregating.
CREATE OR REPLACE MACRO _ndcg_top_n(k) AS
greatest(coalesce(TRY_CAST(k AS BIGINT), 1), 1);
