-- _ndcg_rank_error(rnk, ties, tie_key): aggregate; NULL when a group's rank keys and the ties
-- arguments are valid, else an error naming the problem (internal): an unknown ties value,
-- ties = 'key' without a tie_key on every returned row, NaN or infinite rank keys.
CREATE OR REPLACE MACRO _ndcg_rank_error(rnk, ties, tie_key) AS
CASE
    WHEN ties IS NULL OR ties NOT IN ('average', 'key') THEN
        error('duckdb_ndcg: ties must be ''average'' or ''key'', got '
              || coalesce('''' || ties || '''', 'NULL'))
    WHEN ties = 'key' AND count(tie_key) FILTER (WHERE ties = 'key' AND rnk IS NOT NULL) < count(rnk) THEN
        error('duckdb_ndcg: ties := ''key'' needs tie_key := <column> with no NULLs')
    WHEN isnan(max(rnk)::DOUBLE) OR isinf(max(rnk)::DOUBLE) OR isinf(min(rnk)::DOUBLE) THEN
        error('duckdb_ndcg: rank keys must be finite numbers (found NaN or infinity)')
END;
