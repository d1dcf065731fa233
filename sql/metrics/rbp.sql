-- rbp(rel, rnk, p := 0.8, k := NULL, threshold := 1, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- Rank-biased precision (Moffat & Zobel): (1 - p) * sum of p^(q - 1) over the positions q of the
-- relevant rows (rel >= threshold, binary) among the first k returned (k NULL: all of them);
-- ir_measures RBP(p=, rel=threshold), ranx rbp on binary judgments (ranx weighs by the grade).
-- Unjudged rows count as not relevant; the weight they and the positions after the ranking could
-- still add is rbp_residual(...) (a separate aggregate, so rbp stays a plain number to average).
--   p     persistence, in (0, 1).
--   ties  'average': each row of a tie group weighs the mean of its group's weights (the exact
--         expectation over tied orders); 'key': tie_key descending.
-- Example: SELECT avg(r) FROM (SELECT rbp(rel, rnk, p := 0.9) AS r FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO rbp(rel, rnk, p := 0.8, k := NULL, threshold := 1, ties := 'average',
                            tie_key := NULL) AS
_ndcg_rbp(_ndcg_relevant(rel, threshold), rnk, p, k, ties, tie_key);
