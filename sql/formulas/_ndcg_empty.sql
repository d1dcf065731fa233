-- _ndcg_empty(value, relevant, empty_ideal): value, or empty_ideal when the query has no relevant
-- judged row (relevant = 0), where recall-like metrics have nothing to find (internal). 0.0 is
-- trec_eval's and ranx's answer; 1.0 is XGBoost's for AP; NULL makes avg() skip the query
-- (torchmetrics empty_target_action 'neg', 'pos', 'skip').
CREATE OR REPLACE MACRO _ndcg_empty(value, relevant, empty_ideal) AS
CASE WHEN coalesce(relevant, 0) = 0 THEN empty_ideal::DOUBLE ELSE value END;
