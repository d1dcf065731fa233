-- _ndcg_group_of(starts, keys, rows): each row {r: rank key, g: value} of rows (r among keys)
-- with the index j of its tie group (_ndcg_tie_starts), as {j, g}, ordered by key (internal).
-- A merge, not a search per row (which made long rankings quadratic): the groups' first keys and
-- the rows are sorted together, each group's key just before its own rows, so a row's group is
-- its place in the merged list minus the rows before it. O(n log n) for n keys and rows.
CREATE OR REPLACE MACRO _ndcg_group_of(starts, keys, rows) AS
list_transform(
    list_filter(
        list_transform(
            list_sort(list_concat(
                list_transform(starts, lambda p: {r: keys[p], t: 0, g: 0.0::DOUBLE}),
                list_transform(rows, lambda x: {r: x.r, t: 1, g: x.g::DOUBLE}))),
            lambda x, p: {t: x.t, p: p, g: x.g}),
        lambda x: x.t = 1),
    lambda x, i: {j: x.p - i, g: x.g});
