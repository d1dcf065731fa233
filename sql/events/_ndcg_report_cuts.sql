-- _ndcg_report_cuts(k): the cutoffs of a report as a BIGINT[] (internal). k is one cutoff or a
-- list of them; NULL (alone or in the list) means no cutoff. Each is checked by _ndcg_checked_k;
-- an empty list, and a cutoff listed twice (it would count every query twice in the means), are
-- errors.
CREATE OR REPLACE MACRO _ndcg_report_cuts(k) AS
list_transform(
    [CASE
         WHEN k IS NULL THEN [NULL::BIGINT]
         ELSE list_transform(('[' || trim(k::VARCHAR, '[]') || ']')::VARCHAR[],
                             lambda x: _ndcg_checked_k(CASE WHEN upper(trim(x)) = 'NULL' THEN NULL
                                                            ELSE x::DOUBLE END))
     END],
    lambda cuts: CASE
        WHEN len(cuts) = 0 THEN
            error('duckdb_ndcg: k must be a cutoff or a non-empty list of cutoffs, got []')
        WHEN len(list_distinct(list_transform(cuts, lambda x: coalesce(x, -1)))) < len(cuts) THEN
            error('duckdb_ndcg: k lists a cutoff more than once: ' || k::VARCHAR)
        ELSE cuts
    END)[1];
