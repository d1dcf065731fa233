-- The discount of a position and the weights of positions and tie groups (internal).

-- _ndcg_discount(pos, log_base): the discount log_base(pos + 1) of 1-based position pos (internal),
-- _ndcg_log_discount with its check: log_base 'none' means no discount (1), which turns DCG into
-- CG (cg, list_cg pass it); NULL, NaN, infinity, text and numbers <= 1 are errors naming log_base.
-- Example: _ndcg_discount(3, 2) = 2.0
CREATE OR REPLACE MACRO _ndcg_discount(pos, log_base) AS
CASE
    WHEN _ndcg_log_discount(1, log_base) IS NULL THEN
        error('duckdb_ndcg: log_base must be a finite number greater than 1, got '
              || coalesce(log_base::VARCHAR, 'NULL'))
    ELSE _ndcg_log_discount(pos, log_base)
END;

-- _ndcg_log_discount(pos, log_base) -> DOUBLE (internal): the discount log_base(pos + 1) of
-- 1-based position pos; log_base 'none' gives 1 (no discount: CG). NULL for a log_base that is
-- not a finite number greater than 1: no error, so that a list of weights made from it with a
-- constant log_base is computed once when DuckDB plans the query (_ndcg_weights; an expression
-- holding error() is never folded). _ndcg_discount is the same discount with the error.
-- The common base 2 is tested first: inside lambda bodies no branch is folded away.
-- Example: _ndcg_log_discount(3, 2) = 2.0
CREATE OR REPLACE MACRO _ndcg_log_discount(pos, log_base) AS
CASE
    WHEN TRY_CAST(log_base AS DOUBLE) = 2 THEN log2(pos + 1.0)
    WHEN log_base::VARCHAR = 'none' THEN 1.0::DOUBLE
    WHEN TRY_CAST(log_base AS DOUBLE) > 1 AND isfinite(TRY_CAST(log_base AS DOUBLE)) THEN
        ln(pos + 1.0) / ln(TRY_CAST(log_base AS DOUBLE))
END;

-- _ndcg_discount_sum(first, last, log_base): the sum of 1 / discount(p) over positions p = first ..
-- last (0 when last < first) (internal; the weight a tie group's mean gain gets in the table
-- macros' DCG: ndcg_report's engine and run_report).
-- Example: _ndcg_discount_sum(3, 5, 2) = 1/log2(4) + 1/log2(5) + 1/log2(6)
CREATE OR REPLACE MACRO _ndcg_discount_sum(first, last, log_base) AS
coalesce(list_sum(list_transform(range(first, last + 1),
                                 lambda p: 1.0 / _ndcg_discount(p, log_base))), 0.0)::DOUBLE;

-- _ndcg_weight(q, weight, param) -> DOUBLE (internal): the weight of position q (1-based), the one
-- place the weights are defined:
--   'log'        1 / log_param(q + 1), the DCG discount (_ndcg_log_discount; param 'none': 1)
--   'none'       1: counts and CG
--   'geometric'  (1 - param) param^(q - 1): rank-biased precision, persistence param
-- A value at position q adds value x weight. No lambda and no error (NULL for a log base that is
-- not a number > 1): its callers check the base once (_ndcg_weights, _ndcg_weighted_list), and a
-- list of weights made from it with constant arguments is computed when DuckDB plans the query.
-- Example: _ndcg_weight(2, 'log', 2) = 1 / log2(3)
CREATE OR REPLACE MACRO _ndcg_weight(q, weight, param) AS
CASE
    WHEN weight = 'log' THEN 1.0 / _ndcg_log_discount(q, param)
    WHEN weight = 'none' THEN 1.0::DOUBLE
    WHEN weight = 'geometric' THEN
        (1.0 - TRY_CAST(param AS DOUBLE)) * pow(TRY_CAST(param AS DOUBLE), q - 1)
END;

-- _ndcg_weights(n, weight, param) -> DOUBLE[] (internal): the weights of positions 1 .. n
-- (_ndcg_weight: 'log' with its base, 'none', 'geometric'); a log base that is not a number > 1
-- is an error naming log_base (_ndcg_discount). With constant arguments DuckDB computes the list
-- once, when it plans the query; so callers build it outside every lambda body (inside one
-- nothing is folded) and index it per row: a position's weight is then one array lookup.
-- Example: _ndcg_weights(3, 'log', 2) = [1.0, 1 / log2(3), 0.5]
CREATE OR REPLACE MACRO _ndcg_weights(n, weight, param) AS
CASE
    -- never true: _ndcg_discount raises the error for a bad base, folded away for a good one
    WHEN weight = 'log' AND _ndcg_discount(1, param) IS NULL THEN NULL
    ELSE list_transform(range(1, n + 1), lambda q: _ndcg_weight(q, weight, param))
END;

-- _ndcg_group_weight(weights, s, n, m) -> DOUBLE (internal): the weight a tie group of n rows at
-- positions s .. s + n - 1 gives each of its rows: the mean of its positions' weights, those past
-- the cut m counting 0 (McSherry & Najork: the expectation over the orders of its rows). An
-- untied row (n = 1, s <= m) gets weights[s]. weights: _ndcg_weights, at least m long. No lambda,
-- so a per-row CASE may hold it at no cost to the rows that do not take it; but a slice copies
-- its whole list, so long rankings read their groups' weights one position at a time instead
-- (_ndcg_weighted_sum).
-- Example: _ndcg_group_weight(_ndcg_weights(10, 'log', 2), 2, 2, 10) = (1 / log2(3) + 0.5) / 2
CREATE OR REPLACE MACRO _ndcg_group_weight(weights, s, n, m) AS
coalesce(list_sum(list_slice(weights, s, least(s + n - 1, m))), 0.0) / n;
