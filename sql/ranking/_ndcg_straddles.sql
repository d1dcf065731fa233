-- _ndcg_straddles(keys, m): whether the tie group at position m of a ranking reaches past it, read
-- off its ascending rank keys (at least the first m + 1): then its size and gain sum lie beyond
-- the keys (internal).
CREATE OR REPLACE MACRO _ndcg_straddles(keys, m) AS
len(keys) > m AND keys[m + 1] = keys[m];
