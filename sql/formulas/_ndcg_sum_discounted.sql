-- _ndcg_sum_discounted(gains, m, log_base): sum of gains[p] / log_base(p + 1) over the first m
-- positions (all of them when m is NULL); 0 for an empty or NULL list (internal).
CREATE OR REPLACE MACRO _ndcg_sum_discounted(gains, m, log_base) AS
coalesce(
    list_aggregate(list_transform(
        _ndcg_head(gains, m),
        lambda g, p: g / _ndcg_discount(p, log_base)), 'fsum'),
    0.0)::DOUBLE;
