-- _ndcg_checked_finite(bad, macro, what): 0 when bad = 0, else an error naming the macro, the
-- values (`what`) and how many rows held NaN or infinity (internal; every test's aggregate counts
-- its rows with a non-finite value in `bad` and adds this to `dropped`). A NaN difference was a
-- win in a sign count and NaN in a mean: refused, as scipy's nan_policy='raise' does; NULL is
-- the way to leave a row out.
CREATE OR REPLACE MACRO _ndcg_checked_finite(bad, macro, what) AS
CASE WHEN bad = 0 THEN 0::BIGINT
     ELSE error('duckdb_ndcg: ' || macro || ': ' || what || ' must be finite numbers, got NaN or '
                || 'infinity in ' || bad::VARCHAR || CASE WHEN bad = 1 THEN ' row' ELSE ' rows' END
                || ' (NULL leaves a row out)')
END;
