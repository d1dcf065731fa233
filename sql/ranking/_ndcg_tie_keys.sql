-- _ndcg_tie_keys(rnk, depth, ties): aggregate; every returned rank key of a group, from which the
-- size of a tie group that straddles position depth is counted (ties = 'average' with a depth
-- only; NULL otherwise). The price of exact averaged ties in one pass: memory linear in the rows
-- (internal).
CREATE OR REPLACE MACRO _ndcg_tie_keys(rnk, depth, ties) AS
list(rnk) FILTER (WHERE depth IS NOT NULL AND ties = 'average');
