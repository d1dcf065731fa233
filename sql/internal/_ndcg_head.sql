-- _ndcg_head(items, m): the first m items of a list (the whole list when m is NULL) (internal).
CREATE OR REPLACE MACRO _ndcg_head(items, m) AS
list_slice(items, 1, coalesce(m, len(items)));
