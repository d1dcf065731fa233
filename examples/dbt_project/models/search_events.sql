-- What users did: an impression for every shown item and at most one action per item, much more
-- likely for appealing items and somewhat more near the top (position bias). The same hashes as
-- search_rankings, so every run makes the same log.
WITH shown AS (
    SELECT query_id, item_id, position,
           pow(hash(query_id, item_id, 'appeal') % 1000 / 1000.0, 3) / pow(position, 0.3) AS pull,
           hash(query_id, item_id, 'user') % 1000 / 1000.0 AS u
    FROM {{ ref('search_rankings') }}
)
SELECT query_id, item_id, 'impression' AS event_type FROM shown
UNION ALL
SELECT query_id, item_id,
       CASE WHEN u < 0.15 * pull THEN 'purchase'
            WHEN u < 0.35 * pull THEN 'add_to_cart'
            ELSE 'click' END AS event_type
FROM shown
WHERE u < 0.8 * pull
