-- _ndcg_err_in_order(stops): ERR of a ranking whose order is known, from the rows that may stop
-- the user as {q: position, r: R} in rank order, R = (2^grade - 1) / 2^max_grade > 0 (every
-- other row stops no one and adds nothing): sum over them of (R_q / q) prod_{earlier} (1 - R),
-- one running product (internal; err's value under ties 'key', or when no tie group before the
-- cut has an order that matters). The start value is a constant, which DuckDB 1.4/1.5's
-- list_reduce keeps per row (checked against the formula on both).
-- Example: _ndcg_err_in_order([{q: 1, r: 0.5}, {q: 3, r: 0.25}]) = 0.5 + 0.5 * 0.25 / 3
CREATE OR REPLACE MACRO _ndcg_err_in_order(stops) AS
coalesce(list_reduce(
    list_transform(stops, lambda x: {p: 1.0 - x.r, s: x.r / x.q}),
    lambda acc, x: {p: acc.p * x.p, s: acc.s + acc.p * x.s},
    {p: 1.0::DOUBLE, s: 0.0::DOUBLE}).s, 0.0);
