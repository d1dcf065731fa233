-- A ranking's weighted sum of gains, the one scoring primitive of the gain metrics (internal).

-- _ndcg_weighted_sum(ranking, k, ties, weight, param) -> DOUBLE (internal): the sum of value x
-- weight(position) over the first m positions of a ranking (_ndcg_ranking, built with the same k
-- and ties), ties averaged or in tie_key order as the ranking was built: DCG (weight 'log', param
-- its base), CG and counts ('none'), RBP ('geometric', param p). The weights of the positions are
-- one list w (_ndcg_weights) of the first k positions (k <= 100) or the first 512 (k NULL or
-- beyond 100), which DuckDB computes once, when it plans the query: a row's weight is one lookup
-- (positions past 512 compute theirs: _ndcg_weight). An untied row adds its value times its
-- position's weight, a tie group's rows their values times the group's mean weight
-- (_ndcg_group_weight: the exact expectation over the orders of its rows). Two ways to find the
-- tie group of a row, by the length of the ranking's keys: up to 512, a search of the keys per
-- row, cheapest on short lists but O(n) per row, with the group straddling m (which may reach
-- past the keys) added once at its full size; beyond, the tie groups of one merge
-- (_ndcg_tie_groups), O(n log n) in all (the timings that set the switch at 512:
-- benchmarks/results/design_timings.md). Rows are summed in key order with fsum: the result does not depend on the order the
-- aggregate met them. Inside lambda bodies DuckDB folds no constant and a CASE branch holding a
-- lambda costs every row, taken or not: the per-row CASE below holds none.
-- Example:
--   _ndcg_weighted_sum(_ndcg_ranking(rel, rnk, 10, 'average', NULL), 10, 'average', 'log', 2)
CREATE OR REPLACE MACRO _ndcg_weighted_sum(ranking, k, ties, weight, param) AS
-- the ranking and its weights w bound once ([...] with lambda r), as one flat struct (a nested
-- one cost 10% more; struct_insert's named argument is lost when a database file stores the
-- macro): outside every lambda body, where DuckDB drops the aggregates k and ties rule out and
-- computes w
list_transform([struct_concat(ranking, {w: _ndcg_weights(coalesce(_ndcg_read_depth(k), 512),
                                                          weight, param)})], lambda r: CASE
    WHEN ties = 'key' THEN coalesce(list_aggregate(list_transform(
        list_slice(r.in_order, 1, r.m),
        lambda x, q: x * coalesce(r.w[q], _ndcg_weight(q, weight, param))), 'fsum'), 0.0)
    WHEN len(r.keys) <= 512 THEN coalesce(list_aggregate(list_concat(
        -- each row before the cut, outside a straddling group: untied, or in a group from the
        -- first to the last position of its key
        list_transform(
            list_sort(list_filter(r.rows, lambda x: x.r < r.keys[r.m]
                OR (x.r = r.keys[r.m] AND r.straddle IS NULL))),
            lambda x: x.g * CASE
                WHEN r.keys[list_position(r.keys, x.r) + 1] IS DISTINCT FROM x.r THEN
                    r.w[list_position(r.keys, x.r)]
                ELSE _ndcg_group_weight(r.w, list_position(r.keys, x.r),
                                        len(r.keys) + 2 - list_position(r.keys, x.r)
                                        - list_position(list_reverse(r.keys), x.r), r.m)
            END),
        -- the group straddling m, at its full size
        CASE WHEN r.straddle IS NOT NULL THEN
            [list_aggregate(list_transform(list_filter(r.rows, lambda x: x.r = r.keys[r.m]),
                                           lambda x: x.g), 'fsum')
             * _ndcg_group_weight(r.w, list_position(r.keys, r.keys[r.m]), r.straddle, r.m)]
        END), 'fsum'), 0.0)
    -- the rows before the cut in key order, each times its group's weight: group j holds the
    -- (a + 1)th to (a + c)th of them, so its weight is repeated c times. Its positions' weights
    -- are computed one at a time (w stops at 512, and a slice of it here would copy all of it
    -- per group: quadratic)
    ELSE list_transform([{
        rows: list_sort(list_filter(r.rows, lambda x: x.r <= r.keys[r.m])),
        weights: flatten(list_transform(_ndcg_tie_groups(r), lambda g: list_resize(
            []::DOUBLE[], g.marked, coalesce(list_sum(list_transform(
                range(g.start, least(g.start + g.size - 1, r.m) + 1),
                lambda q: _ndcg_weight(q, weight, param))), 0.0) / g.size)))}],
        lambda rw: coalesce(list_aggregate(
            list_transform(rw.rows, lambda x, i: x.g * rw.weights[i]), 'fsum'), 0.0))[1]
END)[1];

-- _ndcg_weighted_list(items, m, weight, param) -> DOUBLE (internal): the sum of items[q] x
-- weight(q) over the first m positions of a list in rank order (all of them when m is NULL), each
-- position weighed by _ndcg_weight ('log' with its base, 'none', 'geometric'); 0 for an
-- empty or NULL list; a log base that is not a number > 1 is an error naming log_base. Ideal
-- DCGs and the list metrics. Each term is item x weight, as in _ndcg_weighted_sum, so a ranking
-- in ideal order has DCG equal to its ideal DCG to the last bit (NDCG exactly 1).
-- Example: _ndcg_weighted_list([3.0, 2.0, 0.0], 2, 'log', 2) = 3 / log2(2) + 2 / log2(3)
CREATE OR REPLACE MACRO _ndcg_weighted_list(items, m, weight, param) AS
CASE
    -- never true: _ndcg_discount raises the error for a bad base, folded away for a good one
    WHEN weight = 'log' AND _ndcg_discount(1, param) IS NULL THEN NULL
    ELSE coalesce(
        list_aggregate(list_transform(
            list_slice(items, 1, coalesce(m, 9223372036854775807)),
            lambda x, q: x * _ndcg_weight(q, weight, param)), 'fsum'),
        0.0)::DOUBLE
END;
