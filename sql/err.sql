-- err(rel, rnk, k := NULL, max_grade := 4, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Expected reciprocal rank (Chapelle et al. 2009): a user scans down the first k returned rows
-- (k NULL: all of them) and stops at a row with probability R = (2^grade - 1) / 2^max_grade;
-- ERR = sum over positions q of (1 / q) R_q prod_{i < q} (1 - R_i). Not normalised (gdeval's
-- err@k, ir_measures ERR@k, which fix max_grade = 4, the TREC Web track's scale). Unjudged rows
-- and grade 0 stop no one; a grade above max_grade or below 0 is an error.
--   ties  'key': equal rnk broken by tie_key descending (trec_eval's order). 'average': exact when
--         no tie group within the cut holds a row of non-zero grade with another row (then the
--         order of tied rows changes nothing); otherwise an error for now: ERR's expectation over
--         tied orders has no closed form here yet (pass ties := 'key').
-- Example: SELECT avg(e) FROM (SELECT err(rel, rnk, 20) AS e FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO err(rel, rnk, k := NULL, max_grade := 4, ties := 'average',
                            tie_key := NULL) AS
CASE
    WHEN coalesce(NOT (TRY_CAST(max_grade AS DOUBLE) > 0
                       AND isfinite(TRY_CAST(max_grade AS DOUBLE))), true) THEN
        error('duckdb_ndcg: max_grade must be a positive number, got '
              || coalesce(max_grade::VARCHAR, 'NULL'))
    WHEN max(TRY_CAST(rel AS DOUBLE)) > max_grade OR min(TRY_CAST(rel AS DOUBLE)) < 0 THEN
        error('duckdb_ndcg: err needs grades between 0 and max_grade ' || max_grade::VARCHAR
              || ', got ' || CASE WHEN max(TRY_CAST(rel AS DOUBLE)) > max_grade
                                  THEN max(TRY_CAST(rel AS DOUBLE))
                                  ELSE min(TRY_CAST(rel AS DOUBLE)) END::VARCHAR)
    WHEN _ndcg_type_error(rel, 'rel') IS NULL AND _ndcg_type_error(rnk, 'rnk') IS NULL
         AND _ndcg_rank_error(TRY_CAST(rnk AS DOUBLE), ties, tie_key) IS NULL THEN
        list_transform(
            [{grades: _ndcg_top_grades(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE),
                                       _ndcg_read_depth(k), ties, tie_key),
              m: least(_ndcg_checked_k(k), count(rnk)),
              mixed: CASE WHEN ties = 'average' THEN
                         list_transform([_ndcg_relevant_groups(
                                 CASE WHEN rel > 0 THEN 1 ELSE 0 END, rnk, k, 1, ties, tie_key)],
                             lambda r: coalesce(list_bool_or(list_transform(r.groups,
                                 lambda g: g.c > 0 AND g.n > 1)), false))[1]
                     ELSE false END}],
            lambda r: CASE
                WHEN r.mixed THEN
                    error('duckdb_ndcg: err depends on the order of tied rows of non-zero grade; '
                          || 'pass ties := ''key'', tie_key := <item column>')
                ELSE coalesce(list_reduce(
                    list_transform(_ndcg_head(r.grades, r.m), lambda g, q: {
                        p: 1.0 - (pow(2.0, greatest(g, 0)) - 1.0) / pow(2.0, max_grade),
                        s: (pow(2.0, greatest(g, 0)) - 1.0) / pow(2.0, max_grade) / q}),
                    lambda acc, x: {p: acc.p * x.p, s: acc.s + acc.p * x.s},
                    {p: 1.0::DOUBLE, s: 0.0::DOUBLE}).s, 0.0)
            END)[1]
END;
