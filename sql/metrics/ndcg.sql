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
    _ndcg_ndcg(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE), k, gain, ties, tie_key,
               log_base, empty_ideal, clamp_k, full_ideal, negative)
END;
