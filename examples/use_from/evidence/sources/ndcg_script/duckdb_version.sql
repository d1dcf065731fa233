-- The DuckDB that Evidence's connector runs (1.4.2 in Evidence's template)
SELECT version() AS version
