-- _ndcg_correction_method(correction): the p_adjust method of a summary's correction ('none' ->
-- 'holm', whose p-values the summary then ignores), else an error naming correction (internal;
-- compare_summary, ab_summary). Checked here, not by p_adjust, whose error would name `method`.
CREATE OR REPLACE MACRO _ndcg_correction_method(correction) AS
CASE
    WHEN correction IS NULL OR correction NOT IN ('holm', 'bonferroni', 'bh', 'none') THEN
        error('duckdb_ndcg: correction must be ''holm'', ''bonferroni'', ''bh'' or ''none'', got '
              || coalesce('''' || correction || '''', 'NULL'))
    WHEN correction = 'none' THEN 'holm'
    ELSE correction
END;
