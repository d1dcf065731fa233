-- _ndcg_ranked_keys(rnk, k, ties) -> DOUBLE[]  [aggregate] (internal): with ties 'average', the
-- ascending rank keys of a group's first k + 1 rows when k <= 100 (a top-N aggregate), of all
-- its rows beyond (one sorted list); NULL with ties 'key'. NULL keys (judged, not returned) are
-- left out. The keys of _ndcg_ranking.
-- Example: SELECT _ndcg_ranked_keys(rnk, 10, 'average') FROM run GROUP BY query_id;
CREATE OR REPLACE MACRO _ndcg_ranked_keys(rnk, k, ties) AS
CASE
    WHEN ties = 'average' AND _ndcg_read_depth(k) IS NULL THEN
        list(rnk ORDER BY rnk)
            FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NULL AND ties = 'average')
    WHEN ties = 'average' THEN
        min(rnk, _ndcg_top_n(_ndcg_read_depth(k)) + 1)
            FILTER (WHERE _ndcg_read_depth(k) IS NOT NULL AND ties = 'average')
END;
