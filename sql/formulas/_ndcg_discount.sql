-- _ndcg_discount(pos, log_base): the discount log_base(pos + 1) of 1-based position pos (internal),
-- _ndcg_log_discount with its check: log_base 'none' means no discount (1), which turns DCG into
-- CG (cg, list_cg pass it); NULL, NaN, infinity, text and numbers <= 1 are errors naming log_base.
-- Example: _ndcg_discount(3, 2) = 2.0
CREATE OR REPLACE MACRO _ndcg_discount(pos, log_base) AS
CASE
    WHEN _ndcg_log_discount(1, log_base) IS NULL THEN
        error('duckdb_ndcg: log_base must be a finite number greater than 1, got '
              || coalesce(log_base::VARCHAR, 'NULL'))
    ELSE _ndcg_log_discount(pos, log_base)
END;
