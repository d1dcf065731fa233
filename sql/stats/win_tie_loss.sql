-- win_tie_loss(b, a, eps := 0.0) -> STRUCT(wins, ties, losses, dropped BIGINT)  [aggregate]
-- How many queries B wins (b - a > eps), ties (|b - a| <= eps) and loses (a - b > eps) against A
-- over a group's rows, one row per query. eps is a finite number >= 0 (else an error naming it).
-- Rows where a or b is NULL are dropped (`dropped` counts them).
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(win_tie_loss(ndcg_b, ndcg_a, eps := 1e-9)) FROM per_query;
CREATE OR REPLACE MACRO win_tie_loss(b, a, eps := 0.0) AS
{wins: count(CASE WHEN b - a > _ndcg_checked_eps(eps) THEN 1 END),
 ties: count(CASE WHEN abs(b - a) <= _ndcg_checked_eps(eps) THEN 1 END),
 losses: count(CASE WHEN a - b > _ndcg_checked_eps(eps) THEN 1 END),
 dropped: count(*) - count(b - a)
          + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)), 'win_tie_loss',
                                 'b and a')};
