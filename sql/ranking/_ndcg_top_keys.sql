-- _ndcg_top_keys(rnk, depth, ties): aggregate; the rank keys of a group's first depth + 1 returned
-- rows (non-NULL rnk), ascending, read with a top-N aggregate that never sorts the whole group; all
-- of them, sorted, when depth is NULL. NULL for ties = 'key', whose tie key has broken every tie
-- (internal; the ranking side of dcg, with _ndcg_top_grades and _ndcg_tie_*).
CREATE OR REPLACE MACRO _ndcg_top_keys(rnk, depth, ties) AS
CASE
    WHEN ties = 'key' THEN NULL
    WHEN depth IS NULL THEN
        list(rnk ORDER BY rnk) FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'average')
    ELSE min(rnk, _ndcg_top_n(depth) + 1)
             FILTER (WHERE depth IS NOT NULL AND ties = 'average')
END;
