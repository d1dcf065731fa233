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
