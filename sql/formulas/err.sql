-- Expected reciprocal rank, in order and over tie groups (internal).

-- _ndcg_err_classes(ts, a, c, u): the stop rows a + 1 .. a + c of ts (one tie group's, sorted by
-- t; {r: rank key, t: 1 - R}) as the items _ndcg_expected_err adds to the group's mean products:
-- each run of one t of more than u rows as one item {r: its size, e: [t]}, added at once, and
-- every other row as {r: 0, e: [t]}, added alone (internal). The runs are found by comparing
-- neighbours: their first and last rows, zipped.
CREATE OR REPLACE MACRO _ndcg_err_classes(ts, a, c, u) AS
flatten(list_transform(list_zip(
    list_filter(range(c), lambda i: i = 0 OR ts[a + 1 + i].t <> ts[a + i].t),
    list_filter(range(c), lambda i: i = c - 1 OR ts[a + 1 + i].t <> ts[a + 2 + i].t)),
    lambda b: CASE
        WHEN b[2] - b[1] + 1 > u THEN
            [{r: (b[2] - b[1] + 1)::BIGINT, e: [ts[a + 1 + b[1]].t::DOUBLE]}]
        ELSE list_transform(range(b[1], b[2] + 1),
                            lambda i: {r: 0::BIGINT, e: [ts[a + 1 + i].t::DOUBLE]})
    END));

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

-- _ndcg_expected_err(groups, stops, m): expected reciprocal rank over the first m positions when
-- every tie group is in a uniformly random order (internal); groups from _ndcg_tie_groups with
-- c = the rows of non-zero stop probability, stops those rows as {r: rank key, t: 1 - R} (any
-- order; every other row has t = 1). ERR = sum_q (S_{q-1} - S_q) / q with S_q the product of t
-- over the first q positions. Groups before a tie group lie wholly before it, so the expected
-- S at its slot j (0-based) is the product P of t over the earlier groups times the mean product
-- of t over a uniformly random j-subset of the group, e_j(t) / C(n, j) (elementary symmetric
-- polynomial): the group adds P sum_{j < w} (ebar_j - ebar_{j+1}) / (s + j), w = its slots up to
-- m, and P takes the product of its t. ebar_0..ebar_w come from a recurrence over the group's
-- rows that starts from its n - c rows of t = 1 (ebar_j = 1 for j <= n - c) and adds one stop
-- row at a time (r rows so far): ebar_j <- ((r + 1 - j) ebar_j + j t ebar_{j-1}) / (r + 1), a
-- convex combination, so no binomial overflows; ebar_j reads only ebar_{j-1} and itself.
-- Far slots are dropped. By Maclaurin's inequality (ebar_j^(1/j) falls with j for t >= 0),
-- ebar_j <= ebar_1^j = (1 - d)^j <= e^(-d j), d = the group's mean R over all n rows (grade 0
-- as 0, so a group of many zeros keeps many slots). A group keeps slots j < J = ceil(42 / d)
-- when J < w, there ebar_J <= e^-42 < 2^-60 (42 > 60 ln 2 = 41.59 leaves room for d's own
-- rounding), and then contributes nothing after them (P := 0,
-- so later groups add nothing either). What is dropped is the sum over q >= s + J of
-- (E[S_{q-1}] - E[S_q]) / q, in [0, P ebar_J / (s + J)], while ERR >= (1 - P ebar_J) / (s + J - 1):
-- the drop only lowers the result, by under e^-42 < 5.8e-19 absolute and
-- under 2^-60 relative (1/128 of a double's rounding unit). Without a drop (J >= w) the
-- arithmetic is the same as without this rule. The groups after the first one cut short add
-- nothing (P = 0) and are not computed; nor is a group with a stop rows before it when
-- a (-ln tmax) >= 42, tmax the largest t of a stop row: its P <= tmax^a <= e^-42, and the same
-- bound holds for what it and every later group would add (once, at one position).
-- Rows of one t are one class (integer grades: at most max_grade classes). A class of more rows
-- than the u slots kept is added at once, slot by slot: with r rows so far and x of the class,
-- q_j[i] = P(i of the first j slots hold class rows) t^i (hypergeometric, a convex recurrence in
-- j: q_{j+1}[i] = (q_j[i] (r - j + i) + t q_j[i - 1] (x - i + 1)) / (r + x - j)) and
-- ebar'_j = sum_i q_j[i] ebar_{j - i}: O(u min(u, x)) for x rows, not O(u x). The other stop
-- rows go one at a time as above. A group costs O(u) per row of a class of at most u rows and
-- O(u^2) per larger class, u <= ceil(42 / d): still c u for c rows of distinct real grades and
-- u^2 for a class of about u rows (timings: benchmarks/results/design_timings.md).
-- Each group's ebar is a list_reduce over its classes and rows (read from the stop rows sorted
-- by key and t, where group j holds rows a + 1 .. a + c), run for all groups at once; a second,
-- scalar list_reduce over the groups carries P and the sum. Start values lead the lists (DuckDB
-- 1.4/1.5's list_reduce mixes rows up with a third argument). Lambdas are nested as shallowly as
-- the math allows: DuckDB binds a lambda body again for each lambda around it, so every level
-- doubles the time to bind what is inside it (design_timings.md: one level more around the
-- class merge made err ten times slower to bind).
CREATE OR REPLACE MACRO _ndcg_expected_err(groups, stops, m) AS
list_transform([{gs: list_filter(groups, lambda g: g.marked > 0), ts: list_sort(stops),
                 tmax: list_max(list_transform(stops, lambda x: x.t))}], lambda v:
list_transform([list_transform(list_transform(v.gs, lambda g: {
    start: g.start, size: g.size, before: g.before, marked: g.marked,
    -- w: the group's slots up to m; d: its mean R over all n rows (grade 0 counts as 0)
    w: least(g.size, m - g.start + 1),
    -- (indexed, not list_slice: a slice of the captured list per group copies it)
    d: list_sum(list_transform(range(g.marked), lambda i: 1.0 - v.ts[g.before + 1 + i].t))
       / g.size}),
    lambda g: {
    start: g.start, size: g.size, before: g.before, marked: g.marked, w: g.w,
    -- u: the slots kept, the first J = ceil(42 / d) when that is fewer than w (see above)
    u: CASE WHEN g.d * g.w <= 42 THEN g.w ELSE ceil(42 / g.d)::BIGINT END})],
lambda hs:
coalesce(list_reduce(list_concat(
    [{p: 1.0::DOUBLE, x: 0.0::DOUBLE}],
    list_transform(
        -- the groups that can add anything: up to the first one cut short (P := 0 after it),
        -- and before a stop rows of t <= tmax, whose P <= tmax^a, reach e^-42
        list_slice(hs, 1, least(
            coalesce(list_position(list_transform(hs, lambda g: g.u < g.w), true), len(hs)),
            len(list_filter(hs, lambda g: g.before * -ln(v.tmax) < 42)))),
        lambda g: list_transform(
        -- ebar_0 .. ebar_u of the group: its n - c rows of t = 1, then each class of more than
        -- u rows at once (r: its size; there is none when c <= u), then the other stop rows one
        -- at a time (r: 0; all of them in order of t when c <= u)
        [list_reduce(list_concat(
            [list_reduce(list_concat(
                [{r: (g.size - g.marked)::BIGINT,
                  e: list_transform(range(g.u + 1), lambda j:
                                    CASE WHEN j <= g.size - g.marked THEN 1.0 ELSE 0.0
                                    END::DOUBLE)}],
                CASE WHEN g.marked > g.u
                     THEN list_filter(_ndcg_err_classes(v.ts, g.before, g.marked, g.u),
                                      lambda x: x.r > 0) END),
                -- x.r rows of t = x.e[1] into the acc.r rows so far: slot by slot, q[i + 1] =
                -- P(i of the first j slots hold the class's rows) t^i, a hypergeometric
                -- (convex) recurrence in j, and ebar'_j = sum_i q[i + 1] ebar_{j - i}
                lambda acc, x: {r: acc.r + x.r, e: list_concat(
                    list_reduce(list_concat(
                        [{q: [1.0::DOUBLE], o: []::DOUBLE[]}],
                        list_transform(range(least(g.u, acc.r + x.r) + 1),
                                       lambda j: {q: [j::DOUBLE], o: []::DOUBLE[]})),
                        lambda z, y: {
                            o: list_append(z.o, list_inner_product(z.q, list_reverse(list_slice(
                                acc.e, y.q[1]::BIGINT + 2 - len(z.q), y.q[1]::BIGINT + 1)))),
                            q: list_transform(range(least(y.q[1]::BIGINT + 1, x.r) + 1), lambda i:
                                (coalesce(z.q[i + 1], 0.0) * (acc.r - y.q[1] + i)
                                 + x.e[1] * coalesce(z.q[i], 0.0) * (x.r - i + 1))
                                / greatest(acc.r + x.r - y.q[1], 1))}).o,
                    list_transform(range(g.u - least(g.u, acc.r + x.r)), lambda j: 0.0::DOUBLE))})],
            CASE WHEN g.marked > g.u
                 THEN list_filter(_ndcg_err_classes(v.ts, g.before, g.marked, g.u),
                                  lambda x: x.r = 0)
                 ELSE list_transform(range(g.marked), lambda i:
                                     {r: 0::BIGINT, e: [v.ts[g.before + 1 + i].t::DOUBLE]})
            END),
            -- one row: ebar_0 stays 1 (acc.e[0] is NULL) and ebar_j beyond the rows stays 0
            lambda acc, x: {r: acc.r + 1, e: list_transform(acc.e, lambda e, j:
                ((acc.r + 2 - j) * e + (j - 1) * x.e[1] * coalesce(acc.e[j - 1], 0.0))
                / (acc.r + 1))}).e],
        -- {p: product of t over the group (when wholly before the cut; 0 once truncated, which
        -- drops every later group), x: its term / P}
        lambda e: {p: CASE WHEN g.u < g.w THEN 0.0 ELSE e[-1] END,
                   x: coalesce(list_sum(list_transform(range(len(e) - 1),
                                   lambda j: (e[j + 1] - e[j + 2]) / (g.start + j))), 0.0)})[1])),
    lambda acc, y: {p: acc.p * y.p, x: acc.x + acc.p * y.x}).x, 0.0::DOUBLE))[1])[1];
