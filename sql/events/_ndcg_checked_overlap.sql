-- _ndcg_checked_overlap(shared, total, key, query_col, k): 0 when the rankers both showed at least
-- half of the queries either showed in a (slice, cutoff), else an error (internal;
-- compare_summary). key is one query's key (query and slice columns), k the cutoff. Fewer shared
-- queries than that is an A/B test (each query served by one arm) or nearly one: the paired
-- tests compared nothing (query_set 'both': 0 queries) or mostly zero-filled pairs ('either',
-- 'a', 'b'); the unpaired comparison is Welch's test of each arm's own queries.
CREATE OR REPLACE MACRO _ndcg_checked_overlap(shared, total, key, query_col, k) AS
CASE WHEN 2 * shared >= total THEN 0::BIGINT
     ELSE error('duckdb_ndcg: rankers A and B both showed ' || shared::VARCHAR || ' of the '
                || total::VARCHAR || ' queries'
                || list_transform([json_merge_patch(to_json(key), json_object(query_col, NULL))],
                                  lambda s: CASE WHEN s = '{}' THEN '' ELSE ' of slice ' || s END)[1]
                || ' at NDCG' || coalesce('@' || k::VARCHAR, '')
                || ' (fewer than half): a paired comparison does not apply; for an A/B test '
                || '(each query served by one arm) compare the arms unpaired (Welch): '
                -- the flag's two dashes spelled with repeat(): the plain script (duckdb-ndcg
                -- script) holds no '--', which tools read as a comment
                || 'compare(..., unpaired=True), duckdb-ndcg compare ' || repeat('-', 2)
                || 'unpaired, or ab_summary '
                || 'over one table with an arm column')
END;
