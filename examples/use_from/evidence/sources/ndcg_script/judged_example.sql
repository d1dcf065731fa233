-- The macros from initialize.sql on inline data: NDCG@3 per query and the mean over queries
SELECT query_id, ndcg(rel, rnk, 3) AS ndcg_3, list_ndcg([3, 2, 3, 0, 1, 2]) AS list_ndcg_6
FROM (VALUES ('q1', 1, 1), ('q1', 0, 2), ('q1', 3, 3), ('q2', 0, 1), ('q2', 2, 2))
     AS judged(query_id, rel, rnk)
GROUP BY query_id
ORDER BY query_id
