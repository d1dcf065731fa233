-- event_match(rankings, events, query_col := 'query_id', item_col := 'item_id',
--             event_col := 'event_type', mapping := NULL, sample := 10000)
--   -> TABLE(sampled BIGINT, matched BIGINT)
-- How many of the first `sample` events with a positive grade (by mapping, as in event_relevance)
-- name a (query, item) that `rankings` shows. matched = 0 with sampled > 0 means the events judge
-- nothing that was shown: ids written differently in the two tables ('A12' and 'a12', '007' and
-- '7'), so every NDCG would be 0. One bounded read of the events and one read of the rankings'
-- key columns; evaluate() and the CLI warn from it.
-- Example: SELECT * FROM event_match('shown', 'events');
CREATE OR REPLACE MACRO event_match(rankings, events, query_col := 'query_id',
                                    item_col := 'item_id', event_col := 'event_type',
                                    mapping := NULL, sample := 10000) AS TABLE
WITH _ndcg_graded AS (
    SELECT DISTINCT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _i
    FROM (
        SELECT * FROM query_table(events)
        WHERE _ndcg_event_grade(COLUMNS(lambda c: c = event_col), _ndcg_mapping(mapping)) > 0
        LIMIT sample
    )
),
_ndcg_shown AS (
    SELECT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _i
    FROM query_table(rankings)
)
SELECT count(*) AS sampled,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM _ndcg_shown
                                      WHERE _ndcg_shown._q = _ndcg_graded._q
                                        AND _ndcg_shown._i = _ndcg_graded._i)) AS matched
FROM _ndcg_graded;
