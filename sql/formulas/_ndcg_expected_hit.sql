-- _ndcg_expected_hit(groups, m): the probability that a relevant row is among the first m
-- positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups with c = relevant rows. A group wholly before the cut holds a relevant row or
-- not; the group straddling m shows w = m - s + 1 of its n rows, none of its c relevant ones with
-- the hypergeometric probability C(n - c, w) / C(n, w) = prod_{i < w} (n - c - i) / (n - i).
-- Without ties it is 1.0 or 0.0, as trec_eval success.k.
CREATE OR REPLACE MACRO _ndcg_expected_hit(groups, m) AS
1.0 - coalesce(list_aggregate(list_transform(groups, lambda g: CASE
    WHEN g.c = 0 THEN 1.0::DOUBLE
    WHEN g.s + g.n - 1 <= m THEN 0.0::DOUBLE
    ELSE list_aggregate(list_transform(range(0, m - g.s + 1),
                                       lambda i: (g.n - g.c - i)::DOUBLE / (g.n - i)), 'product')
END), 'product'), 1.0);
