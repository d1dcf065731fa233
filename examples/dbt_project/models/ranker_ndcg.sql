-- Mean NDCG@10 per ranker with the ndcg aggregate itself: grades from event_relevance, joined to
-- what was shown (every judged item here was shown, so a LEFT JOIN from the ranking suffices).
WITH grades AS (
    SELECT *
    FROM event_relevance(
        '{{ ref("search_events") }}',
        mapping := (SELECT map(list(event_type), list(grade)) FROM {{ ref('event_grades') }})
    )
), per_query AS (
    SELECT r.ranker, r.query_id, ndcg(g.rel, r.position, 10) AS ndcg_at_10
    FROM {{ ref('search_rankings') }} AS r
    LEFT JOIN grades AS g USING (query_id, item_id)
    GROUP BY r.ranker, r.query_id
)
SELECT ranker, count(*) AS queries, avg(ndcg_at_10) AS mean_ndcg_at_10
FROM per_query
GROUP BY ranker
ORDER BY ranker
