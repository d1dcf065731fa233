-- _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, log_base, negative):
-- the engine of dcg, cg, ndcg and _ndcg_ranked_count (precision, recall, F1, judged@k)
-- (internal): sum of gain x weight(position) over the first k positions, ties averaged or broken
-- by tie_key; log_base names the weight (a base: 1 / log_base(position + 1); 'none': 1). Fed with
-- grades and rank keys already checked to be numbers (_ndcg_type_error) and read as DOUBLE; the
-- parameters are dcg's, see dcg.sql.
CREATE OR REPLACE MACRO _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, log_base, negative) AS
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
            ties, r.keys, r.grades, r.rows, r.m,
            -- every key of the group: kept apart when only the top keys are (NULL otherwise)
            len(list_filter(coalesce(r.tie_keys, r.keys), lambda x: x = r.keys[r.m])),
            coalesce(list_sum(list_transform(list_filter(r.rows, lambda x: x.r = r.keys[r.m]),
                                             lambda x: x.g)), 0.0),
            gain, log_base))[1]
END;
