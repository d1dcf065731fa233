-- Fails (returns rows) when an NDCG leaves [0, 1] or DCG exceeds the ideal DCG.
SELECT *
FROM {{ ref('query_ndcg') }}
WHERE ndcg < 0 OR ndcg > 1 OR dcg > idcg + 1e-12
