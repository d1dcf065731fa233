-- sign_test(b, a) -> STRUCT(n, wins, losses BIGINT, p_value DOUBLE, dropped BIGINT)  [aggregate]
-- The two-sided sign test of B against A over a group's rows, one row per query: wins = queries
-- with b > a, losses = b < a, n = wins + losses (equal scores are left out, as the sign test
-- does), p_value = min(1, 2 P(X <= min(wins, losses))) for X ~ Binomial(n, 1/2); equal to
-- scipy.stats.binomtest(wins, n, 0.5).pvalue. The binomial CDF is exact, the regularized
-- incomplete beta I_{1/2}(n - k, k + 1) (sql/internal/_ndcg_betainc.sql).
-- Rows where a or b is NULL are dropped (`dropped` counts them); n = 0 gives p_value 1.
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(sign_test(ndcg_b, ndcg_a)) FROM per_query;
CREATE OR REPLACE MACRO sign_test(b, a) AS
list_transform(
    [{wins: count(CASE WHEN b > a THEN 1 END), losses: count(CASE WHEN b < a THEN 1 END),
      dropped: count(*) - count(b - a)
               + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)),
                                      'sign_test', 'b and a')}],
    lambda s: {n: s.wins + s.losses, wins: s.wins, losses: s.losses,
               p_value: CASE WHEN s.wins = s.losses THEN 1.0
                             ELSE least(1.0, 2.0 * _ndcg_betainc(
                                 greatest(s.wins, s.losses)::DOUBLE,
                                 least(s.wins, s.losses) + 1.0, 0.5, 0.5))
                        END::DOUBLE,
               dropped: s.dropped})[1];
