-- _ndcg_discount(pos, log_base): the discount log_base(pos + 1) of 1-based position pos (internal).
-- log_base 'none' means no discount (1), which turns DCG into CG (cg, list_cg pass it). NULL, NaN,
-- infinity, text and numbers <= 1 are errors naming log_base. The common base 2 is tested first:
-- inside lambda bodies the branches are not always folded away.
CREATE OR REPLACE MACRO _ndcg_discount(pos, log_base) AS
CASE
    WHEN TRY_CAST(log_base AS DOUBLE) = 2 THEN log2(pos + 1.0)
    WHEN log_base::VARCHAR = 'none' THEN 1.0::DOUBLE
    WHEN TRY_CAST(log_base AS DOUBLE) > 1 AND isfinite(TRY_CAST(log_base AS DOUBLE)) THEN
        ln(pos + 1.0) / ln(TRY_CAST(log_base AS DOUBLE))
    ELSE error('duckdb_ndcg: log_base must be a finite number greater than 1, got '
               || coalesce(log_base::VARCHAR, 'NULL'))
END;
