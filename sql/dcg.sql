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
CASE WHEN _ndcg_grade_error(rel, gain, negative) IS NULL AND _ndcg_rank_error(rnk, ties, tie_key) IS NULL THEN
    _ndcg_dcg_at(
        _ndcg_top_keys(rnk, _ndcg_checked_k(k), ties),
        _ndcg_top_grades(rel, rnk, _ndcg_checked_k(k), ties, tie_key),
        least(_ndcg_checked_k(k), count(rnk)),
        len(list_filter(_ndcg_tie_keys(rnk, _ndcg_checked_k(k), ties),
                        lambda x: x = _ndcg_top_keys(rnk, _ndcg_checked_k(k), ties)
                                      [least(_ndcg_checked_k(k), count(rnk))])),
        coalesce(list_sum(list_transform(
            list_filter(_ndcg_tie_grades(rel, rnk, _ndcg_checked_k(k), gain, ties),
                        lambda x: x.r = _ndcg_top_keys(rnk, _ndcg_checked_k(k), ties)
                                        [least(_ndcg_checked_k(k), count(rnk))]),
            lambda x: _ndcg_gain(x.g, gain, 'zero'))), 0.0),
        gain, log_base)
END;
