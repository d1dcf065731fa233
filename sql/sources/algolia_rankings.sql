-- algolia_rankings(responses_tbl)
--   -> TABLE(query_id VARCHAR, item_id VARCHAR, position BIGINT, search_term VARCHAR,
--            index_name VARCHAR)
-- The shown lists of Algolia searches in the adapters' contract (README "From GA4 and UBI
-- exports"). The Insights API holds interactions only, so the lists come from the search
-- responses the site logs (`responses_tbl`, one response a row as Algolia returns it with
-- clickAnalytics: queryID, query, index, page, hitsPerPage, hits[].objectID). One row per hit,
-- query_id its queryID, position absolute across pages: page × hitsPerPage + its place among the
-- hits (1 = first), as the Insights API numbers clicks. A page > 0 without hitsPerPage, or a
-- negative page, is an error naming them. search_term (query) and index_name are slices.
-- Example: CREATE VIEW shown AS SELECT * FROM algolia_rankings('responses');
CREATE OR REPLACE MACRO algolia_rankings(responses_tbl) AS TABLE
SELECT * FROM _ndcg_algolia_shown(responses_tbl);
