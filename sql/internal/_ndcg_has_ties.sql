-- _ndcg_has_ties(ranked, m): whether two of the first m + 1 items of a ranking share a rank key,
-- which is when ties can change a metric cut at m (m NULL = whole list) (internal).
CREATE OR REPLACE MACRO _ndcg_has_ties(ranked, m) AS
len(list_distinct(list_transform(_ndcg_head(ranked, m + 1), lambda x: x.r)))
    < len(_ndcg_head(ranked, m + 1));
