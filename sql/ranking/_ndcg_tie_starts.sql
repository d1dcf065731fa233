-- _ndcg_tie_starts(keys): the 1-based positions where each tie group of a ranking begins, read
-- off its ascending rank keys in one pass (a key differs from the one before it) (internal).
-- Tie group j spans positions starts[j] .. starts[j + 1] - 1, the last one up to len(keys).
-- keys is bound once ([keys] with lambda ks): a macro argument is an expression, which a mention
-- inside a lambda body would evaluate again for every element.
CREATE OR REPLACE MACRO _ndcg_tie_starts(keys) AS
list_transform([keys], lambda ks:
    list_filter(range(1, len(ks) + 1), lambda i: i = 1 OR ks[i] <> ks[i - 1]))[1];
