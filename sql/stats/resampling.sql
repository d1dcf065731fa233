-- The bootstrap interval and the randomization test.

-- _ndcg_draw(seed, resample, i): a pseudo-random UBIGINT for draw i of a resample, reproducible
-- for a seed (internal; randomization_test, bootstrap_ci). It hashes ONE combined value, the text
-- 'seed:resample:i': DuckDB's multi-argument hash(a, b, c) combines the arguments' hashes so
-- that the low bits are strongly correlated across arguments, which biases resampling tests.
CREATE OR REPLACE MACRO _ndcg_draw(seed, resample, i) AS
hash(seed::VARCHAR || ':' || resample::VARCHAR || ':' || i::VARCHAR);

-- _ndcg_sorted_quantile(sorted, q): the q-quantile of an ascending non-empty list with linear
-- interpolation between order statistics (quantile_cont, numpy's 'linear' / Hyndman-Fan type 7),
-- for a q that need not be a constant (internal).
CREATE OR REPLACE MACRO _ndcg_sorted_quantile(sorted, q) AS
list_transform(
    [(len(sorted) - 1) * q::DOUBLE],
    lambda h: sorted[floor(h)::BIGINT + 1]
              + (h - floor(h)) * (sorted[least(floor(h)::BIGINT + 2, len(sorted))]
                                  - sorted[floor(h)::BIGINT + 1]))[1];

-- bootstrap_ci(b, a, conf := 0.95, resamples := 2000, seed := 42)
--   -> STRUCT(n BIGINT, mean_diff, ci_low, ci_high DOUBLE, dropped BIGINT)  [aggregate]
-- Percentile bootstrap confidence interval of the mean difference mean(b - a) over a group's rows,
-- one row per query (pairs resampled, so the pairing is kept): each resample draws n differences
-- with replacement, and ci_low, ci_high are the (1 - conf)/2 and (1 + conf)/2 quantiles of the
-- resample means with linear interpolation (_ndcg_sorted_quantile), as
-- scipy.stats.bootstrap(method='percentile') computes them (the two differ by Monte-Carlo error:
-- other random numbers).
--   resamples  number of resamples (cost: resamples x n draws per group; memory: the resample
--              means, about 100 bytes each as DuckDB lists, and one chunk of draws).
--   seed       any integer or text (NULL is an error): the same data and seed give the same
--              interval. Draw i of
--              resample r is hash('seed:r:i') modulo n (_ndcg_draw) into the group's sorted
--              differences: independent across queries and resamples, independent of row order.
-- Rows where a or b is NULL are dropped (`dropped` counts them); n = 0 gives NULLs; n = 1 or all
-- differences equal gives the interval [mean_diff, mean_diff].
-- A NaN or infinite b - a (neither NULL) is an error counting such rows (_ndcg_checked_finite).
-- Example: SELECT unnest(bootstrap_ci(ndcg_b, ndcg_a, conf := 0.9)) FROM per_query;
CREATE OR REPLACE MACRO bootstrap_ci(b, a, conf := 0.95, resamples := 2000, seed := 42) AS
list_transform(
    [{d: list_sort(coalesce(list((b - a)::DOUBLE) FILTER (WHERE b - a IS NOT NULL), []::DOUBLE[])),
      r: _ndcg_checked_resamples(resamples), seed: _ndcg_checked_seed(seed),
      conf: _ndcg_checked_conf(conf),
      dropped: count(*) - count(b - a)
               + _ndcg_checked_finite(count(*) FILTER (WHERE NOT isfinite(b - a)),
                                      'bootstrap_ci', 'b and a')}],
    lambda s: list_transform(
        -- the resample means in chunks of about 65,536 draws (c resamples of n), appended one
        -- chunk at a time by list_reduce: memory holds the means and one chunk, not a list of
        -- every draw (resamples x n: 280 MB at 2,000 x 5,000, outside memory_limit: lists are not
        -- buffer-managed); the same draws and the same list_avg as one list, so the same interval.
        -- The start value [] leads the list (DuckDB 1.4/1.5's list_reduce mixes rows up with a
        -- third argument); then each chunk's first resample.
        [CASE WHEN len(s.d) > 0 THEN list_sort(list_transform(
             [greatest(1, 65536 // len(s.d))::BIGINT],
             lambda c: list_reduce(
                 list_concat([[]::DOUBLE[]],
                             list_transform(range(1, s.r + 1, c), lambda first: [first::DOUBLE])),
                 lambda means, first: list_concat(means, list_transform(
                     range(first[1]::BIGINT, least(first[1]::BIGINT + c, s.r + 1)),
                     lambda r: list_avg(list_transform(
                         range(1, len(s.d) + 1),
                         lambda i: s.d[(_ndcg_draw(s.seed, r, i) % len(s.d)::UBIGINT)::BIGINT
                                       + 1]))))))[1])
         END],
        lambda means: {n: len(s.d)::BIGINT, mean_diff: list_avg(s.d)::DOUBLE,
                       ci_low: _ndcg_sorted_quantile(means, (1.0 - s.conf) / 2.0)::DOUBLE,
                       ci_high: _ndcg_sorted_quantile(means, (1.0 + s.conf) / 2.0)::DOUBLE,
                       dropped: s.dropped})[1])[1];

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
