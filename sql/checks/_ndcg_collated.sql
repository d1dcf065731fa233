-- _ndcg_collated(v): whether the text v (a key column cast to VARCHAR, read from one row) has a
-- collation that makes different ids equal: NOCASE ('A' = 'a'), NOACCENT ('é' = 'e') or NFC
-- (composed = decomposed é) (internal). A CASE whose taken branch is a literal has the column's
-- type, collation included, so the literal is compared under it; a column of another type cast
-- to VARCHAR has none. DuckDB has no type-preserving way to drop a collation, so the report
-- refuses such keys rather than join 'A' to 'a'.
CREATE OR REPLACE MACRO _ndcg_collated(v) AS
coalesce((CASE WHEN false THEN v ELSE 'A' END) = 'a'
         OR (CASE WHEN false THEN v ELSE 'é' END) = 'e'
         OR (CASE WHEN false THEN v ELSE 'e' || chr(769) END) = chr(233), false);
