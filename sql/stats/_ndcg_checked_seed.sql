-- _ndcg_checked_seed(seed): seed (an integer or text, its type kept) unless NULL, which is an
-- error naming it (internal; randomization_test, bootstrap_ci). A NULL seed hashed every draw to
-- NULL: randomization p = 1 and a one-point bootstrap interval.
CREATE OR REPLACE MACRO _ndcg_checked_seed(seed) AS
CASE WHEN seed IS NULL THEN error('duckdb_ndcg: seed must be an integer or text, got NULL')
     ELSE seed
END;
