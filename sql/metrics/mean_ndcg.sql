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
-- Cost: the group's rows are gathered into a list and re-aggregated per query (1.2x to 3x the time
-- of ndcg grouped by query then averaged, at 1M-5M rows; memory linear in the group's rows).
-- Example: SELECT device, mean_ndcg(query_id, rel, rnk, 10) FROM judged_run GROUP BY device;
CREATE OR REPLACE MACRO mean_ndcg(query_id, rel, rnk, k := 10, gain := 'linear', ties := 'average',
                                  tie_key := NULL, log_base := 2, empty_ideal := 0.0,
                                  clamp_k := false, full_ideal := false, negative := 'error') AS
(
    -- list(...) is an aggregate of the caller's group; the subquery unnests it and scores each
    -- query with ndcg itself, so both agree by construction (options, ties, checks and errors)
    SELECT avg(_ndcg_per_query.v)
    FROM (
        SELECT ndcg(_ndcg_row.rel, _ndcg_row.rnk, k, gain := gain, ties := ties,
                    tie_key := _ndcg_row.tie_key, log_base := log_base, empty_ideal := empty_ideal,
                    clamp_k := clamp_k, full_ideal := full_ideal, negative := negative) AS v
        FROM (SELECT unnest(list({q: query_id, rel: rel, rnk: rnk,
                                  tie_key: tie_key})) AS _ndcg_row)
        GROUP BY _ndcg_query_key(_ndcg_row.q)
    ) AS _ndcg_per_query
);
