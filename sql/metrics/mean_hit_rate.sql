-- mean_hit_rate(query_id, rel, rnk, k := NULL, threshold := 1, ties := 'average',
--               tie_key := NULL) -> DOUBLE  [aggregate]
-- Hit rate@k over the queries of a group: the share of queries with a relevant row among their
-- first k. A BI-safe measure like mean_ndcg: each query_id's rows form one ranking, scored by
-- hit_rate(rel, rnk, k, ...); the group's value is the avg over its queries, whatever a chart
-- groups by (hit_rate alone would take a chart's whole group as ONE ranking). Parameters,
-- defaults and errors are hit_rate's; a NULL query_id is an error. Memory linear in the group's
-- rows.
-- Example: SELECT device, mean_hit_rate(query_id, rel, rnk, 10)
--          FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_hit_rate(query_id, rel, rnk, k := NULL, threshold := 1,
                                      ties := 'average', tie_key := NULL) AS
(
    -- the group's rows as a list, unnested and scored per query by hit_rate itself
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT hit_rate(_ndcg_row.rel, _ndcg_row.rnk, k, threshold := threshold,
                       ties := ties, tie_key := _ndcg_row.tie_key) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);
