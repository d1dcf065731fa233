-- _ndcg_expected_ap_retrieved(groups, m): the expected average precision with denominator
-- 'retrieved' (the sum of precision@p over the relevant rows among the first m positions, divided
-- by their number; 0 for an order that retrieves none) when every tie group is in a uniformly
-- random order and the last group (start s, n rows, c relevant, a relevant before it) straddles m
-- (internal; groups from _ndcg_tie_groups with c = relevant rows). The count divided by is
-- a + X, X the group's relevant rows among its w = m - s + 1 slots before the cut,
-- hypergeometric: P(X = x) = C(c, x) C(n - c, w - x) / C(n, w). The earlier groups' expected sum
-- S0 (_ndcg_expected_ap_sum) does not depend on X; given X = x the x relevant rows take a
-- uniformly random x-subset of the w slots, so (as in _ndcg_expected_ap_sum) the group adds
--   x / w * sum_{u < w} (1 + a + u (x - 1) / (w - 1)) / (s + u)
-- and the result is sum_x P(X = x) (S0 + that) / (a + x). Only the x within
-- tau = sqrt(21 min(w, n - w)) of the mean w c / n are summed (widened to whole numbers): by
-- Hoeffding's inequality, which holds for draws without replacement (and for the n - w slots
-- after the cut, which hold c - X), the others weigh at most 2 e^-42 in all, and as every term
-- is in [0, 1] the result moves by less than 2.3e-18. P(x) is a running product of the ratios
-- P(x) / P(x - 1) from the least x summed, rescaled by 2^-500 (exact) whenever it grows past
-- 2^500, and the sum divided by the sum of the weights: nothing overflows, and the terms too
-- small to matter are all that can underflow. One list_reduce over at most
-- 2 sqrt(21 min(w, n - w)) + 3 terms (one tie group of 100,000 rows, 75,000 relevant, cut at
-- 50,000: 2,051 terms, 0.1 s; all 24,889 possible terms took 1.0 s, 3.3 s on DuckDB 1.4), the
-- start value leading the list (DuckDB 1.4/1.5's list_reduce mixes rows up with a third one).
CREATE OR REPLACE MACRO _ndcg_expected_ap_retrieved(groups, m) AS
list_transform(
    [{g: groups[-1], s0: _ndcg_expected_ap_sum(list_slice(groups, 1, len(groups) - 1), m)}],
    lambda v: list_transform([{s: v.g.s, n: v.g.n, c: v.g.c, a: v.g.a, w: m - v.g.s + 1, s0: v.s0,
                 -- sum_u 1 / (s + u) and sum_u u / (s + u) over the group's slots before the cut
                 sa: list_sum(list_transform(range(m - v.g.s + 1), lambda u: 1.0 / (v.g.s + u))),
                 sb: list_sum(list_transform(range(m - v.g.s + 1), lambda u: u / (v.g.s + u))),
                 -- the counts x kept: those within tau = sqrt(21 min(w, n - w)) of the mean
                 -- w c / n (at least the nearest whole numbers), the others weigh < 2 e^-42
                 lo: greatest(0, m - v.g.s + 1 - (v.g.n - v.g.c),
                              floor((m - v.g.s + 1) * v.g.c / v.g.n
                                    - sqrt(21 * least(m - v.g.s + 1, v.g.n - (m - v.g.s + 1)))))
                         ::BIGINT,
                 hi: least(v.g.c, m - v.g.s + 1,
                           ceil((m - v.g.s + 1) * v.g.c / v.g.n
                                + sqrt(21 * least(m - v.g.s + 1, v.g.n - (m - v.g.s + 1)))))
                         ::BIGINT}],
    lambda g: list_transform([list_reduce(list_concat(
        [{q: 1.0::DOUBLE, f: 0.0::DOUBLE, d: 0.0::DOUBLE}],
        list_transform(range(g.lo, g.hi + 1), lambda x: {
            -- P(x) / P(x - 1), and 1 for the first term
            q: CASE WHEN x = g.lo THEN 1.0
                    ELSE (g.c - x + 1.0) * (g.w - x + 1) / (x * (g.n - g.c - g.w + x)) END::DOUBLE,
            -- the expected sum of precision given x, divided by the a + x rows retrieved
            f: CASE WHEN g.a + x = 0 THEN 0.0
                    ELSE (g.s0 + x / g.w * ((1.0 + g.a) * g.sa
                                            + CASE WHEN g.w > 1 THEN (x - 1.0) / (g.w - 1) * g.sb
                                                   ELSE 0.0 END))
                         / (g.a + x) END::DOUBLE,
            d: 0.0::DOUBLE})),
        -- (acc.q * e.q written out each time: a list to bind it per step cost 20x the step)
        lambda acc, e: CASE
            WHEN acc.q * e.q > pow(2.0, 500) THEN {q: acc.q * e.q * pow(2.0, -500),
                                                   f: (acc.f + acc.q * e.q * e.f) * pow(2.0, -500),
                                                   d: (acc.d + acc.q * e.q) * pow(2.0, -500)}
            ELSE {q: acc.q * e.q, f: acc.f + acc.q * e.q * e.f, d: acc.d + acc.q * e.q} END)],
        lambda t: t.f / t.d)[1])[1])[1];
