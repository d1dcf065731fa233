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
