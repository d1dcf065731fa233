-- _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, metric): aggregate; the binary
-- relevance of the first k returned rows in ranked order (internal). For metrics that depend on
-- the order of tied items (reciprocal rank, average precision, hit rate), ties = 'average' with
-- tied rank keys among them is an error that asks for ties := 'key'.
CREATE OR REPLACE MACRO _ndcg_relevant_in_order(rel, rnk, k, threshold, ties, tie_key, metric) AS
CASE
    WHEN _ndcg_has_ties(_ndcg_ranking(_ndcg_relevant(rel, threshold), rnk, _ndcg_checked_k(k),
                                      'linear', ties, tie_key).keys,
                        least(_ndcg_checked_k(k), count(rnk))) THEN
        error('duckdb_ndcg: ' || metric || ' depends on the order of tied rank keys; '
              || 'pass ties := ''key'', tie_key := <item column>')
    ELSE _ndcg_head(_ndcg_ranking(_ndcg_relevant(rel, threshold), rnk, _ndcg_checked_k(k),
                                  'linear', ties, tie_key).grades,
                    least(_ndcg_checked_k(k), count(rnk)))
END;
