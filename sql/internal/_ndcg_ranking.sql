-- _ndcg_ranking(rel, rnk, depth, gain, ties, tie_key): aggregate; what the ranking metrics of a
-- group need, read in one pass (internal). Returned rows (non-NULL rnk) in ranked order:
--   keys        rank keys of the first depth + 1 rows, ascending; NULL for ties = 'key', whose
--               tie_key (descending, as trec_eval breaks equal scores) has broken every tie;
--   grades      their grades, unjudged as -1 (top-N aggregates drop NULL values);
--   n           the number of returned rows;
--   tie_keys    every returned rank key, and tie_grades the {r, g} of every returned row whose gain
--               can be non-zero: the size and mean gain of a tie group that straddles position
--               depth (ties = 'average' with a depth only).
-- A depth (the cutoff k) uses top-N aggregates, which never sort whole groups; depth NULL sorts
-- whole rankings. Errors: see _ndcg_rank_error.
CREATE OR REPLACE MACRO _ndcg_ranking(rel, rnk, depth, gain, ties, tie_key) AS
CASE WHEN _ndcg_rank_error(rnk, ties, tie_key) IS NULL THEN {
    keys: CASE
        WHEN ties = 'key' THEN NULL
        WHEN depth IS NULL THEN
            list(rnk ORDER BY rnk) FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'average')
        ELSE min(rnk, coalesce(depth, 0) + 1)
                 FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'average')
    END,
    grades: CASE
        WHEN ties = 'key' AND depth IS NULL THEN
            list(coalesce(rel, -1) ORDER BY rnk ASC, CASE WHEN ties = 'key' THEN tie_key END DESC)
                FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'key')
        WHEN ties = 'key' THEN
            max_by(coalesce(rel, -1), {a: -rnk, b: CASE WHEN ties = 'key' THEN tie_key END},
                   coalesce(depth, 0) + 1)
                FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'key')
        WHEN depth IS NULL THEN
            list(coalesce(rel, -1) ORDER BY rnk)
                FILTER (WHERE rnk IS NOT NULL AND depth IS NULL AND ties = 'average')
        ELSE min_by(coalesce(rel, -1), rnk, coalesce(depth, 0) + 1)
                 FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'average')
    END,
    n: count(rnk),
    tie_keys: list(rnk) FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'average'),
    tie_grades: list({r: rnk, g: rel})
        FILTER (WHERE rnk IS NOT NULL AND depth IS NOT NULL AND ties = 'average'
                      AND (rel > 0 OR (_ndcg_is_map(gain) AND rel >= 0)))
} END;
