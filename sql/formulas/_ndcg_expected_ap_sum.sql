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
coalesce(list_sum(list_transform(list_filter(groups, lambda g: g.c > 0), lambda g:
    g.c::DOUBLE / g.n * list_sum(list_transform(range(g.s, least(g.s + g.n - 1, m) + 1), lambda q:
        (1.0 + g.a + CASE WHEN g.n > 1 THEN (q - g.s) * (g.c - 1.0) / (g.n - 1) ELSE 0.0 END)
        / q)))), 0.0::DOUBLE);
