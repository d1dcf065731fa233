-- _ndcg_checked_k(k): k itself when it is NULL or a positive whole number, else an error (internal).
-- NaN, infinity and text that is not a number are errors too, naming k. A cutoff beyond any list
-- (up to 1e300 or 2^63 - 1) is kept as 2^62: it cuts nothing, and k + 1 cannot overflow.
CREATE OR REPLACE MACRO _ndcg_checked_k(k) AS
CASE
    WHEN k IS NULL THEN NULL::BIGINT
    -- TRY_CAST throughout: DuckDB 1.4 and 1.5 evaluate every operand of OR, so k::DOUBLE of 'ten'
    -- would fail before the error below
    WHEN TRY_CAST(k AS DOUBLE) IS NULL OR isnan(TRY_CAST(k AS DOUBLE)) OR isinf(TRY_CAST(k AS DOUBLE))
         OR TRY_CAST(k AS DOUBLE) <= 0
         OR TRY_CAST(k AS DOUBLE) <> floor(TRY_CAST(k AS DOUBLE)) THEN
        error('duckdb_ndcg: k must be a positive whole number or NULL, got ' || k::VARCHAR)
    ELSE least(k::DOUBLE, 4611686018427387904.0)::BIGINT
END;
