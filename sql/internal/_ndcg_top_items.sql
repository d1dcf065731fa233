-- _ndcg_top_items(item, rnk, depth, ties): aggregate; the items of a group's first depth + 1
-- returned rows in ranked order (all of them when depth is NULL), read like _ndcg_top_grades: the
-- rows a cutoff can see, where a duplicate item would change the metric (internal).
CREATE OR REPLACE MACRO _ndcg_top_items(item, rnk, depth, ties) AS
CASE
    WHEN depth IS NULL THEN list(item) FILTER (WHERE rnk IS NOT NULL AND depth IS NULL)
    WHEN ties = 'key' THEN
        max_by(item, {a: -rnk, b: item}, _ndcg_top_n(depth) + 1)
            FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'key')
    ELSE min_by(item, rnk, _ndcg_top_n(depth) + 1)
             FILTER (WHERE depth IS NOT NULL AND ties <> 'key')
END;
