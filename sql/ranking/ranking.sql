-- How a group's rows become a ranking: top-N keys, read depth, tie groups, valued rows (internal).

-- _ndcg_ranking(value, rnk, k, ties, tie_key) -> {m, in_order, keys, straddle, rows}
--   [aggregate] (internal): the ranking a group's rows form, cut at k, as every metric reads it.
-- value is what a row carries (its gain for DCG, 1 for a relevant row, a stop probability for
-- ERR; NULL reads as 0), rnk its rank key (smaller first; NULL: judged but not returned), both
-- DOUBLE. Fields (each NULL where its tie mode does not read it):
--   m         the cut: least(k, returned rows) (k NULL: every returned row)
--   in_order  ties 'key': the values of the first m rows or more in rank order, equal rnk broken
--             by tie_key descending (trec_eval's order)
--   keys      ties 'average': the ascending rank keys of the first m + 1 rows or more
--             (_ndcg_ranked_keys)
--   straddle  ties 'average': the size of the tie group at position m when it reaches past m
--             (NULL when it does not)
--   rows      ties 'average': every row of non-zero value, returned or not (_ndcg_valued_rows)
-- Its tie groups are _ndcg_tie_groups(ranking); its weighted sums (DCG, CG, counts, RBP)
-- _ndcg_weighted_sum(ranking, ...). Read with top-N aggregates: the keys (or values) of the
-- first k + 1 rows when k <= 100, all of them sorted beyond (_ndcg_read_depth, _ndcg_top_n).
-- Every field is an aggregate in a CASE on ties and k, constants, so DuckDB folds the branches
-- they rule out and drops their aggregates; callers bind the ranking once ([ranking] with a
-- lambda), outside every lambda body, where that folding happens. Binding copies each field per
-- query, so the list of every key that sizes a straddling group is not a field: straddle reads
-- it, for the queries whose group straddles (5% of the benchmark's; binding it for every query
-- cost 10% of ndcg@10's per-query arithmetic). The caller checks rnk and the ties arguments
-- (_ndcg_rank_error, in a CASE around its formula: inside the struct, an expression holding
-- error() costs every query a copy) and value.
-- Example: SELECT _ndcg_tie_groups(_ndcg_ranking(rel::DOUBLE, rnk::DOUBLE, 10, 'average', NULL))
--          FROM run;
CREATE OR REPLACE MACRO _ndcg_ranking(value, rnk, k, ties, tie_key) AS
{m: least(_ndcg_checked_k(k), count(rnk)),
 in_order: CASE
     WHEN ties = 'key' AND _ndcg_read_depth(k) IS NULL THEN
         list(coalesce(value, 0.0) ORDER BY rnk ASC,
              CASE WHEN ties = 'key' THEN tie_key END DESC)
             FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NULL
                           AND ties = 'key')
     WHEN ties = 'key' THEN
         max_by(coalesce(value, 0.0),
                {a: -rnk, b: CASE WHEN ties = 'key' THEN tie_key END},
                _ndcg_top_n(_ndcg_read_depth(k)) + 1)
             FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NOT NULL
                           AND ties = 'key')
 END,
 keys: _ndcg_ranked_keys(rnk, k, ties),
 -- a group straddles m = k when the (k + 1)th key equals the kth (with fewer than k + 1 keys m is
 -- their number and nothing straddles); its size: the keys equal to the kth among every key
 straddle: CASE WHEN ties = 'average' THEN list_transform([_ndcg_ranked_keys(rnk, k, ties)],
     lambda ks: CASE WHEN len(ks) > _ndcg_checked_k(k)
                          AND ks[_ndcg_checked_k(k) + 1] = ks[_ndcg_checked_k(k)] THEN
         len(list_filter(coalesce(list(rnk) FILTER (WHERE _ndcg_read_depth(k) IS NOT NULL
                                                          AND ties = 'average'), ks),
                         lambda x: x = ks[_ndcg_checked_k(k)]))
     END)[1] END,
 rows: _ndcg_valued_rows(value, rnk, ties)};

-- _ndcg_ranked_keys(rnk, k, ties) -> DOUBLE[]  [aggregate] (internal): with ties 'average', the
-- ascending rank keys of a group's first k + 1 rows when k <= 100 (a top-N aggregate), of all
-- its rows beyond (one sorted list); NULL with ties 'key'. NULL keys (judged, not returned) are
-- left out. The keys of _ndcg_ranking.
-- Example: SELECT _ndcg_ranked_keys(rnk, 10, 'average') FROM run GROUP BY query_id;
CREATE OR REPLACE MACRO _ndcg_ranked_keys(rnk, k, ties) AS
CASE
    WHEN ties = 'average' AND _ndcg_read_depth(k) IS NULL THEN
        list(rnk ORDER BY rnk)
            FILTER (WHERE rnk IS NOT NULL AND _ndcg_read_depth(k) IS NULL AND ties = 'average')
    WHEN ties = 'average' THEN
        min(rnk, _ndcg_top_n(_ndcg_read_depth(k)) + 1)
            FILTER (WHERE _ndcg_read_depth(k) IS NOT NULL AND ties = 'average')
END;

-- _ndcg_top_n(k): a safe size for the top-N aggregates that read the first k rows: k when it is a
-- positive whole number, else 1 (internal). It never raises, so a literal k folds to a constant
-- and DuckDB drops the aggregates of the branches that k rules out; _ndcg_checked_k raises the
-- error for a bad k after aggregating.
CREATE OR REPLACE MACRO _ndcg_top_n(k) AS
greatest(coalesce(TRY_CAST(k AS BIGINT), 1), 1);

-- _ndcg_read_depth(k): how many leading rows of a group the aggregates keep for cutoff k (internal).
-- Up to 100, k itself, read with DuckDB's top-N aggregates (min(x, n), max_by(x, key, n)), which
-- skip sorting; beyond, NULL: the whole group as a sorted list, cut at k afterwards. Top-N
-- aggregates allocate n slots per group up front and need n < 1,000,000: on 100-row groups,
-- min(x, 1001) takes 2.7x the memory of list() for the same time, and min(x, 10001) 20x and 25x
-- the time, so a large k would cost memory and work beyond the data.
CREATE OR REPLACE MACRO _ndcg_read_depth(k) AS
CASE WHEN _ndcg_checked_k(k) <= 100 THEN _ndcg_checked_k(k) END;

-- _ndcg_tie_groups(ranking): the tie groups of a ranking (_ndcg_ranking, ties 'average') that
-- begin at or before position m, in rank order, as {start: first position, size: its rows,
-- before: marked rows before the group, marked: marked rows in it} (internal; the formulas'
-- comments write them s, n, a and c), read from its keys (the ascending rank keys of at least
-- the first m + 1 rows), its rows ({r: rank key, g: value}: the relevant ones with g = 1, the
-- gained ones with their gain) and straddle (the size of a group reaching past m). before and
-- marked come from one merge of the groups' first keys with the rows, each group's key sorted
-- just before its rows: the rows before group j are its place in the merged list minus the j - 1
-- groups before it, so no search per row and O(n log n) in all. The rows of group j are the
-- (a + 1)th to the (a + c)th of the rows before the cut sorted by key.
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
            start: b,
            size: CASE WHEN j < len(starts) THEN starts[j + 1] - b
                       WHEN v.straddle IS NOT NULL THEN v.straddle
                       ELSE v.m - b + 1 END,
            before: marks[j] - j,
            marked: coalesce(marks[j + 1], len(merged) + 1) - marks[j] - 1}))[1])[1])[1])[1];

-- _ndcg_valued_rows(value, rnk, ties) -> [{r, g}]  [aggregate] (internal): with ties = 'average',
-- every row of a group with a non-zero value, returned or not ({r: rank key, NULL when not
-- returned; g: value}), in no order; NULL otherwise. The rows a ranking's tie groups are read
-- from (_ndcg_ranking), and NDCG's ideal (their values sorted): both call this macro with the
-- same arguments, so DuckDB computes the aggregate once.
-- Example: SELECT _ndcg_valued_rows(rel::DOUBLE, rnk::DOUBLE, 'average') FROM run;
CREATE OR REPLACE MACRO _ndcg_valued_rows(value, rnk, ties) AS
CASE WHEN ties = 'average' THEN
    list({r: rnk, g: value}) FILTER (WHERE ties = 'average' AND value <> 0)
END;

-- _ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key) -> {m, in_order, groups}
--   [aggregate] (internal): the ranking of a group's rows with binary relevance (_ndcg_relevant:
-- 1 when rel >= threshold), as _ndcg_ranking builds it: m, the cut; in_order, the 0/1 relevance
-- of the first m rows (ties 'key'); groups, its tie groups with c = relevant rows and a =
-- relevant rows before them (ties 'average', _ndcg_tie_groups). The ranking of hit rate,
-- reciprocal rank, average precision, R-precision and bpref; rnk is checked to be a number first.
-- Example: SELECT _ndcg_relevant_ranking(rel, rnk, 10, 1, 'average', NULL).groups FROM run;
CREATE OR REPLACE MACRO _ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key) AS
CASE WHEN _ndcg_type_error(rnk, 'rnk') IS NULL
          AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
    list_transform(
        [_ndcg_ranking(_ndcg_relevant(rel, threshold)::DOUBLE, TRY_CAST(rnk AS DOUBLE), k, ties,
                       tie_key)],
        lambda r: {m: r.m, in_order: list_slice(r.in_order, 1, r.m),
                   groups: CASE WHEN ties = 'average' THEN _ndcg_tie_groups(r) END})[1]
END;

-- _ndcg_query_key(query_id): query_id itself, or an error when it is NULL (internal). The mean_*
-- measures score each query_id's rows as one ranking: NULL would silently pool every row that
-- lacks a query into one ranking, as ndcg_report refuses NULL keys.
CREATE OR REPLACE MACRO _ndcg_query_key(query_id) AS
CASE
    WHEN query_id IS NULL THEN
        error('duckdb_ndcg: query_id is NULL in a row of a mean_* measure (each query_id''s rows '
              || 'form one ranking; filter or label those rows)')
    ELSE query_id
END;
