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
-- arithmetic is the same as without this rule. O(min(w, J)) to start a group and per stop row:
-- its rows of grade 0 cost nothing each, groups without a stop row are skipped, and a group of
-- c stop rows costs O((c + 1) min(w, J)), c J <= 42 n / R_min: linear in the rows for a fixed
-- least R (integer grades: R >= 2^-max_grade; max_grade 4, 100,000 tied rows: a few seconds).
-- Each group's recurrence is a list_reduce over its own stop rows (read from the stop rows sorted
-- by key, where group j holds rows a + 1 .. a + c), run for all groups at once; a second, scalar
-- list_reduce over the groups carries P and the sum. Start values lead the lists (DuckDB
-- 1.4/1.5's list_reduce mixes rows up with a third argument).
CREATE OR REPLACE MACRO _ndcg_expected_err(groups, stops, m) AS
list_transform([{gs: list_filter(groups, lambda g: g.c > 0), ts: list_sort(stops)}], lambda v:
coalesce(list_reduce(list_concat(
    [{p: 1.0::DOUBLE, x: 0.0::DOUBLE}],
    list_transform(v.gs, lambda g: list_transform(
        -- w: the group's slots up to m; d: its mean R over all n rows (grade 0 counts as 0)
        [{w: least(g.n, m - g.s + 1),
          -- (indexed, not list_slice: a slice of the captured list per group copies it)
          d: list_sum(list_transform(range(g.c), lambda i: 1.0 - v.ts[g.a + 1 + i].t)) / g.n}],
        lambda h: list_transform(
        -- u: the slots kept, the first J = ceil(42 / d) when that is fewer than w (see above)
        [CASE WHEN h.d * h.w <= 42 THEN h.w ELSE ceil(42 / h.d)::BIGINT END],
        lambda u: list_transform(
        -- ebar_0 .. ebar_u of the group: its n - c rows of t = 1, then each stop row
        [list_reduce(list_concat(
            [{r: (g.n - g.c)::BIGINT,
              e: list_transform(range(u + 1),
                                lambda j: CASE WHEN j <= g.n - g.c THEN 1.0 ELSE 0.0 END::DOUBLE)}],
            list_transform(range(g.c), lambda i: {r: 0::BIGINT, e: [v.ts[g.a + 1 + i].t::DOUBLE]})),
            -- ebar_0 stays 1 (acc.e[0] is NULL) and ebar_j beyond the rows stays 0, exactly
            lambda acc, x: {r: acc.r + 1, e: list_transform(acc.e, lambda e, j:
                ((acc.r + 2 - j) * e + (j - 1) * x.e[1] * coalesce(acc.e[j - 1], 0.0))
                / (acc.r + 1))}).e],
        -- {p: product of t over the group (when wholly before the cut; 0 once truncated, which
        -- drops every later group), x: its term / P}
        lambda e: {p: CASE WHEN u < h.w THEN 0.0 ELSE e[-1] END,
                   x: coalesce(list_sum(list_transform(range(len(e) - 1),
                                   lambda j: (e[j + 1] - e[j + 2]) / (g.s + j))), 0.0)})[1]
        )[1])[1])),
    lambda acc, y: {p: acc.p * y.p, x: acc.x + acc.p * y.x}).x, 0.0::DOUBLE))[1];
