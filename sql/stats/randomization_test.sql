-- randomization_test(b, a, resamples := 10000, seed := 42)
--   -> STRUCT(n BIGINT, mean_diff, p_value DOUBLE, dropped BIGINT)  [aggregate]
-- Fisher's paired randomization (sign-flip) test of B against A over a group's rows, one row per
-- query, two-sided: under the null each difference d = b - a is as likely to have the other
-- sign, so each resample flips the sign of every d with probability 1/2, and
-- p_value = (1 + #{resamples with |sum of flipped d| >= |sum of d|}) / (1 + resamples) (the
-- Monte-Carlo p-value that is never 0; within its Monte-Carlo error of the exact test that
-- enumerates all 2^n flips). Ties within 1e-12 relative count as reaching the observed value.
--   resamples  number of random sign-flip vectors (cost: resamples x n draws per group).
--   seed       any integer or text (NULL is an error): the same data and seed give the same
--              p-value. A draw is the
--              top bit of hash('seed:resample:i') (_ndcg_draw), i the position of d among the
--              group's sorted differences, so draws are independent across queries and resamples
--              and do not depend on row order.
-- Rows where a or b is NULL are dropped (`dropped` counts them); n = 0 gives NULL mean_diff and
-- p_value; all differences 0 gives p_value 1.
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(randomization_test(ndcg_b, ndcg_a, resamples := 100000)) FROM per_query;
CREATE OR REPLACE MACRO randomization_test(b, a, resamples := 10000, seed := 42) AS
list_transform(
    [{d: list_sort(coalesce(list((b - a)::DOUBLE) FILTER (WHERE b - a IS NOT NULL), []::DOUBLE[])),
      r: _ndcg_checked_resamples(resamples), seed: _ndcg_checked_seed(seed),
      dropped: count(*) - count(b - a)
               + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)),
                                      'randomization_test', 'b and a')}],
    lambda s: {n: len(s.d)::BIGINT,
               mean_diff: list_avg(s.d)::DOUBLE,
               -- the resamples in chunks of about 65,536 draws (c resamples of n), counted one
               -- chunk at a time by list_reduce: memory holds one chunk, not a list of every
               -- resample (1.9 GB at 1e8 resamples, outside memory_limit: lists are not
               -- buffer-managed); the same draws as one list, so the same p-value
               p_value: CASE WHEN len(s.d) > 0 THEN list_transform(
                   [greatest(1, 65536 // len(s.d))::BIGINT],
                   lambda c: (1.0 + list_reduce(
                       -- the start value 0 leads the list (DuckDB 1.4/1.5's list_reduce mixes
                       -- rows up with a third argument); then the chunks' first resamples
                       list_concat([0]::BIGINT[], range(1, s.r + 1, c)),
                       lambda hits, first: hits + len(list_filter(
                           range(first, least(first + c, s.r + 1)),
                           lambda r: abs(list_sum(list_transform(
                                         s.d,
                                         lambda x, i: CASE WHEN _ndcg_draw(s.seed, r, i) >> 63 = 1
                                                           THEN -x ELSE x END)))
                                     >= abs(list_sum(s.d)) * (1.0 - 1e-12)))))
                       / (1.0 + s.r))[1] END::DOUBLE,
               dropped: s.dropped})[1];
