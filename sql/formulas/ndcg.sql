-- DCG, the ideal ranking and NDCG of a ranking (internal).

-- _ndcg_dcg(rel, rnk, k := ..., gain := ..., ties := ..., tie_key := ..., weight := ...,
--           param := ..., negative := ...) -> DOUBLE  [aggregate]
-- (internal): the gains of a group's rows summed with positional weights over the first k
-- positions of its ranking, ties averaged or broken by tie_key: dcg and ndcg (weight 'log', param
-- the log base), cg ('none'). The grades and the gain and negative arguments are checked here
-- (_ndcg_grade_error); rel and rnk come as DOUBLE, already checked to be numbers
-- (_ndcg_type_error). The other parameters are dcg's, see dcg.sql.
-- Example: _ndcg_dcg(rel::DOUBLE, rnk::DOUBLE, k := 10, gain := 'linear', ties := 'average',
--                    tie_key := NULL, weight := 'log', param := 2, negative := 'error')
CREATE OR REPLACE MACRO _ndcg_dcg(rel, rnk, k := NULL, gain := NULL, ties := NULL, tie_key := NULL,
                                  weight := NULL, param := NULL, negative := NULL) AS
CASE WHEN _ndcg_grade_error(rel, gain, negative) IS NULL
          AND _ndcg_rank_error(rnk, ties, tie_key) IS NULL THEN
    _ndcg_weighted_sum(_ndcg_ranking(_ndcg_gain_value(rel, gain), rnk, k, ties, tie_key), k, ties,
                       weight, param)
END;

-- _ndcg_ideal_gains(rel, depth, gain): aggregate; the gains of a group's judged rows (non-NULL
-- rel, returned or not), best first: the depth best, or all when depth is NULL (internal). Grades
-- are ranked by grade, as linear and exponential gains grow with the grade (and grades <= 0 gain
-- 0, so only positive grades are read); a gain MAP need not, so its gains are ranked instead.
CREATE OR REPLACE MACRO _ndcg_ideal_gains(rel, depth, gain) AS
CASE
    WHEN _ndcg_is_map(gain) AND depth IS NULL THEN
        list_reverse_sort(list(_ndcg_gain(rel, gain, 'zero'))
            FILTER (WHERE rel IS NOT NULL AND depth IS NULL AND _ndcg_is_map(gain)))
    WHEN _ndcg_is_map(gain) THEN
        max(_ndcg_gain(rel, gain, 'zero'), _ndcg_top_n(depth))
            FILTER (WHERE rel IS NOT NULL AND depth IS NOT NULL AND _ndcg_is_map(gain))
    WHEN depth IS NULL THEN
        list_transform(list_reverse_sort(list(rel)
            FILTER (WHERE rel > 0 AND depth IS NULL AND NOT _ndcg_is_map(gain))),
            lambda r: _ndcg_gain_value(r, gain))
    ELSE list_transform(max(rel, _ndcg_top_n(depth))
             FILTER (WHERE rel > 0 AND depth IS NOT NULL AND NOT _ndcg_is_map(gain)),
             lambda r: _ndcg_gain_value(r, gain))
END;

-- _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal): how many of the best grades IDCG sums (internal).
-- k given: k, or least(k, n_ranked) with clamp_k. k NULL: n_ranked, or all (NULL) with full_ideal.
-- A NULL clamp_k or full_ideal is an error naming it (read as false it would pass for a choice).
CREATE OR REPLACE MACRO _ndcg_ideal_cut(k, n_ranked, clamp_k, full_ideal) AS
CASE
    WHEN clamp_k IS NULL THEN error('duckdb_ndcg: clamp_k must be true or false, got NULL')
    WHEN full_ideal IS NULL THEN error('duckdb_ndcg: full_ideal must be true or false, got NULL')
    WHEN k IS NOT NULL AND clamp_k THEN least(k, n_ranked)
    WHEN k IS NOT NULL THEN k
    WHEN full_ideal THEN NULL
    ELSE n_ranked
END;

-- _ndcg_denominator(denominator, allowed, relevant, k, retrieved): what a recall-like metric
-- divides by, by name (internal): 'relevant', every relevant judged row (trec_eval, ranx);
-- 'min_k', least(relevant, k) (Spark meanAveragePrecisionAt, RecBole, Microsoft Recommenders;
-- relevant when k is NULL); 'retrieved', the relevant rows among the first k (Hivemall). A name
-- not in allowed (the metric's choices, at least two) is an error listing them.
CREATE OR REPLACE MACRO _ndcg_denominator(denominator, allowed, relevant, k, retrieved) AS
CASE
    WHEN denominator IS NULL OR NOT list_contains(allowed, denominator) THEN
        error('duckdb_ndcg: denominator must be '
              || array_to_string(list_transform(allowed[1:len(allowed) - 1],
                                                lambda a: '''' || a || ''''), ', ')
              || ' or ''' || allowed[len(allowed)] || ''', got '
              || coalesce('''' || denominator::VARCHAR || '''', 'NULL'))
    WHEN denominator = 'relevant' THEN relevant::DOUBLE
    WHEN denominator = 'min_k' THEN least(relevant, coalesce(k, relevant))::DOUBLE
    ELSE retrieved::DOUBLE
END;

-- _ndcg_empty(value, relevant, empty_ideal): value, or empty_ideal when the query has no relevant
-- judged row (relevant = 0), where recall-like metrics have nothing to find (internal). 0.0 is
-- trec_eval's and ranx's answer; 1.0 is XGBoost's for AP; NULL makes avg() skip the query
-- (torchmetrics empty_target_action 'neg', 'pos', 'skip').
CREATE OR REPLACE MACRO _ndcg_empty(value, relevant, empty_ideal) AS
CASE WHEN coalesce(relevant, 0) = 0 THEN empty_ideal::DOUBLE ELSE value END;

-- _ndcg_ndcg(rel, rnk, k := ..., gain := ..., ties := ..., tie_key := ..., log_base := ...,
--            empty_ideal := ..., clamp_k := ..., full_ideal := ..., negative := ...):
-- the engine of ndcg (internal), fed by ndcg with grades and rank keys already checked to be
-- numbers (_ndcg_type_error) and read as DOUBLE; the parameters are ndcg's, see ndcg.sql.
CREATE OR REPLACE MACRO _ndcg_ndcg(rel, rnk, k := NULL, gain := NULL, ties := NULL,
                                   tie_key := NULL, log_base := NULL, empty_ideal := NULL,
                                   clamp_k := NULL, full_ideal := NULL, negative := NULL) AS
coalesce(
    _ndcg_dcg(rel, rnk, k := k, gain := gain, ties := ties, tie_key := tie_key, weight := 'log',
              param := log_base, negative := negative)
    / nullif(_ndcg_weighted_list(
        -- with averaged ties the ranking holds every non-zero gain (judged rows it did not return
        -- too): their sorted gains are the ideal ranking, with no aggregate of its own
        CASE WHEN ties = 'average' AND NOT _ndcg_is_map(gain)
             THEN list_reverse_sort(list_transform(
                 _ndcg_valued_rows(_ndcg_gain_value(rel, gain), rnk, ties), lambda x: x.g))
             ELSE _ndcg_ideal_gains(rel, _ndcg_read_depth(k), gain)
        END,
        _ndcg_ideal_cut(_ndcg_checked_k(k), count(rnk), clamp_k, full_ideal), 'log', log_base), 0),
    empty_ideal);
