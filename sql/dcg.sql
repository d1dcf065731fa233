-- dcg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL, log_base := 2,
--     negative := 'error') -> DOUBLE  [aggregate]
-- DCG@k of the ranking formed by the rows of a group: sum of gain(rel) / log_base(position + 1).
--   rel       grade; NULL = unjudged (gain 0).
--   rnk       ranking key, smaller is better (a position, or -score); positions follow ascending
--             rnk, so ranks 1, 2, 5 are positions 1, 2, 3. NULL = judged but not returned
--             (counts in the ideal only). NaN or infinite keys are errors.
--   k         cutoff; NULL = the whole ranking.
--   ties      'average': rows with equal rnk share the mean gain of their tie group (scikit-learn);
--             'key': equal rnk broken by tie_key descending (trec_eval's rule for equal scores).
-- Example: SELECT query_id, dcg(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO dcg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL,
                            log_base := 2, negative := 'error') AS
CASE WHEN _ndcg_grade_error(rel, gain, negative) IS NULL
          AND _ndcg_rank_error(rnk, ties, tie_key) IS NULL THEN
    -- [x] with lambda r binds the aggregates outside every lambda body, where DuckDB folds the
    -- branches of the _ndcg_top_* macros that k and ties rule out and drops their aggregates
    list_transform(
        [{keys: _ndcg_top_keys(rnk, _ndcg_read_depth(k), ties),
          grades: CASE WHEN ties = 'key'
                       THEN _ndcg_top_grades(rel, rnk, _ndcg_read_depth(k), ties, tie_key) END,
          rows: _ndcg_gained_rows(rel, rnk, gain, ties),
          m: least(_ndcg_checked_k(k), count(rnk)),
          tie_keys: _ndcg_tie_keys(rnk, _ndcg_read_depth(k), ties)}],
        lambda r: _ndcg_dcg_at(
            r.keys, r.grades, r.rows, r.m,
            -- every key of the group: kept apart when only the top keys are (NULL otherwise)
            len(list_filter(coalesce(r.tie_keys, r.keys), lambda x: x = r.keys[r.m])),
            coalesce(list_sum(list_transform(list_filter(r.rows, lambda x: x.r = r.keys[r.m]),
                                             lambda x: x.g)), 0.0),
            gain, log_base))[1]
END;
