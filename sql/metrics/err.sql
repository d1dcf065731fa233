-- err(rel, rnk, k := NULL, max_grade := 4, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Expected reciprocal rank (Chapelle et al. 2009): a user scans down the first k returned rows
-- (k NULL: all of them) and stops at a row with probability R = (2^grade - 1) / 2^max_grade;
-- ERR = sum over positions q of (1 / q) R_q prod_{i < q} (1 - R_i). Not normalised (gdeval's
-- err@k, ir_measures ERR@k, which fix max_grade = 4, the TREC Web track's scale). Unjudged rows
-- and grade 0 stop no one; a grade above max_grade or below 0 is an error.
--   ties  'average': the exact expected value over every order of tied rows (each tie group in a
--         uniformly random order, a group straddling k included). Where no tie group before the
--         cut holds a row of non-zero grade with another row, the order changes nothing and the
--         value is the plain sum, computed as for 'key'. Otherwise ERR = sum_q (S_{q-1} - S_q) / q,
--         S_q the product of 1 - R over the first q rows, and the expected S at a tie group's
--         slot j is the product over the groups before it times the mean product over a random
--         j-subset of the group (elementary symmetric polynomials, a recurrence over its rows of
--         non-zero grade that starts from its grade-0 rows at once, _ndcg_expected_err). Slots
--         where the expected survival is provably below e^-42 are dropped: the result is below
--         the exact value by less than 2^-60 relative (5.8e-19 absolute), under the rounding of
--         a double, and so are the tie groups after a survival below e^-42. Rows of one grade
--         in a group are added together when they outnumber the u <= 42 / d slots kept (d the
--         group's mean stop probability): O(u min(c, u)) per grade and tie group with c rows of
--         that grade, linear in the rows (one tie group of 100,000 rows of grades 0-3 at full
--         depth: 0.3 s CPU; adding one row at a time 3.7 s, keeping every slot over 200 s).
--         'key': equal rnk broken by tie_key descending (trec_eval's order).
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
        -- [x] with lambda r binds the aggregates outside the lambda bodies, as in dcg
        list_transform(
            [{grades: _ndcg_top_grades(TRY_CAST(rel AS DOUBLE), TRY_CAST(rnk AS DOUBLE),
                                       _ndcg_read_depth(k), ties, tie_key),
              m: least(_ndcg_checked_k(k), count(rnk)),
              -- the tie groups' side, for ties 'average' only (a constant CASE drops it for 'key'):
              -- the rank keys as dcg reads them and the rows of non-zero grade
              keys: _ndcg_top_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), ties),
              stops: CASE WHEN ties = 'average' THEN
                         list({r: TRY_CAST(rnk AS DOUBLE),
                               t: 1.0 - (pow(2.0, TRY_CAST(rel AS DOUBLE)) - 1.0)
                                        / pow(2.0, max_grade)})
                             FILTER (WHERE rnk IS NOT NULL AND TRY_CAST(rel AS DOUBLE) > 0)
                     END,
              all_keys: CASE WHEN ties = 'average' THEN
                            _ndcg_tie_keys(TRY_CAST(rnk AS DOUBLE), _ndcg_read_depth(k), ties)
                        END}],
            lambda r: CASE
                WHEN ties = 'key' THEN _ndcg_err_in_order(_ndcg_head(r.grades, r.m), max_grade)
                ELSE list_transform(
                    [_ndcg_tie_groups(
                        r.keys, list_transform(r.stops, lambda x: x.r), r.m,
                        len(list_filter(coalesce(r.all_keys, r.keys), lambda x: x = r.keys[r.m])))],
                    lambda groups: CASE
                        -- a tie group before the cut holding a row that may stop the user and
                        -- another row: the expectation over its orders
                        WHEN coalesce(list_bool_or(list_transform(groups,
                                                                  lambda g: g.c > 0 AND g.n > 1)),
                                      false) THEN _ndcg_expected_err(groups, r.stops, r.m)
                        ELSE _ndcg_err_in_order(_ndcg_head(r.grades, r.m), max_grade)
                    END)[1]
            END)[1]
END;
