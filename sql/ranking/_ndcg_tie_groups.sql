-- _ndcg_tie_groups(keys, hits, m, straddle_count): the tie groups of a ranking that begin at or
-- before position m, in rank order, as {s: first position, n: size, a: marked rows before the
-- group, c: marked rows in it} (internal). keys are the ascending rank keys of at least the first
-- m + 1 rows (or all of them); hits the rank keys of the marked rows (the relevant ones, say) in
-- any order. A group that straddles m may reach past keys: its size is then straddle_count, which
-- is evaluated only in that case. a and c come from one merge of the groups' first keys with the
-- hits, each group's key sorted just before its hits: the hits before group j are its place in
-- the merged list minus the j - 1 groups before it, so no search per row and O(n log n) in all.
-- Order-dependent metrics with averaged ties are closed forms over these groups: a uniformly
-- random order of every group (_ndcg_expected_hit, _ndcg_expected_rr, _ndcg_expected_ap_sum).
CREATE OR REPLACE MACRO _ndcg_tie_groups(keys, hits, m, straddle_count) AS
-- keys and hits bound once: as macro arguments they may be whole expressions
list_transform([{keys: keys, hits: hits}], lambda v: list_transform(
    [list_filter(_ndcg_tie_starts(v.keys), lambda b: b <= m)], lambda s: list_transform(
    [list_sort(list_concat(
        list_transform(s, lambda p: {r: v.keys[p], t: 0}),
        list_transform(list_filter(v.hits, lambda x: x <= v.keys[m]), lambda x: {r: x, t: 1})))],
    lambda merged: list_transform(
        [list_filter(list_transform(merged, lambda x, p: CASE WHEN x.t = 0 THEN p END),
                     lambda p: p IS NOT NULL)],
        lambda marks: list_transform(s, lambda b, j: {
            s: b,
            n: CASE WHEN j < len(s) THEN s[j + 1] - b
                    WHEN _ndcg_straddles(v.keys, m) THEN straddle_count
                    ELSE m - b + 1 END,
            a: marks[j] - j,
            c: coalesce(marks[j + 1], len(merged) + 1) - marks[j] - 1}))[1])[1])[1])[1];
