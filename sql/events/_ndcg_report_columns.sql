-- _ndcg_report_columns(): the columns ndcg_report, ndcg_summary and compare_rankers add to the
-- query and slice columns (internal). A query or slice column of the same name would shadow them
-- (GROUP BY k over a slice named k), so the report refuses it.
CREATE OR REPLACE MACRO _ndcg_report_columns() AS
['k', 'ndcg', 'dcg', 'idcg', 'shown', 'shown_relevant', 'relevant', 'queries', 'mean_ndcg',
 'queries_without_relevant', 'mean_ndcg_with_relevant', 'ndcg_a', 'ndcg_b', 'diff', 'mean_diff',
 'mean_judged_at_k', 'judged_a', 'judged_b'];
