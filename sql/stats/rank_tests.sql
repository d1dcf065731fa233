-- The sign and Wilcoxon signed-rank tests, and wins, ties and losses.

-- _ndcg_subset_sums(weights): for a list of non-negative integer weights, the number of subsets
-- with each total: element t + 1 counts the subsets summing to t (internal; the exact null
-- distribution of Wilcoxon's signed-rank statistic, sign flips of the ranks). Dynamic
-- programming over the weights, exact in DOUBLE up to 2^53 subsets. The list elements are
-- DOUBLE[] like the accumulator (DuckDB 1.5 requires it).
CREATE OR REPLACE MACRO _ndcg_subset_sums(weights) AS
list_reduce(
    -- the start value [1.0] leads the list, not a third argument: DuckDB 1.4/1.5's list_reduce
    -- with a start value mixes rows up when the lists' lengths differ
    list_concat([[1.0]::DOUBLE[]], list_transform(weights, lambda w: [w::DOUBLE])),
    lambda acc, w: list_transform(
        range(len(acc) + w[1]::BIGINT),
        lambda t: CASE WHEN t < len(acc) THEN acc[t + 1] ELSE 0.0 END
                  + CASE WHEN t >= w[1]::BIGINT THEN acc[t - w[1]::BIGINT + 1] ELSE 0.0 END));

-- sign_test(b, a) -> STRUCT(n, wins, losses BIGINT, p_value DOUBLE, dropped BIGINT)  [aggregate]
-- The two-sided sign test of B against A over a group's rows, one row per query: wins = queries
-- with b > a, losses = b < a, n = wins + losses (equal scores are left out, as the sign test
-- does), p_value = min(1, 2 P(X <= min(wins, losses))) for X ~ Binomial(n, 1/2); equal to
-- scipy.stats.binomtest(wins, n, 0.5).pvalue. The binomial CDF is exact, the regularized
-- incomplete beta I_{1/2}(n - k, k + 1) (_ndcg_betainc, sql/stats/distributions.sql).
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

-- wilcoxon_test(b, a)
--   -> STRUCT(n BIGINT, statistic, p_value DOUBLE, method VARCHAR, zeros, dropped BIGINT)
--   [aggregate]
-- Wilcoxon's signed-rank test of B against A over a group's rows, one row per query: two-sided,
-- equal to scipy.stats.wilcoxon(b, a) with its defaults (zero_method='wilcox', correction=False,
-- method='auto', scipy 1.17). The differences d = b - a that are 0 are left out (`zeros` counts
-- them) and the others ranked by |d|, tied values getting their mean rank; statistic =
-- min(R+, R-), the smaller rank sum of the positive and the negative differences. method:
--   'exact'   when n <= 50 with no zeros and no tied |d|, or when n <= 13 (n counts the zeros):
--             the exact distribution of R+ under random signs (all 2^m sign flips of the m
--             ranks, counted by dynamic programming; with ties or zeros this is the permutation
--             distribution scipy enumerates for n <= 13), p = min(1, 2 min(P(R+ <= r), P(R+ >= r))).
--   'normal'  otherwise: z = (R+ - m(m+1)/4) / sqrt((m(m+1)(2m+1) - sum(t^3 - t)/2) / 24), t the
--             sizes of tied groups, p = 2 P(Z > |z|), no continuity correction.
-- Rows where a or b is NULL are dropped (`dropped` counts them); n counts the pairs used. All
-- differences 0 (or n = 0) gives statistic 0 and p_value 1.
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(wilcoxon_test(ndcg_b, ndcg_a)) FROM per_query;
CREATE OR REPLACE MACRO wilcoxon_test(b, a) AS
list_transform(
    [{n: count(b - a), zeros: count(CASE WHEN b - a = 0 THEN 1 END),
      sorted: list_sort(coalesce(list(abs(b - a)) FILTER (WHERE b - a <> 0), []::DOUBLE[])),
      d: coalesce(list((b - a)::DOUBLE) FILTER (WHERE b - a <> 0), []::DOUBLE[]),
      dropped: count(*) - count(b - a)
               + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)),
                                      'wilcoxon_test', 'b and a')}],
    lambda s: list_transform(
        [{m: len(s.d)::DOUBLE,
          -- R+ with tied ranks averaged: positives placed first within each tie group, then
          -- last; the mean of the two position sums is the sum of their mean ranks
          r_plus: (list_sum(list_transform(
                       list_sort(list_transform(s.d, lambda x: {v: abs(x), neg: x < 0})),
                       lambda e, p: CASE WHEN e.neg THEN 0 ELSE p END))
                   + list_sum(list_transform(
                       list_sort(list_transform(s.d, lambda x: {v: abs(x), pos: x > 0})),
                       lambda e, p: CASE WHEN e.pos THEN p ELSE 0 END)))::DOUBLE / 2.0,
          starts: list_filter(range(1, len(s.sorted) + 1),
                              lambda p: p = 1 OR s.sorted[p] <> s.sorted[greatest(p - 1, 1)])}],
        lambda r: {n: s.n,
                   statistic: coalesce(least(r.r_plus, r.m * (r.m + 1) / 2.0 - r.r_plus), 0.0),
                   p_value: CASE
                       WHEN r.m = 0 THEN 1.0
                       WHEN s.n <= 13 OR (s.n <= 50 AND s.zeros = 0 AND len(r.starts) = r.m) THEN
                           list_transform(
                               [_ndcg_subset_sums(list_transform(
                                   s.sorted,
                                   lambda x: list_position(s.sorted, x)
                                             + r.m + 1 - list_position(list_reverse(s.sorted), x)))],
                               lambda c: least(1.0, 2.0 * least(
                                   list_sum(c[1:(2.0 * r.r_plus)::BIGINT + 1]),
                                   list_sum(c[(2.0 * r.r_plus)::BIGINT + 1:]))
                                   / list_sum(c)))[1]
                       ELSE 2.0 * _ndcg_norm_cdf(-abs(r.r_plus - r.m * (r.m + 1) / 4.0) / sqrt(
                           (r.m * (r.m + 1) * (2 * r.m + 1)
                            - list_sum(list_transform(
                                  r.starts,
                                  lambda st, g: pow(coalesce(r.starts[g + 1], len(s.sorted) + 1) - st, 3)
                                                - (coalesce(r.starts[g + 1], len(s.sorted) + 1) - st)))
                              / 2.0) / 24.0))
                   END::DOUBLE,
                   method: CASE WHEN s.n <= 13 OR (s.n <= 50 AND s.zeros = 0 AND len(r.starts) = r.m)
                                THEN 'exact' ELSE 'normal' END,
                   zeros: s.zeros, dropped: s.dropped})[1])[1];

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
