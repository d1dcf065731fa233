-- Mean metrics over the queries of a table: one value per group of queries.

-- mean_ndcg(query_id, rel, rnk, k := 10, gain := 'linear', ties := 'average', tie_key := NULL,
--           log_base := 2, empty_ideal := 0.0, clamp_k := false, full_ideal := false,
--           negative := 'error') -> DOUBLE  [aggregate]
-- Mean NDCG@k over the queries of a group: the rows of each query_id form one ranking, scored as
-- ndcg(rel, rnk, k, ...) scores it, and the group's value is the avg of those per-query values.
-- The measure for BI tools (a saved Superset metric, a dashboard tile): it is the mean over queries
-- whatever the chart groups by (device, day, variant, nothing), where ndcg(rel, rnk, k) would take
-- all rows of the chart's group as ONE ranking. A query whose rows fall in two groups is scored in
-- each from its rows there; a NULL query_id is an error. empty_ideal := NULL leaves queries without
-- a relevant item out of the mean (avg skips NULL). Every other parameter is ndcg's, with the same
-- default, except k := 10.
-- A group with rows but no ranked row (rnk NULL on every row) is an error: it is the signature of
-- a group column NULL on the judged-only rows of a FULL OUTER JOIN (a slice taken from the run
-- side), whose other groups then miss those rows from their ideals (on the demo log 0.580 /
-- 0.608 / 0.609 per device instead of 0.509 / 0.540 / 0.541): take the slice per query. Inside
-- one group the short ideals themselves cannot be seen; the NULL group is where the slip shows.
-- (A lone query the ranker did not answer, grouped alone, is refused too: leave it out.)
-- Cost: the group's rows are gathered into a list and re-aggregated per query (1.2x to 3x the time
-- of ndcg grouped by query then averaged, at 1M-5M rows; memory linear in the group's rows).
-- Example: SELECT device, mean_ndcg(query_id, rel, rnk, 10) FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_ndcg(query_id, rel, rnk, k := 10, gain := 'linear', ties := 'average',
                                  tie_key := NULL, log_base := 2, empty_ideal := 0.0,
                                  clamp_k := false, full_ideal := false, negative := 'error') AS
(
    -- list(...) is an aggregate of the caller's group; the subquery unnests it and scores each
    -- query with ndcg itself, so both agree by construction (options, ties, checks and errors)
    SELECT CASE WHEN count(*) > 0 AND NOT bool_or(_ndcg_per_query.ranked) THEN
                    error('duckdb_ndcg: mean_ndcg: no row of the group is ranked (rnk NULL on all '
                          || count(*) || ' queries'' rows): is the group column NULL on the '
                          || 'judged-only rows? Take the slice per query, not from the run side of '
                          || 'the FULL OUTER JOIN (README, Superset)')
                ELSE avg(_ndcg_per_query.v) END
    FROM (
        SELECT ndcg(_ndcg_row.rel, _ndcg_row.rnk, k, gain := gain, ties := ties,
                    tie_key := _ndcg_row.tie_key, log_base := log_base, empty_ideal := empty_ideal,
                    clamp_k := clamp_k, full_ideal := full_ideal, negative := negative) AS v,
               bool_or(_ndcg_row.rnk IS NOT NULL) AS ranked
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);

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

-- mean_recall_at_k(query_id, rel, rnk, k := NULL, threshold := 1, ties := 'average',
--                  tie_key := NULL) -> DOUBLE  [aggregate]
-- Mean recall@k over the queries of a group. A BI-safe measure like mean_ndcg: each query_id's
-- rows form one ranking, scored by recall_at_k(rel, rnk, k, ...); the group's value is the avg
-- over its queries, whatever a chart groups by (recall_at_k alone would take a chart's whole
-- group as ONE ranking). Parameters, defaults and errors are recall_at_k's; a NULL query_id is an
-- error. Memory linear in the group's rows.
-- Example: SELECT device, mean_recall_at_k(query_id, rel, rnk, 10)
--          FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_recall_at_k(query_id, rel, rnk, k := NULL, threshold := 1,
                                         ties := 'average', tie_key := NULL) AS
(
    -- the group's rows as a list, unnested and scored per query by recall_at_k itself
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT recall_at_k(_ndcg_row.rel, _ndcg_row.rnk, k, threshold := threshold,
                          ties := ties, tie_key := _ndcg_row.tie_key) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);

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

-- mean_reciprocal_rank(query_id, rel, rnk, k := NULL, threshold := 1, ties := 'average',
--                      tie_key := NULL) -> DOUBLE  [aggregate]
-- MRR, the mean reciprocal rank over the queries of a group. A BI-safe measure like mean_ndcg:
-- each query_id's rows form one ranking, scored by reciprocal_rank(rel, rnk, k, ...); the group's
-- value is the avg over its queries, whatever a chart groups by (reciprocal_rank alone would take
-- a chart's whole group as ONE ranking). Parameters, defaults and errors are reciprocal_rank's; a
-- NULL query_id is an error. Memory linear in the group's rows.
-- Example: SELECT device, mean_reciprocal_rank(query_id, rel, rnk, 10)
--          FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_reciprocal_rank(query_id, rel, rnk, k := NULL, threshold := 1,
                                             ties := 'average', tie_key := NULL) AS
(
    -- the group's rows as a list, unnested and scored per query by reciprocal_rank itself
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT reciprocal_rank(_ndcg_row.rel, _ndcg_row.rnk, k, threshold := threshold,
                              ties := ties, tie_key := _ndcg_row.tie_key) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);

-- mean_average_precision(query_id, rel, rnk, k := NULL, threshold := 1, ties := 'average',
--                        tie_key := NULL) -> DOUBLE  [aggregate]
-- MAP, the mean average precision over the queries of a group. A BI-safe measure like mean_ndcg:
-- each query_id's rows form one ranking, scored by average_precision(rel, rnk, k, ...); the
-- group's value is the avg over its queries, whatever a chart groups by (average_precision alone
-- would take a chart's whole group as ONE ranking). Parameters, defaults and errors are
-- average_precision's; a NULL query_id is an error. Memory linear in the group's rows.
-- Example: SELECT device, mean_average_precision(query_id, rel, rnk, 10)
--          FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_average_precision(query_id, rel, rnk, k := NULL, threshold := 1,
                                               ties := 'average', tie_key := NULL) AS
(
    -- the group's rows as a list, unnested and scored per query by average_precision itself
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT average_precision(_ndcg_row.rel, _ndcg_row.rnk, k, threshold := threshold,
                                ties := ties, tie_key := _ndcg_row.tie_key) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);
