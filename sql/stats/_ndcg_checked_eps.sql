-- _ndcg_checked_eps(eps): eps as a DOUBLE when it is a finite number >= 0, else an error naming
-- it (internal; win_tie_loss). NULL counted no pair, a negative eps every pair a win and a loss,
-- NaN every pair a tie of nothing.
CREATE OR REPLACE MACRO _ndcg_checked_eps(eps) AS
CASE WHEN eps >= 0 AND isfinite(eps) THEN eps::DOUBLE
     ELSE error('duckdb_ndcg: eps must be a finite number >= 0, got '
                || coalesce(eps::VARCHAR, 'NULL'))
END;
