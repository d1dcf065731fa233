-- _ndcg_checked_k(k): k itself when it is NULL or a positive whole number, else an error (internal).
CREATE OR REPLACE MACRO _ndcg_checked_k(k) AS
CASE
    WHEN k IS NULL THEN NULL::BIGINT
    WHEN k::DOUBLE <= 0 OR k::DOUBLE <> floor(k::DOUBLE) THEN
        error('duckdb_ndcg: k must be a positive whole number or NULL, got ' || k::VARCHAR)
    ELSE k::BIGINT
END;
