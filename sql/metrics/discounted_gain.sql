-- discounted_gain(rel, rnk, gain := 'linear', log_base := 2, negative := 'error') -> DOUBLE
-- The DCG term of one item at 1-based position rnk: gain(rel) / log_base(rnk + 1). Summed as a
-- running window it gives DCG at every rank (the window form):
--   SELECT query_id, rnk,
--          sum(discounted_gain(rel, rnk)) OVER (PARTITION BY query_id ORDER BY rnk) AS dcg_at_rank
--   FROM ranked;
-- rnk must be a position (1, 2, 3, ...): use row_number() first when it is a score.
CREATE OR REPLACE MACRO discounted_gain(rel, rnk, gain := 'linear', log_base := 2,
                                        negative := 'error') AS
CASE
    WHEN rnk IS NULL OR rnk < 1 OR rnk <> floor(rnk) THEN
        error('duckdb_ndcg: rnk must be a position 1, 2, 3, ..., got ' || coalesce(rnk::VARCHAR, 'NULL'))
    ELSE _ndcg_gain(rel, gain, negative) / _ndcg_discount(rnk, log_base)
END;
