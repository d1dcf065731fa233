-- _ndcg_key_kind(type_name): the kind of a key column's type, for checking that two tables' keys
-- join without lossy casts (internal): every integer type is 'integer' (they compare exactly),
-- every other type is itself (VARCHAR joins VARCHAR only). NULL (an empty table) matches anything.
CREATE OR REPLACE MACRO _ndcg_key_kind(type_name) AS
CASE
    WHEN type_name IS NULL THEN NULL
    WHEN type_name IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT',
                       'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT') THEN 'integer'
    ELSE type_name
END;
