-- _ndcg_draw(seed, resample, i): a pseudo-random UBIGINT for draw i of a resample, reproducible
-- for a seed (internal; randomization_test, bootstrap_ci). It hashes ONE combined value, the text
-- 'seed:resample:i': DuckDB's multi-argument hash(a, b, c) combines the arguments' hashes so
-- that the low bits are strongly correlated across arguments, which biases resampling tests.
CREATE OR REPLACE MACRO _ndcg_draw(seed, resample, i) AS
hash(seed::VARCHAR || ':' || resample::VARCHAR || ':' || i::VARCHAR);
