-- mean_precision_at_k(query_id, rel, rnk, k := NULL, threshold := 1, ties := 'average',
--                     tie_key := NULL) -> DOUBLE  [aggregate]
-- Mean precision@k over the queries of a group. A BI-safe measure like mean_ndcg: each query_id's
-- rows form one ranking, scored by precision_at_k(rel, rnk, k, ...); the group's value is the avg
-- over its queries, whatever a chart groups by (precision_at_k alone would take a chart's whole
-- group as ONE ranking). Parameters, defaults and errors are precision_at_k's; a NULL query_id is
-- an error. Memory linear in the group's rows.
-- Example: SELECT device, mean_precision_at_k(query_id, rel, rnk, 10)
--          FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_precision_at_k(query_id, rel, rnk, k := NULL, threshold := 1,
                                            ties := 'average', tie_key := NULL) AS
(
    -- the group's rows as a list, unnested and scored per query by precision_at_k itself
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT precision_at_k(_ndcg_row.rel, _ndcg_row.rnk, k, threshold := threshold,
                             ties := ties, tie_key := _ndcg_row.tie_key) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);
