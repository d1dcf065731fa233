-- _ndcg_report_max_grade(max_grade, mapping): err's max_grade in ndcg_report, checked (internal):
-- 'mapping' is the largest grade of the mapping (3, purchase, for the default mapping), else a
-- positive finite number; anything else is an error naming the setting.
CREATE OR REPLACE MACRO _ndcg_report_max_grade(max_grade, mapping) AS
CASE
    WHEN max_grade::VARCHAR = 'mapping' THEN coalesce(list_max(map_values(mapping)), 3.0)::DOUBLE
    WHEN TRY_CAST(max_grade AS DOUBLE) > 0 AND isfinite(TRY_CAST(max_grade AS DOUBLE)) THEN
        TRY_CAST(max_grade AS DOUBLE)
    ELSE error('duckdb_ndcg: max_grade must be ''mapping'' or a positive number, got '
               || coalesce(CASE WHEN TRY_CAST(max_grade AS DOUBLE) IS NULL
                                THEN '''' || max_grade::VARCHAR || ''''
                                ELSE max_grade::VARCHAR END, 'NULL'))
END;
