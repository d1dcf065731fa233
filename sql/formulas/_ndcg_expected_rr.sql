-- _ndcg_expected_rr(groups, m): the expected reciprocal rank of the first relevant row within the
-- first m positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups with c = relevant rows. The first relevant row lies in the first group with
-- c > 0 (start s, size n): at offset i with probability p_i = C(n - 1 - i, c - 1) / C(n, c), so
-- p_0 = c / n and p_{i+1} = p_i (n - c - i) / (n - 1 - i); the result is the sum of p_i / (s + i)
-- over the offsets i <= n - c with s + i <= m (a running product: list_reduce over the offsets).
-- 0.0 when no relevant row is before the cut; 1 / position without ties (trec_eval recip_rank).
CREATE OR REPLACE MACRO _ndcg_expected_rr(groups, m) AS
coalesce(list_transform(list_filter(groups, lambda g: g.c > 0)[1:1], lambda g: list_reduce(
    list_transform(range(0, least(g.n - g.c, m - g.s) + 1), lambda i: {
        p: CASE WHEN g.n - 1 - i > 0 THEN (g.n - g.c - i)::DOUBLE / (g.n - 1 - i)
                ELSE 0.0::DOUBLE END,
        w: 1.0::DOUBLE / (g.s + i)}),
    lambda acc, x: {p: acc.p * x.p, w: acc.w + acc.p * x.w},
    {p: g.c::DOUBLE / g.n, w: 0.0::DOUBLE}).w)[1], 0.0::DOUBLE);
