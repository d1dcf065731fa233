-- _ndcg_read_depth(k): how many leading rows of a group the aggregates keep for cutoff k (internal).
-- Up to 100, k itself, read with DuckDB's top-N aggregates (min(x, n), max_by(x, key, n)), which
-- skip sorting; beyond, NULL: the whole group as a sorted list, cut at k afterwards. Top-N
-- aggregates allocate n slots per group up front and need n < 1,000,000: on 100-row groups,
-- min(x, 1001) takes 2.7x the memory of list() for the same time, and min(x, 10001) 20x and 25x
-- the time, so a large k would cost memory and work beyond the data.
CREATE OR REPLACE MACRO _ndcg_read_depth(k) AS
CASE WHEN _ndcg_checked_k(k) <= 100 THEN _ndcg_checked_k(k) END;
