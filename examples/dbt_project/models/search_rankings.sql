-- What each ranker showed: 400 search queries, each served by one ranker (an A/B split by query),
-- 10 items per query out of 30 candidates. Made in SQL from hashes, so every run is the same.
-- 'baseline' orders mostly by noise, 'reranked' mostly by the item's appeal to the user.
WITH queries AS (
    SELECT q AS query_id, CASE WHEN q % 2 = 0 THEN 'baseline' ELSE 'reranked' END AS ranker
    FROM range(1, 401) AS t(q)
), candidates AS (
    SELECT query_id, ranker, 'item_' || i AS item_id,
           hash(query_id, 'item_' || i, 'appeal') % 1000 / 1000.0 AS appeal,
           hash(query_id, 'item_' || i, 'noise') % 1000 / 1000.0 AS noise
    FROM queries, range(1, 31) AS c(i)
), ranked AS (
    SELECT query_id, ranker, item_id,
           row_number() OVER (
               PARTITION BY query_id
               ORDER BY CASE ranker WHEN 'baseline' THEN 0.3 * appeal + 0.7 * noise
                                    ELSE 0.8 * appeal + 0.2 * noise END DESC, item_id
           ) AS position
    FROM candidates
)
SELECT query_id, ranker, item_id, position
FROM ranked
WHERE position <= 10
