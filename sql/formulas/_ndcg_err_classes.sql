-- _ndcg_err_classes(ts, a, c, u): the stop rows a + 1 .. a + c of ts (one tie group's, sorted by
-- t; {r: rank key, t: 1 - R}) as the items _ndcg_expected_err adds to the group's mean products:
-- each run of one t of more than u rows as one item {r: its size, e: [t]}, added at once, and
-- every other row as {r: 0, e: [t]}, added alone (internal). The runs are found by comparing
-- neighbours: their first and last rows, zipped.
CREATE OR REPLACE MACRO _ndcg_err_classes(ts, a, c, u) AS
flatten(list_transform(list_zip(
    list_filter(range(c), lambda i: i = 0 OR ts[a + 1 + i].t <> ts[a + i].t),
    list_filter(range(c), lambda i: i = c - 1 OR ts[a + 1 + i].t <> ts[a + 2 + i].t)),
    lambda b: CASE
        WHEN b[2] - b[1] + 1 > u THEN
            [{r: (b[2] - b[1] + 1)::BIGINT, e: [ts[a + 1 + b[1]].t::DOUBLE]}]
        ELSE list_transform(range(b[1], b[2] + 1),
                            lambda i: {r: 0::BIGINT, e: [ts[a + 1 + i].t::DOUBLE]})
    END));
