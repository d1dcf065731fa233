-- _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col, position_col, score_col,
--                   ties, gain, log_base, empty_ideal, duplicates, event_col, mapping, collapse,
--                   time_col, unknown)
--   -> TABLE(_key STRUCT(query and slice columns), _k, ndcg, dcg, idcg, shown, shown_relevant,
--            relevant)
-- The engine of ndcg_report and compare_rankers (internal; see ndcg_report for the parameters).
-- One join of the rankings with the grades that have a gain (usually few) and one aggregation per
-- (slice, query) read the rank keys of the first max(k) + 1 rows and the first max(k) gained rows
-- of each ranking with top-N aggregates (core _ndcg_top_*), so the state per ranking is bounded
-- by the cutoff, not by the ranking; every cutoff is read off those lists (core _ndcg_dcg_at). A
-- tie group that straddles a cutoff (ties = 'average') needs its full size and gain sum: a second pass joins the rankings with just those (ranking, rank key)
-- pairs. The ideal comes from the graded events of each query (core _ndcg_ideal_gains, as idcg
-- does), so shown and unshown graded items both count in it. duplicates = 'error' checks the rows
-- a cutoff reads (the first max(k) + 1, and whole straddling tie groups; all rows when k is NULL
-- or above 100, where whole rankings are read):
-- a duplicate further down cannot change NDCG@k.
CREATE OR REPLACE MACRO _ndcg_report_rows(rankings, events, k, slice_by, query_col, item_col,
                                          position_col, score_col, ties, gain, log_base,
                                          empty_ideal, duplicates, event_col, mapping, collapse,
                                          time_col, unknown) AS TABLE
WITH graded AS (
    SELECT query_id AS _q, item_id AS _i, rel
    FROM event_relevance(events, query_col := query_col, item_col := item_col,
                         event_col := event_col, mapping := mapping, collapse := collapse,
                         time_col := time_col, unknown := unknown)
),
gained AS (
    -- the graded items that can add to DCG or to shown_relevant: usually a small part of the
    -- grades, so the join with the rankings builds a small hash table
    SELECT _q, _i, rel FROM graded WHERE rel > 0 OR _ndcg_has_gain(rel, gain)
),
cfg AS (
    -- the cutoffs, parsed once: expressions with lambdas are not folded to constants
    SELECT _ndcg_report_cuts(k) AS _cuts
),
key_types AS (
    -- the key columns' types, read from one row of each table: keys of different kinds would
    -- join through implicit casts ('07' and '7.0' both equal to 7), so they are refused
    SELECT [(SELECT typeof(COLUMNS(lambda c: c = query_col)) FROM query_table(rankings) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = item_col)) FROM query_table(rankings) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = coalesce(score_col, position_col)))
             FROM query_table(rankings) LIMIT 1)]
               AS _shown_types,
           [(SELECT typeof(COLUMNS(lambda c: c = query_col)) FROM query_table(events) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = item_col)) FROM query_table(events) LIMIT 1)]
               AS _event_types
),
shown AS NOT MATERIALIZED (
    SELECT struct_pack(*COLUMNS(lambda c: c = query_col OR list_contains(slice_by, c))) AS _key,
           COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _i,
           CASE WHEN score_col IS NULL THEN 1 ELSE -1 END
               * TRY_CAST(COLUMNS(lambda c: c = coalesce(score_col, position_col)) AS DOUBLE) AS _rnk
    FROM query_table(rankings)
),
ranked AS (
    SELECT _key, _q,
           CASE WHEN _ndcg_rank_error(_rnk, ties, _i) IS NULL
                THEN _ndcg_top_keys(_rnk, _ndcg_report_depth(k), ties)
           END AS top_keys,
           CASE WHEN ties = 'key' THEN _ndcg_top_grades(rel, _rnk, _ndcg_report_depth(k), ties, _i)
           END AS top_grades,
           _ndcg_top_gained_rows(rel, _rnk, _ndcg_report_depth(k), gain, ties) AS gained_rows,
           _ndcg_top_items(_i, _rnk, _ndcg_report_depth(k), ties) AS top_items,
           count(*) AS shown,
           count(*) FILTER (WHERE rel > 0) AS shown_relevant,
           bool_or(_q IS NULL OR _i IS NULL OR _rnk IS NULL) AS null_keys
    FROM shown LEFT JOIN gained USING (_q, _i)
    GROUP BY _key, _q
),
ideal AS (
    SELECT _q,
           CASE WHEN _ndcg_grade_error(rel, gain, 'error') IS NULL
                THEN _ndcg_ideal_gains(rel, _ndcg_report_depth(k), gain)
           END AS ideal_gains,
           count(*) FILTER (WHERE rel > 0) AS relevant
    FROM graded
    GROUP BY _q
),
cuts AS (
    SELECT ranked.*, cut.k AS _k, least(cut.k, shown) AS _m,
           CASE WHEN _ndcg_straddles(top_keys, least(cut.k, shown))
                THEN top_keys[least(cut.k, shown)] END AS _straddle
    FROM ranked, cfg, unnest(_cuts) AS cut(k)
),
straddling AS (
    SELECT s._key, s._rnk AS _straddle, count(*) AS _count,
           count(DISTINCT s._i) AS _items,
           any_value(s._i) FILTER (WHERE s._i IS NOT NULL) AS _item,
           coalesce(sum(_ndcg_gain(gained.rel, gain, 'zero')), 0.0) AS _gain
    FROM shown AS s
    SEMI JOIN (SELECT DISTINCT _key, _straddle FROM cuts WHERE _straddle IS NOT NULL) AS b
        ON s._key = b._key AND s._rnk = b._straddle
    LEFT JOIN gained ON s._q = gained._q AND s._i = gained._i
    GROUP BY s._key, s._rnk
)
SELECT _key, _k,
       CASE
           WHEN duplicates IS NULL OR duplicates NOT IN ('error', 'allow') THEN
               error('duckdb_ndcg: duplicates must be ''error'' or ''allow'', got '
                     || coalesce('''' || duplicates || '''', 'NULL'))
           WHEN NOT _ndcg_is_number_type(coalesce(_shown_types[3], 'NULL')) THEN
               error('duckdb_ndcg: ' || coalesce(score_col, position_col) || ' of rankings table '
                     || rankings || ' must be a number, got ' || _shown_types[3]
                     || ' (cast it in a view)')
           WHEN _ndcg_key_kind(_shown_types[1]) <> _ndcg_key_kind(_event_types[1])
                OR _ndcg_key_kind(_shown_types[2]) <> _ndcg_key_kind(_event_types[2]) THEN
               error('duckdb_ndcg: key columns differ in type: rankings ' || rankings || ' has '
                     || query_col || ' ' || _shown_types[1] || ', ' || item_col || ' '
                     || _shown_types[2] || ' but events ' || events || ' has ' || query_col || ' '
                     || _event_types[1] || ', ' || item_col || ' ' || _event_types[2]
                     || ' (cast one side in a view so that ids compare as the same kind)')
           -- json_keys(to_json(...)), not struct_keys: DuckDB 1.4 has no struct_keys
           WHEN len(slice_by) > 0
                AND list_any_value(list_filter(
                    slice_by, lambda s: NOT list_contains(json_keys(to_json(_key)), s)))
                IS NOT NULL THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' has no column '
                     || list_any_value(list_filter(
                            slice_by, lambda s: NOT list_contains(json_keys(to_json(_key)), s)))
                     || ' (named in slice_by)')
           WHEN list_has_any(list_append(slice_by, query_col), _ndcg_report_columns()) THEN
               error('duckdb_ndcg: column '
                     || list_intersect(list_append(slice_by, query_col), _ndcg_report_columns())[1]
                     || ' of rankings table ' || rankings || ' has the name of a result column ('
                     || array_to_string(_ndcg_report_columns(), ', ')
                     || '): rename it in a view')
           WHEN null_keys THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' has NULL in ' || query_col || ', '
                     || item_col || ' or ' || coalesce(score_col, position_col)
                     || ' (query ' || coalesce(_q::VARCHAR, 'NULL') || ')')
           WHEN duplicates = 'error'
                AND (len(list_distinct(top_items)) < len(top_items) OR _items < _count) THEN
               error('duckdb_ndcg: rankings table ' || rankings || ' shows ' || item_col || ' '
                     || coalesce(list_filter(top_items, lambda x, p: list_position(top_items, x) < p)[1],
                                 _item)::VARCHAR
                     || ' more than once in ranking ' || _key::VARCHAR
                     || ' (pass duplicates := ''allow'' to score every impression)')
           ELSE coalesce(_ndcg_dcg_at(top_keys, top_grades, gained_rows, _m, _count, _gain, gain, log_base)
                         / nullif(_ndcg_sum_discounted(coalesce(ideal_gains, []), _k, log_base), 0),
                         empty_ideal)
       END AS ndcg,
       _ndcg_dcg_at(top_keys, top_grades, gained_rows, _m, _count, _gain, gain, log_base) AS dcg,
       _ndcg_sum_discounted(coalesce(ideal_gains, []), _k, log_base) AS idcg,
       shown,
       shown_relevant,
       coalesce(relevant, 0) AS relevant
FROM cuts LEFT JOIN ideal USING (_q) LEFT JOIN straddling USING (_key, _straddle), key_types;
