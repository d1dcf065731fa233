-- The gain metrics as aggregates over a group's rows: CG, DCG, IDCG, NDCG, and one item's DCG term.

-- cg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL, negative := 'error')
--   -> DOUBLE  [aggregate]
-- Cumulative gain@k: the sum of the gains of the first k returned rows (ascending rnk). Arguments
-- as for dcg; with ties = 'average' a tie group straddling position k contributes its mean gain
-- for each of its positions up to k.
-- Example: SELECT query_id, cg(rel, rnk, 6) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO cg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL,
                           negative := 'error') AS
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL THEN
    _ndcg_dcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k := k, gain := gain,
              ties := ties, tie_key := tie_key, weight := 'none', param := NULL,
              negative := negative)
END;

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
    _ndcg_dcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k := k, gain := gain,
              ties := ties, tie_key := tie_key, weight := 'log', param := log_base,
              negative := negative)
END;

-- idcg(rel, k := NULL, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE  [aggregate]
-- Ideal DCG@k of a group: the DCG of its judged grades (non-NULL rel) sorted best first, cut at k
-- (NULL = every judged row).
-- Example: SELECT query_id, idcg(rel, 10) FROM qrels GROUP BY query_id;
CREATE OR REPLACE MACRO idcg(rel, k := NULL, gain := 'linear', log_base := 2, negative := 'error') AS
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL
          AND _ndcg_grade_error(TRY_CAST(rel AS DOUBLE), gain, negative) IS NULL THEN
    _ndcg_weighted_list(_ndcg_ideal_gains(TRY_CAST(rel AS DOUBLE), _ndcg_read_depth(k), gain),
                        _ndcg_checked_k(k), 'log', log_base)
END;

-- ndcg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL, log_base := 2,
--      empty_ideal := 0.0, clamp_k := false, full_ideal := false, negative := 'error')
--   -> DOUBLE  [aggregate]
-- NDCG@k = DCG@k / IDCG@k of the ranking formed by a group's rows. Rows with NULL rnk are judged
-- items the ranker did not return (a FULL OUTER JOIN of a run with its judgments): they count in
-- the ideal only. Rows with NULL rel are unjudged: gain 0, not in the ideal.
--   k            NULL cuts DCG and IDCG at the number of returned rows (the seeds' convention);
--                an explicit k cuts both at k, IDCG over all judged rows (trec_eval ndcg_cut.k).
--   empty_ideal  result when IDCG is 0 (0.0; NULL makes avg() skip the query).
--   clamp_k      true cuts IDCG at least(k, returned rows) (the seeds' code, Elasticsearch).
--   full_ideal   with k NULL, true takes IDCG over every judged row (trec_eval ndcg).
--   gain, ties, tie_key, log_base, negative: as for dcg.
-- Example: SELECT query_id, ndcg(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO ndcg(rel, rnk, k := NULL, gain := 'linear', ties := 'average', tie_key := NULL,
                             log_base := 2, empty_ideal := 0.0, clamp_k := false, full_ideal := false,
                             negative := 'error') AS
CASE WHEN _ndcg_type_error(rel, 'rel') IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL THEN
    _ndcg_ndcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k := k, gain := gain,
               ties := ties, tie_key := tie_key, log_base := log_base, empty_ideal := empty_ideal,
               clamp_k := clamp_k, full_ideal := full_ideal, negative := negative)
END;

-- discounted_gain(rel, rnk, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE
-- The DCG term of one item at 1-based position rnk: gain(rel) / log_base(rnk + 1). Summed as a
-- running window it gives DCG at every rank (the window form):
--   SELECT query_id, rnk,
--          sum(discounted_gain(rel, rnk)) OVER (PARTITION BY query_id ORDER BY rnk) AS dcg_at_rank
--   FROM ranked;
-- rnk must be a position (1, 2, 3, ...): use row_number() first when it is a score.
CREATE OR REPLACE MACRO discounted_gain(rel, rnk, gain := 'linear', log_base := 2,
                                        negative := 'error') AS
CASE
    WHEN rnk IS NULL OR rnk < 1 OR rnk <> floor(rnk) THEN
        error('duckdb_ndcg: rnk must be a position 1, 2, 3, ..., got ' || coalesce(rnk::VARCHAR, 'NULL'))
    ELSE _ndcg_gain(rel, gain, negative) / _ndcg_discount(rnk, log_base)
END;
