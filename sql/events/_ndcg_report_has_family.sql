-- _ndcg_report_has_family(metrics) -> BOOLEAN (internal): whether a report's metrics := [...]
-- names a metric of the family besides ndcg and judged_at_k (false for NULL or ['ndcg'], the
-- default; judged_at_k is the engine's own column, not scored over the judged run). The one
-- condition under which the report builds its judged runs (_ndcg_report_rows) and reads the
-- family's aggregates (_ndcg_report_metric_rows); a constant, so DuckDB folds it.
-- Example: SELECT _ndcg_report_has_family(['ndcg', 'err']);  -- true
CREATE OR REPLACE MACRO _ndcg_report_has_family(metrics) AS
coalesce(len(list_filter(metrics, lambda m: coalesce(m NOT IN ('ndcg', 'judged_at_k'), true))) > 0, false);
