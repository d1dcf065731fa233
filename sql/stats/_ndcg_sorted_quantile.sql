-- _ndcg_sorted_quantile(sorted, q): the q-quantile of an ascending non-empty list with linear
-- interpolation between order statistics (quantile_cont, numpy's 'linear' / Hyndman-Fan type 7),
-- for a q that need not be a constant (internal).
CREATE OR REPLACE MACRO _ndcg_sorted_quantile(sorted, q) AS
list_transform(
    [(len(sorted) - 1) * q::DOUBLE],
    lambda h: sorted[floor(h)::BIGINT + 1]
              + (h - floor(h)) * (sorted[least(floor(h)::BIGINT + 2, len(sorted))]
                                  - sorted[floor(h)::BIGINT + 1]))[1];
