-- _ndcg_has_ties(keys, m): whether two of the first m + 1 rank keys are equal, which is when ties
-- can change a metric cut at m (m NULL = the whole list); NULL keys have no ties (internal).
CREATE OR REPLACE MACRO _ndcg_has_ties(keys, m) AS
coalesce(len(list_distinct(_ndcg_head(keys, m + 1))) < len(_ndcg_head(keys, m + 1)), false);
