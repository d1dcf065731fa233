-- _ndcg_is_number_type(type_name): whether a typeof() name is a numeric type (or the NULL type of
-- an all-NULL column), the types grades and rank keys may have (internal).
CREATE OR REPLACE MACRO _ndcg_is_number_type(type_name) AS
regexp_full_match(type_name,
                  '"?NULL"?|U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?(_LITERAL)?|FLOAT|DOUBLE|DECIMAL.*');
