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
