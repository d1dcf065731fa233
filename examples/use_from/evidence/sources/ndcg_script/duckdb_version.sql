-- The DuckDB that Evidence's connector runs (1.4.2 in Evidence's template, 1.4.3 here)
SELECT version() AS version
