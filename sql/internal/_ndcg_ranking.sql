-- _ndcg_ranking(g, rnk, ties, tie_key): aggregate; the returned rows as a list of {r: rnk, g: g}
-- in ranked order (ascending rnk; for ties = 'key', equal rnk broken by tie_key descending, as
-- trec_eval breaks equal scores by document id). Rows with NULL rnk were not returned: left out.
-- An empty ranking is []. Errors: an unknown ties value, ties = 'key' without a tie_key on every
-- returned row, NaN or infinite rank keys (internal).
CREATE OR REPLACE MACRO _ndcg_ranking(g, rnk, ties, tie_key) AS
CASE
    WHEN ties NOT IN ('average', 'key') THEN
        error('duckdb_ndcg: ties must be ''average'' or ''key'', got ''' || ties || '''')
    WHEN ties = 'key' AND count(tie_key) FILTER (WHERE rnk IS NOT NULL) < count(rnk) THEN
        error('duckdb_ndcg: ties := ''key'' needs tie_key := <column> with no NULLs')
    WHEN bool_or(isnan(rnk::DOUBLE) OR isinf(rnk::DOUBLE)) THEN
        error('duckdb_ndcg: rank keys must be finite numbers (found NaN or infinity)')
    ELSE coalesce(list({r: rnk, g: g} ORDER BY rnk ASC, CASE WHEN ties = 'key' THEN tie_key END DESC) FILTER (WHERE rnk IS NOT NULL), [])
END;
