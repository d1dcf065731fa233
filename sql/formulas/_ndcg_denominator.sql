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
