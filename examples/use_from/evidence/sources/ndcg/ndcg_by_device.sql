-- Mean NDCG@10 per device, one row per device: a measure Evidence pages can chart and filter
SELECT device, mean_ndcg(query_id, rel, rnk, 10) AS mean_ndcg_10, count(DISTINCT query_id) AS queries
FROM judged_run
GROUP BY device
ORDER BY device
