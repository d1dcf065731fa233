-- _ndcg_report_depth(cuts): how deep a report reads each ranking: its deepest cutoff, or NULL (the
-- whole ranking) when one of the cutoffs is NULL (internal).
CREATE OR REPLACE MACRO _ndcg_report_depth(cuts) AS
CASE WHEN list_contains(list_transform(cuts, lambda c: c IS NULL), true) THEN NULL
     ELSE list_max(cuts) END;
