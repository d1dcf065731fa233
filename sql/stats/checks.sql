-- The checks of the tests' settings and values: conf, eps, finiteness, resamples, seed, shift
-- (internal).

-- _ndcg_checked_conf(conf): conf when 0 < conf < 1, else an error naming it (internal).
CREATE OR REPLACE MACRO _ndcg_checked_conf(conf) AS
CASE WHEN conf > 0 AND conf < 1 THEN conf::DOUBLE
     ELSE error('duckdb_ndcg: conf must be between 0 and 1 (exclusive), got '
                || coalesce(conf::VARCHAR, 'NULL'))
END;

-- _ndcg_checked_eps(eps): eps as a DOUBLE when it is a finite number >= 0, else an error naming
-- it (internal; win_tie_loss). NULL counted no pair, a negative eps every pair a win and a loss,
-- NaN every pair a tie of nothing.
CREATE OR REPLACE MACRO _ndcg_checked_eps(eps) AS
CASE WHEN eps >= 0 AND isfinite(eps) THEN eps::DOUBLE
     ELSE error('duckdb_ndcg: eps must be a finite number >= 0, got '
                || coalesce(eps::VARCHAR, 'NULL'))
END;

-- _ndcg_checked_finite(bad, macro, what): 0 when bad = 0, else an error naming the macro, the
-- values (`what`) and how many rows held NaN or infinity (internal; every test's aggregate counts
-- its rows with a non-finite value in `bad` and adds this to `dropped`). A NaN difference was a
-- win in a sign count and NaN in a mean: refused, as scipy's nan_policy='raise' does; NULL is
-- the way to leave a row out.
CREATE OR REPLACE MACRO _ndcg_checked_finite(bad, macro, what) AS
CASE WHEN bad = 0 THEN 0::BIGINT
     ELSE error('duckdb_ndcg: ' || macro || ': ' || what || ' must be finite numbers, got NaN or '
                || 'infinity in ' || bad::VARCHAR || CASE WHEN bad = 1 THEN ' row' ELSE ' rows' END
                || ' (NULL leaves a row out)')
END;

-- _ndcg_checked_resamples(resamples): resamples as a BIGINT when it is a whole number >= 1, else an
-- error naming it (internal).
CREATE OR REPLACE MACRO _ndcg_checked_resamples(resamples) AS
CASE WHEN resamples >= 1 AND resamples = floor(resamples) THEN resamples::BIGINT
     ELSE error('duckdb_ndcg: resamples must be a whole number >= 1, got '
                || coalesce(resamples::VARCHAR, 'NULL'))
END;

-- _ndcg_checked_seed(seed): seed (an integer or text, its type kept) unless NULL, which is an
-- error naming it (internal; randomization_test, bootstrap_ci). A NULL seed hashed every draw to
-- NULL: randomization p = 1 and a one-point bootstrap interval.
CREATE OR REPLACE MACRO _ndcg_checked_seed(seed) AS
CASE WHEN seed IS NULL THEN error('duckdb_ndcg: seed must be an integer or text, got NULL')
     ELSE seed
END;

-- _ndcg_checked_shift(shift): shift as a DOUBLE when it is NULL or a finite number, else an error
-- naming it (internal; paired_ttest, welch_ttest). A NaN or infinite shift made every sum NaN.
CREATE OR REPLACE MACRO _ndcg_checked_shift(shift) AS
CASE WHEN shift IS NULL OR isfinite(shift::DOUBLE) THEN shift::DOUBLE
     ELSE error('duckdb_ndcg: shift must be a finite number or NULL, got ' || shift::VARCHAR)
END;
