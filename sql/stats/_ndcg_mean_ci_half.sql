-- _ndcg_mean_ci_half(sd, n, conf): the half-width of the conf t-interval of a mean of n values
-- with sample standard deviation sd: t_{(1 + conf)/2, n - 1} sd / sqrt(n) (internal;
-- ndcg_summary). NULL when n < 2; 0 when sd = 0.
CREATE OR REPLACE MACRO _ndcg_mean_ci_half(sd, n, conf) AS
CASE WHEN n >= 2 THEN
    CASE WHEN sd = 0 THEN 0.0
         ELSE _ndcg_t_quantile((1.0 + _ndcg_checked_conf(conf)) / 2.0, n - 1.0) * sd / sqrt(n)
    END
END::DOUBLE;
