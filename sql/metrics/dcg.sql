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
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL THEN
    _ndcg_dcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k, gain, ties, tie_key,
              'log', log_base, negative)
END;
