-- The binary family's counts: relevant rows, hits, reciprocal rank, average precision, bpref, with
-- their tie expectations (internal).

-- _ndcg_relevant(rel, threshold): 1 when grade rel >= threshold, else 0; NULL (unjudged) is 0;
-- a NaN or infinite grade is an error (internal). Binary relevance of the family metrics.
CREATE OR REPLACE MACRO _ndcg_relevant(rel, threshold) AS
CASE
    WHEN _ndcg_threshold_error(threshold, false) IS NOT NULL THEN NULL
    WHEN rel IS NULL THEN 0
    WHEN NOT isfinite(_ndcg_number(rel, 'rel')) THEN
        error('duckdb_ndcg: grade must be a finite number, got ' || rel::VARCHAR)
    WHEN _ndcg_number(rel, 'rel') >= threshold THEN 1
    ELSE 0
END;

-- _ndcg_ranked_count(flag, rnk, k, ties, tie_key) -> DOUBLE  [aggregate] (internal)
-- How many of the first k positions hold a row with flag = 1 (flag: 0 or 1, e.g. _ndcg_relevant):
-- the numerator of precision, recall, F1 and judged@k. With ties := 'average' a tie group
-- straddling position k counts its flagged rows times the share of the group inside the cut (the
-- expectation over the orders of its rows), as for CG; k NULL reads the whole ranking. It is the
-- weighted sum of the flags with weight 'none', the rank keys checked to be numbers first.
-- Example: SELECT _ndcg_ranked_count(_ndcg_relevant(rel, 1), rnk, 5, 'average', NULL) / 5.0 ...
CREATE OR REPLACE MACRO _ndcg_ranked_count(flag, rnk, k, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    _ndcg_weighted_sum(_ndcg_ranking(TRY_CAST(flag AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k, ties,
                                     tie_key), k, ties, 'none', NULL)
END;

-- _ndcg_expected_hit(groups, m): the probability that a relevant row is among the first m
-- positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups with c = relevant rows. A group wholly before the cut holds a relevant row or
-- not; the group straddling m shows w = m - s + 1 of its n rows, none of its c relevant ones with
-- the hypergeometric probability C(n - c, w) / C(n, w) = prod_{i < w} (n - c - i) / (n - i).
-- Without ties it is 1.0 or 0.0, as trec_eval success.k.
CREATE OR REPLACE MACRO _ndcg_expected_hit(groups, m) AS
1.0 - coalesce(list_aggregate(list_transform(groups, lambda g: CASE
    WHEN g.marked = 0 THEN 1.0::DOUBLE
    WHEN g.start + g.size - 1 <= m THEN 0.0::DOUBLE
    ELSE list_aggregate(list_transform(range(0, m - g.start + 1),
                                       lambda i: (g.size - g.marked - i)::DOUBLE / (g.size - i)),
                        'product')
END), 'product'), 1.0);

-- _ndcg_expected_hits(groups, m): the expected number of marked rows (relevant, say) among the
-- first m positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups (any cut at or after m). A group of n rows, c marked, with w of its positions
-- up to m shows c w / n of them on average; without ties the plain count.
CREATE OR REPLACE MACRO _ndcg_expected_hits(groups, m) AS
coalesce(list_sum(list_transform(groups, lambda g:
    g.marked * greatest(least(g.size, m - g.start + 1), 0)::DOUBLE / g.size)), 0.0::DOUBLE);

-- _ndcg_expected_rr(groups, m): the expected reciprocal rank of the first relevant row within the
-- first m positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups with c = relevant rows. The first relevant row lies in the first group with
-- c > 0 (start s, size n): at offset i with probability p_i = C(n - 1 - i, c - 1) / C(n, c), so
-- p_0 = c / n and p_{i+1} = p_i (n - c - i) / (n - 1 - i); the result is the sum of p_i / (s + i)
-- over the offsets i <= n - c with s + i <= m (a running product: list_reduce over the offsets).
-- 0.0 when no relevant row is before the cut; 1 / position without ties (trec_eval recip_rank).
CREATE OR REPLACE MACRO _ndcg_expected_rr(groups, m) AS
coalesce(list_transform(list_filter(groups, lambda g: g.marked > 0)[1:1], lambda g: list_reduce(
    list_transform(range(0, least(g.size - g.marked, m - g.start) + 1), lambda i: {
        p: CASE WHEN g.size - 1 - i > 0 THEN (g.size - g.marked - i)::DOUBLE / (g.size - 1 - i)
                ELSE 0.0::DOUBLE END,
        w: 1.0::DOUBLE / (g.start + i)}),
    lambda acc, x: {p: acc.p * x.p, w: acc.w + acc.p * x.w},
    {p: g.marked::DOUBLE / g.size, w: 0.0::DOUBLE}).w)[1], 0.0::DOUBLE);

-- _ndcg_expected_ap_sum(groups, m): the expected sum of precision@p over the positions p <= m of
-- the relevant rows when every tie group is in a uniformly random order: average precision before
-- its division (internal); groups from _ndcg_tie_groups with c = relevant rows, a = relevant rows
-- before the group. By linearity over the relevant rows: a relevant row of a group (start s,
-- size n, c relevant) is at position q = s + u, u uniform over 0..n-1; given q, each of the other
-- c - 1 relevant rows of its group is before it with probability u / (n - 1), so its expected
-- precision there is (1 + a + u (c - 1) / (n - 1)) / q. The group adds
--   c / n * sum_{q = s .. min(s + n - 1, m)} (1 + a + (q - s) (c - 1) / (n - 1)) / q
-- ((c - 1) / (n - 1) read as 0 when n = 1). Without ties: the sum of (1 + a) / p, as trec_eval.
CREATE OR REPLACE MACRO _ndcg_expected_ap_sum(groups, m) AS
coalesce(list_sum(list_transform(list_filter(groups, lambda g: g.marked > 0), lambda g:
    g.marked::DOUBLE / g.size
    * list_sum(list_transform(range(g.start, least(g.start + g.size - 1, m) + 1), lambda q:
        (1.0 + g.before
         + CASE WHEN g.size > 1 THEN (q - g.start) * (g.marked - 1.0) / (g.size - 1) ELSE 0.0 END)
        / q)))), 0.0::DOUBLE);

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
-- 50,000: 2,051 of the 24,889 possible terms; timings: benchmarks/results/design_timings.md), the
-- start value leading the list (DuckDB 1.4/1.5's list_reduce mixes rows up with a third one).
CREATE OR REPLACE MACRO _ndcg_expected_ap_retrieved(groups, m) AS
list_transform(
    [{g: groups[-1], s0: _ndcg_expected_ap_sum(list_slice(groups, 1, len(groups) - 1), m)}],
    lambda v: list_transform([{start: v.g.start, size: v.g.size, marked: v.g.marked,
                 before: v.g.before, w: m - v.g.start + 1, s0: v.s0,
                 -- sum_u 1 / (s + u) and sum_u u / (s + u) over the group's slots before the cut
                 sa: list_sum(list_transform(range(m - v.g.start + 1),
                                             lambda u: 1.0 / (v.g.start + u))),
                 sb: list_sum(list_transform(range(m - v.g.start + 1),
                                             lambda u: u / (v.g.start + u))),
                 -- the counts x kept: those within tau = sqrt(21 min(w, n - w)) of the mean
                 -- w c / n (at least the nearest whole numbers), the others weigh < 2 e^-42
                 lo: greatest(0, m - v.g.start + 1 - (v.g.size - v.g.marked),
                              floor((m - v.g.start + 1) * v.g.marked / v.g.size
                                    - sqrt(21 * least(m - v.g.start + 1,
                                                      v.g.size - (m - v.g.start + 1)))))
                         ::BIGINT,
                 hi: least(v.g.marked, m - v.g.start + 1,
                           ceil((m - v.g.start + 1) * v.g.marked / v.g.size
                                + sqrt(21 * least(m - v.g.start + 1,
                                                  v.g.size - (m - v.g.start + 1)))))
                         ::BIGINT}],
    lambda g: list_transform([list_reduce(list_concat(
        [{q: 1.0::DOUBLE, f: 0.0::DOUBLE, d: 0.0::DOUBLE}],
        list_transform(range(g.lo, g.hi + 1), lambda x: {
            -- P(x) / P(x - 1), and 1 for the first term
            q: CASE WHEN x = g.lo THEN 1.0
                    ELSE (g.marked - x + 1.0) * (g.w - x + 1)
                         / (x * (g.size - g.marked - g.w + x)) END::DOUBLE,
            -- the expected sum of precision given x, divided by the a + x rows retrieved
            f: CASE WHEN g.before + x = 0 THEN 0.0
                    ELSE (g.s0 + x / g.w * ((1.0 + g.before) * g.sa
                                            + CASE WHEN g.w > 1 THEN (x - 1.0) / (g.w - 1) * g.sb
                                                   ELSE 0.0 END))
                         / (g.before + x) END::DOUBLE,
            d: 0.0::DOUBLE})),
        -- (acc.q * e.q written out each time: a list to bind it per step cost 20x the step)
        lambda acc, e: CASE
            WHEN acc.q * e.q > pow(2.0, 500) THEN {q: acc.q * e.q * pow(2.0, -500),
                                                   f: (acc.f + acc.q * e.q * e.f) * pow(2.0, -500),
                                                   d: (acc.d + acc.q * e.q) * pow(2.0, -500)}
            ELSE {q: acc.q * e.q, f: acc.f + acc.q * e.q * e.f, d: acc.d + acc.q * e.q} END)],
        lambda t: t.f / t.d)[1])[1])[1];

-- _ndcg_bpref_sum(rel_groups, non_groups, relevant, nonrelevant): bpref before its division by
-- relevant (internal). rel_groups and non_groups are the same tie groups (_ndcg_tie_groups over
-- the same keys) marking the relevant and the judged non-relevant rows. A relevant row with y
-- judged non-relevant rows above it adds 1 - min(y, R) / min(N, R) (1 when y = 0; trec_eval
-- bpref). In a tie group with d non-relevant rows, a relevant row's place among them is uniform
-- whatever the order of the group, so y = a + x with x uniform over 0..d (a: non-relevant rows
-- in earlier groups); the group adds c times the mean over x: the exact expectation over tied
-- orders, O(d) per group.
CREATE OR REPLACE MACRO _ndcg_bpref_sum(rel_groups, non_groups, relevant, nonrelevant) AS
-- both lists bound once: as macro arguments they may be whole expressions
list_transform([{rel: rel_groups, non: non_groups}], lambda gs:
    coalesce(list_sum(list_transform(gs.rel, lambda g, j: CASE WHEN g.marked > 0 THEN
        g.marked * list_avg(list_transform(range(0, gs.non[j].marked + 1), lambda x: CASE
            WHEN gs.non[j].before + x = 0 THEN 1.0::DOUBLE
            ELSE 1.0 - least(gs.non[j].before + x, relevant)::DOUBLE
                       / least(nonrelevant, relevant)
        END))
    END)), 0.0::DOUBLE))[1];
