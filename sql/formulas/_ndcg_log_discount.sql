-- _ndcg_log_discount(pos, log_base) -> DOUBLE (internal): the discount log_base(pos + 1) of
-- 1-based position pos; log_base 'none' gives 1 (no discount: CG). NULL for a log_base that is
-- not a finite number greater than 1: no error, so that a list of weights made from it with a
-- constant log_base is computed once when DuckDB plans the query (_ndcg_weights; an expression
-- holding error() is never folded). _ndcg_discount is the same discount with the error.
-- The common base 2 is tested first: inside lambda bodies no branch is folded away.
-- Example: _ndcg_log_discount(3, 2) = 2.0
CREATE OR REPLACE MACRO _ndcg_log_discount(pos, log_base) AS
CASE
    WHEN TRY_CAST(log_base AS DOUBLE) = 2 THEN log2(pos + 1.0)
    WHEN log_base::VARCHAR = 'none' THEN 1.0::DOUBLE
    WHEN TRY_CAST(log_base AS DOUBLE) > 1 AND isfinite(TRY_CAST(log_base AS DOUBLE)) THEN
        ln(pos + 1.0) / ln(TRY_CAST(log_base AS DOUBLE))
END;
