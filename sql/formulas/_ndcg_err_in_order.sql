-- _ndcg_err_in_order(grades, max_grade): ERR of grades in ranked order (unjudged as -1, read as
-- 0): sum over positions q of (1 / q) R_q prod_{i < q} (1 - R_i), R = (2^grade - 1) / 2^max_grade,
-- one running product (internal; err's value where the order of the rows is known: ties 'key',
-- or no tie group before the cut whose order matters). The start value is a constant, which
-- DuckDB 1.4/1.5's list_reduce keeps per row (checked against the formula on both).
CREATE OR REPLACE MACRO _ndcg_err_in_order(grades, max_grade) AS
coalesce(list_reduce(
    list_transform(grades, lambda g, q: {
        p: 1.0 - (pow(2.0, greatest(g, 0)) - 1.0) / pow(2.0, max_grade),
        s: (pow(2.0, greatest(g, 0)) - 1.0) / pow(2.0, max_grade) / q}),
    lambda acc, x: {p: acc.p * x.p, s: acc.s + acc.p * x.s},
    {p: 1.0::DOUBLE, s: 0.0::DOUBLE}).s, 0.0);
