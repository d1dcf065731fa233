-- _ndcg_valued_rows(value, rnk, ties) -> [{r, g}]  [aggregate] (internal): with ties = 'average',
-- every row of a group with a non-zero value, returned or not ({r: rank key, NULL when not
-- returned; g: value}), in no order; NULL otherwise. The rows a ranking's tie groups are read
-- from (_ndcg_ranking), and NDCG's ideal (their values sorted): both call this macro with the
-- same arguments, so DuckDB computes the aggregate once.
-- Example: SELECT _ndcg_valued_rows(rel::DOUBLE, rnk::DOUBLE, 'average') FROM run;
CREATE OR REPLACE MACRO _ndcg_valued_rows(value, rnk, ties) AS
CASE WHEN ties = 'average' THEN
    list({r: rnk, g: value}) FILTER (WHERE ties = 'average' AND value <> 0)
END;
