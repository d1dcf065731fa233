-- _ndcg_log1p(u): ln(1 + u), accurate for small u (DuckDB has no log1p) (internal). The rounding
-- of w = 1 + u cancels in ln(w) * u / (w - 1) (Goldberg, "What every computer scientist should
-- know about floating-point arithmetic", theorem 4).
CREATE OR REPLACE MACRO _ndcg_log1p(u) AS
CASE WHEN 1.0::DOUBLE + u = 1.0 THEN u::DOUBLE
     ELSE ln(1.0::DOUBLE + u) * u / ((1.0::DOUBLE + u) - 1.0)
END;
