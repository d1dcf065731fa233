-- rbp_residual(rel, rnk, p := 0.8, k := NULL, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- The residual of rank-biased precision: the most that rbp could still grow if every unjudged
-- row (rel NULL) among the first k returned were relevant, and every position after them too:
-- (1 - p) * sum of p^(q - 1) over the unjudged positions q <= m, plus p^m, m = least(k, returned
-- rows) (Moffat & Zobel; rbp + rbp_residual is the upper bound). Same p, k and ties as rbp.
-- Example: SELECT rbp(rel, rnk), rbp_residual(rel, rnk) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO rbp_residual(rel, rnk, p := 0.8, k := NULL, ties := 'average',
                                     tie_key := NULL) AS
-- p checked here too: with a NULL p the sum below is folded to NULL before _ndcg_rbp could object
CASE WHEN _ndcg_p_error(p) IS NULL THEN
    _ndcg_rbp(CASE WHEN rel IS NULL THEN 1 ELSE 0 END, rnk, p, k, ties, tie_key)
    + pow(p::DOUBLE, least(_ndcg_checked_k(k), count(rnk)))
END;
