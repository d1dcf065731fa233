-- Mean NDCG@10 per ranker, two ways that must agree: the ndcg aggregate per query then avg, and
-- the mean_ndcg measure in one GROUP BY (what a BI tool's saved metric does). Grades come from
-- event_relevance, joined to what was shown (every judged item here was shown, so a LEFT JOIN from
-- the ranking suffices).
WITH grades AS (
    SELECT *
    FROM event_relevance(
        '{{ ref("search_events") }}',
        mapping := (SELECT map(list(event_type), list(grade)) FROM {{ ref('event_grades') }})
    )
), judged AS (
    SELECT r.ranker, r.query_id, g.rel, r.position
    FROM {{ ref('search_rankings') }} AS r
    LEFT JOIN grades AS g USING (query_id, item_id)
), per_query AS (
    SELECT ranker, query_id, ndcg(rel, position, 10) AS ndcg_at_10
    FROM judged
    GROUP BY ranker, query_id
), measure AS (
    SELECT ranker, mean_ndcg(query_id, rel, position, 10) AS mean_ndcg_measure
    FROM judged
    GROUP BY ranker
)
SELECT ranker, count(*) AS queries, avg(ndcg_at_10) AS mean_ndcg_at_10, mean_ndcg_measure
FROM per_query JOIN measure USING (ranker)
GROUP BY ranker, mean_ndcg_measure
ORDER BY ranker
