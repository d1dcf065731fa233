-- _ndcg_t_cdf(t, df): P(T <= t) for Student's t with df > 0 degrees of freedom (internal). The
-- lower tail 0.5 I_x(df/2, 1/2) with x = df / (df + t^2) (_ndcg_betainc), so small tail
-- probabilities keep their relative precision; the upper side is 1 minus it.
CREATE OR REPLACE MACRO _ndcg_t_cdf(t, df) AS
list_transform(
    [0.5 * _ndcg_betainc(df / 2.0, 0.5, df / (df + t * t), t * t / (df + t * t))],
    lambda lower: CASE WHEN t > 0 THEN 1.0 - lower ELSE lower END)[1];
