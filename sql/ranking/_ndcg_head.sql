-- _ndcg_head(items, m): the first m items of a list (the whole list when m is NULL) (internal).
-- items is named once: it is often a whole expression, which a second mention would evaluate again.
CREATE OR REPLACE MACRO _ndcg_head(items, m) AS
list_slice(items, 1, coalesce(m, 9223372036854775807));
