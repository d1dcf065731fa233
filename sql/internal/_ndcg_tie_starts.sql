-- _ndcg_tie_starts(keys): the 1-based positions where each tie group of a ranking begins, read
-- off its ascending rank keys in one pass (a key differs from the one before it) (internal).
-- Tie group j spans positions starts[j] .. starts[j + 1] - 1, the last one up to len(keys).
CREATE OR REPLACE MACRO _ndcg_tie_starts(keys) AS
list_filter(range(1, len(keys) + 1), lambda i: i = 1 OR keys[i] <> keys[i - 1]);
