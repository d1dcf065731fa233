-- _ndcg_discount(pos, log_base): the discount log_base(pos + 1) of 1-based position pos (internal).
-- log_base NULL means no discount (1), which turns DCG into CG.
CREATE OR REPLACE MACRO _ndcg_discount(pos, log_base) AS
CASE
    WHEN log_base IS NULL THEN 1.0::DOUBLE
    WHEN log_base = 2 THEN log2(pos + 1.0)
    WHEN log_base > 1 THEN ln(pos + 1.0) / ln(log_base)
    ELSE error('duckdb_ndcg: log_base must be greater than 1, got ' || log_base::VARCHAR)
END;
