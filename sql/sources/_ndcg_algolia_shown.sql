-- _ndcg_algolia_shown(responses_tbl)
--   -> TABLE(query_id, item_id, position BIGINT, search_term, index_name VARCHAR)
-- What each Algolia search showed (internal; algolia_rankings states the rules): one row per hit
-- of a logged search response (queryID, query, index, page, hitsPerPage, hits[].objectID), at
-- its absolute position page × hitsPerPage + its place among the hits (1 = first), the numbering
-- of the Insights API's positions.
CREATE OR REPLACE MACRO _ndcg_algolia_shown(responses_tbl) AS TABLE
SELECT query_id, item_id,
       CASE WHEN _page < 0 OR (_page > 0 AND _per_page IS NULL) THEN
                error('duckdb_ndcg: page must be a whole number >= 0 with hitsPerPage, got page '
                      || _page::VARCHAR || ', hitsPerPage ' || coalesce(_per_page::VARCHAR, 'NULL')
                      || ' (queryID ' || query_id || ')')
            ELSE _page * coalesce(_per_page, 0) + _place END AS position,
       search_term, index_name
FROM (
    SELECT nullif(queryID::VARCHAR, '') AS query_id,
           _ndcg_json_text(struct_extract(unnest(hits), 'objectID')) AS item_id,
           generate_subscripts(hits, 1) AS _place,
           coalesce(TRY_CAST(page AS BIGINT), 0) AS _page,
           TRY_CAST(hitsPerPage AS BIGINT) AS _per_page,
           query::VARCHAR AS search_term, "index"::VARCHAR AS index_name
    FROM query_table(responses_tbl)
    WHERE nullif(queryID::VARCHAR, '') IS NOT NULL
);
