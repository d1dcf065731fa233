-- _ndcg_tie_groups(ranking): the tie groups of a ranking (_ndcg_ranking, ties 'average') that
-- begin at or before position m, in rank order, as {s: first position, n: size, a: rows before
-- the group, c: rows in it} (internal), read from its keys (the ascending rank keys of at least
-- the first m + 1 rows), its rows ({r: rank key, g: value}: the relevant ones with g = 1, the
-- gained ones with their gain) and straddle (the size of a group reaching past m). a and c come from one merge of the groups' first keys with the rows, each
-- group's key sorted just before its rows: the rows before group j are its place in the merged
-- list minus the j - 1 groups before it, so no search per row and O(n log n) in all. The rows
-- of group j are the (a + 1)th to the (a + c)th of the rows before the cut sorted by key.
-- The order-dependent metrics are closed forms over these groups, each in a uniformly random
-- order (_ndcg_expected_hit, _ndcg_expected_rr, _ndcg_expected_ap_sum, _ndcg_expected_err); long
-- rankings' weighted sums add them up (_ndcg_weighted_sum).
-- Example: SELECT _ndcg_tie_groups(_ndcg_ranking(rel, rnk, 10, 'average', NULL)) FROM run;
CREATE OR REPLACE MACRO _ndcg_tie_groups(ranking) AS
-- the ranking bound once: a macro argument is an expression
list_transform([ranking], lambda v: list_transform(
    -- the positions where the groups begin (a key differs from the one before it)
    [list_filter(range(1, len(v.keys) + 1),
                 lambda b: b <= v.m AND (b = 1 OR v.keys[b] <> v.keys[b - 1]))],
    lambda starts: list_transform(
    [list_sort(list_concat(
        list_transform(starts, lambda p: {r: v.keys[p], t: 0, g: 0.0::DOUBLE}),
        list_transform(list_filter(v.rows, lambda x: x.r <= v.keys[v.m]),
                       lambda x: {r: x.r, t: 1, g: x.g::DOUBLE})))],
    lambda merged: list_transform(
        [list_filter(list_transform(merged, lambda x, p: CASE WHEN x.t = 0 THEN p END),
                     lambda p: p IS NOT NULL)],
        lambda marks: list_transform(starts, lambda b, j: {
            s: b,
            n: CASE WHEN j < len(starts) THEN starts[j + 1] - b
                    WHEN v.straddle IS NOT NULL THEN v.straddle
                    ELSE v.m - b + 1 END,
            a: marks[j] - j,
            c: coalesce(marks[j + 1], len(merged) + 1) - marks[j] - 1}))[1])[1])[1])[1];
