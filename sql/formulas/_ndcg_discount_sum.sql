-- _ndcg_discount_sum(first, last, log_base): the sum of 1 / discount(p) over positions p = first ..
-- last (0 when last < first) (internal; the weight a tie group's mean gain gets in the table
-- macros' DCG: ndcg_report's engine and run_report).
-- Example: _ndcg_discount_sum(3, 5, 2) = 1/log2(4) + 1/log2(5) + 1/log2(6)
CREATE OR REPLACE MACRO _ndcg_discount_sum(first, last, log_base) AS
coalesce(list_sum(list_transform(range(first, last + 1),
                                 lambda p: 1.0 / _ndcg_discount(p, log_base))), 0.0)::DOUBLE;
