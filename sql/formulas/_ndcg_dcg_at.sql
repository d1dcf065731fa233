-- _ndcg_dcg_at(ties, keys, grades, rows, m, straddle_count, straddle_gain, gain, log_base): DCG of
-- the first m positions of a ranking (log_base 'none': CG) (internal). The tie mode names the
-- shape of the input:
--   ties = 'key': grades, the grades of the first m (or more) rows in rank order (keys unused).
--   ties = 'average': keys, the ascending rank keys of the first m + 1 rows (or all of them), and
--   rows, the rows with a non-zero gain ({r: key, g: gain}, _ndcg_gained_rows); each row before
--   the cut adds its gain times the mean of 1 / discount over its tie group's positions (its own
--   position when untied). A tie group that straddles position m reaches past keys:
--   straddle_count and straddle_gain, its size and gain sum, are then evaluated (only then: they
--   may scan lists or come from a second pass over the data) and the group adds
--   straddle_gain / straddle_count at each of its positions up to m.
-- Two ways to find a row's tie group, by the length of keys: up to 512 keys, a search of keys per
-- row (_ndcg_row_dcg), cheapest on short lists but O(n) per row; beyond, a merge of the rows with
-- the tie groups (_ndcg_group_of, _ndcg_group_weights), O(n log n) in all. One ranking of 100,000
-- rows took 361 s with the search alone, 0.2 s with the merge; on 100-row rankings the merge takes
-- 2x the CPU time of the search, and they break even near 800 keys.
CREATE OR REPLACE MACRO _ndcg_dcg_at(ties, keys, grades, rows, m, straddle_count, straddle_gain,
                                     gain, log_base) AS
CASE
    WHEN ties = 'key' THEN
        _ndcg_sum_discounted(_ndcg_gains(_ndcg_head(grades, m), gain), NULL, log_base)
    ELSE coalesce(list_aggregate(list_concat(
        CASE
            WHEN len(keys) <= 512 THEN
                list_transform(
                    list_sort(list_filter(rows, lambda x: x.r < keys[m]
                        OR (x.r = keys[m] AND NOT _ndcg_straddles(keys, m)))),
                    lambda x: _ndcg_row_dcg(keys, x.r, x.g, log_base))
            ELSE list_transform([_ndcg_tie_starts(keys)], lambda s: list_transform(
                [_ndcg_group_weights(s, len(keys), m, log_base)], lambda w: list_transform(
                    _ndcg_group_of(s, keys, list_filter(rows, lambda x: x.r < keys[m]
                        OR (x.r = keys[m] AND NOT _ndcg_straddles(keys, m)))),
                    lambda x: x.g * w[x.j]))[1])[1]
        END,
        CASE WHEN _ndcg_straddles(keys, m) THEN
            [straddle_gain / straddle_count * list_sum(list_transform(
                range(list_position(keys, keys[m]), m + 1),
                lambda q: 1.0 / _ndcg_discount(q, log_base)))]
        END), 'fsum'), 0.0)
END;
