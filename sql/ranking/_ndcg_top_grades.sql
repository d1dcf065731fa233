-- _ndcg_top_grades(rel, rnk, depth, ties, tie_key): aggregate; the grades of a group's first
-- depth + 1 returned rows in ranked order (all of them when depth is NULL), unjudged as -1 because
-- top-N aggregates drop NULL values. Ranked order is ascending rnk; for ties = 'key', equal rnk
-- are broken by tie_key descending, as trec_eval breaks equal scores by document id (internal).
CREATE OR REPLACE MACRO _ndcg_top_grades(rel, rnk, depth, ties, tie_key) AS
CASE
    WHEN ties = 'key' AND depth IS NULL THEN
        list(coalesce(rel, -1) ORDER BY rnk ASC, CASE WHEN ties = 'key' THEN tie_key END DESC)
            FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'key')
    WHEN ties = 'key' THEN
        max_by(coalesce(rel, -1), {a: -rnk, b: CASE WHEN ties = 'key' THEN tie_key END},
               _ndcg_top_n(depth) + 1)
            FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'key')
    WHEN depth IS NULL THEN
        list(coalesce(rel, -1) ORDER BY rnk)
            FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'average')
    ELSE min_by(coalesce(rel, -1), rnk, _ndcg_top_n(depth) + 1)
             FILTER (WHERE depth IS NOT NULL AND ties = 'average')
END;
