-- _ndcg_expected_hits(groups, m): the expected number of marked rows (relevant, say) among the
-- first m positions when every tie group is in a uniformly random order (internal); groups from
-- _ndcg_tie_groups (any cut at or after m). A group of n rows, c marked, with w of its positions
-- up to m shows c w / n of them on average; without ties the plain count.
CREATE OR REPLACE MACRO _ndcg_expected_hits(groups, m) AS
coalesce(list_sum(list_transform(groups, lambda g:
    g.c * greatest(least(g.n, m - g.s + 1), 0)::DOUBLE / g.n)), 0.0::DOUBLE);
