-- _ndcg_has_ties(keys, m): whether two of the first m + 1 rank keys are equal, which is when ties
-- can change a metric cut at m (m NULL = the whole list); NULL keys have no ties (internal).
-- keys are sorted, so equal keys are neighbours (a hash of the keys, list_distinct, is 10x slower).
CREATE OR REPLACE MACRO _ndcg_has_ties(keys, m) AS
coalesce(list_bool_or(list_transform(list_slice(_ndcg_head(keys, m + 1), 2, len(keys)),
                                     lambda x, i: x = keys[i])), false);
