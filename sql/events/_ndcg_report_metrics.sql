-- _ndcg_report_metrics(): the names ndcg_report's metrics := [...] accepts, in the order of its
-- columns (internal): ndcg (always reported) and the family, each named like the aggregate that
-- computes it, so a column, the aggregate and run_report's metric of the same name agree.
-- judged_at_k, last, is computed by the engine (_ndcg_report_rows), not over the judged run.
CREATE OR REPLACE MACRO _ndcg_report_metrics() AS
['ndcg', 'precision_at_k', 'recall_at_k', 'f1_at_k', 'hit_rate', 'reciprocal_rank',
 'average_precision', 'r_precision', 'err', 'rbp', 'judged_at_k'];
