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
-- convex combination, so no binomial overflows. O(w) to start a group and O(w) per stop row:
-- its rows of grade 0 cost nothing each, groups without a stop row are skipped, and a group of
-- c stop rows and w slots before the cut costs O((c + 1) w).
-- Each group's recurrence is a list_reduce over its own stop rows (read from the stop rows sorted
-- by key, where group j holds rows a + 1 .. a + c), run for all groups at once; a second, scalar
-- list_reduce over the groups carries P and the sum. Start values lead the lists (DuckDB
-- 1.4/1.5's list_reduce mixes rows up with a third argument).
CREATE OR REPLACE MACRO _ndcg_expected_err(groups, stops, m) AS
list_transform([{gs: list_filter(groups, lambda g: g.c > 0), ts: list_sort(stops)}], lambda v:
coalesce(list_reduce(list_concat(
    [{p: 1.0::DOUBLE, x: 0.0::DOUBLE}],
    list_transform(v.gs, lambda g: list_transform(
        -- ebar_0 .. ebar_w of the group: its n - c rows of t = 1, then each stop row
        [list_reduce(list_concat(
            [{r: (g.n - g.c)::BIGINT,
              e: list_transform(range(least(g.n, m - g.s + 1) + 1),
                                lambda j: CASE WHEN j <= g.n - g.c THEN 1.0 ELSE 0.0 END::DOUBLE)}],
            list_transform(range(g.c), lambda i: {r: 0::BIGINT, e: [v.ts[g.a + 1 + i].t::DOUBLE]})),
            lambda acc, x: {r: acc.r + 1, e: list_transform(acc.e, lambda e, j: CASE
                WHEN j = 1 THEN e
                WHEN j - 1 > acc.r + 1 THEN 0.0
                ELSE ((acc.r + 2 - j) * e + (j - 1) * x.e[1] * acc.e[j - 1]) / (acc.r + 1)
            END)}).e],
        -- {p: product of t over the group (when wholly before the cut), x: its term / P}
        lambda e: {p: e[-1], x: coalesce(list_sum(list_transform(range(len(e) - 1),
                                    lambda j: (e[j + 1] - e[j + 2]) / (g.s + j))), 0.0)})[1])),
    lambda acc, y: {p: acc.p * y.p, x: acc.x + acc.p * y.x}).x, 0.0::DOUBLE))[1];
