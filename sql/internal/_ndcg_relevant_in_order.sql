-- _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, metric): aggregate; the binary
-- relevance of the first k returned rows in ranked order (internal). For metrics that depend on
-- the order of tied items (reciprocal rank, average precision, hit rate), ties = 'average' with
-- tied rank keys among them is an error that asks for ties := 'key'.
CREATE OR REPLACE MACRO _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, metric) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    -- bound outside lambda bodies, as in dcg, so that unused branches fold away
    list_transform(
        [{keys: _ndcg_top_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), ties),
          grades: _ndcg_top_grades(_ndcg_relevant(rel, threshold), TRY_CAST(rnk AS DOUBLE),
                                   _ndcg_read_depth(k), ties, tie_key),
          m: least(_ndcg_checked_k(k), count(TRY_CAST(rnk AS DOUBLE)))}],
        lambda r: CASE
            WHEN _ndcg_has_ties(r.keys, r.m) THEN
                error('duckdb_ndcg: ' || metric || ' depends on the order of tied rank keys; '
                      || 'pass ties := ''key'', tie_key := <item column>')
            ELSE _ndcg_head(r.grades, r.m)
        END)[1]
END;
