-- The graded cascade metrics as aggregates: ERR and RBP with its residual.

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
--         that grade, linear in the rows (timings: benchmarks/results/design_timings.md).
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
        -- the ranking of the rows' stop probabilities R (0 for unjudged and grade-0 rows)
        list_transform(
            [_ndcg_ranking(CASE WHEN TRY_CAST(rel AS DOUBLE) > 0
                                THEN (pow(2.0, TRY_CAST(rel AS DOUBLE)) - 1.0) / pow(2.0, max_grade)
                                ELSE 0.0 END,
                           TRY_CAST(rnk AS DOUBLE), k, ties, tie_key)],
            -- its tie groups bound once, for ties 'average'
            lambda rk: list_transform([{m: rk.m, in_order: list_slice(rk.in_order, 1, rk.m),
                                        rows: rk.rows, keys: rk.keys,
                                        groups: CASE WHEN ties = 'average'
                                                     THEN _ndcg_tie_groups(rk) END}],
            lambda r: CASE
                -- a tie group before the cut holding a row that may stop the user and another
                -- row: the expectation over its orders; otherwise the order is known
                WHEN ties = 'average'
                     AND coalesce(list_bool_or(list_transform(
                             r.groups, lambda g: g.marked > 0 AND g.size > 1)), false) THEN
                    _ndcg_expected_err(
                        r.groups,
                        list_transform(list_filter(r.rows, lambda x: x.r IS NOT NULL),
                                       lambda x: {r: x.r, t: 1.0 - x.g}),
                        r.m)
                -- every row that may stop the user is alone in its tie group (or ties 'key'):
                -- the known order, as (position, R) of those rows
                WHEN ties = 'average' THEN
                    list_transform([list_sort(list_filter(r.rows, lambda x: x.r <= r.keys[r.m]))],
                        -- a group's stop row is the (a + 1)th stop row before the cut by key
                        lambda ts: _ndcg_err_in_order(list_transform(
                            list_filter(r.groups, lambda g: g.marked > 0),
                            lambda g: {q: g.start, r: ts[g.before + 1].g})))[1]
                ELSE _ndcg_err_in_order(list_filter(
                    list_transform(r.in_order, lambda x, q: {q: q, r: x}), lambda x: x.r > 0))
            END)[1])[1]
END;

-- rbp(rel, rnk, p := 0.8, k := NULL, threshold := 1, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- Rank-biased precision (Moffat & Zobel): (1 - p) * sum of p^(q - 1) over the positions q of the
-- relevant rows (rel >= threshold, binary) among the first k returned (k NULL: all of them);
-- ir_measures RBP(p=, rel=threshold), ranx rbp on binary judgments (ranx weighs by the grade).
-- Unjudged rows count as not relevant; the weight they and the positions after the ranking could
-- still add is rbp_residual(...) (a separate aggregate, so rbp stays a plain number to average).
--   p     persistence, in (0, 1).
--   ties  'average': each row of a tie group weighs the mean of its group's weights (the exact
--         expectation over tied orders); 'key': tie_key descending.
-- Example: SELECT avg(r) FROM (SELECT rbp(rel, rnk, p := 0.9) AS r FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO rbp(rel, rnk, p := 0.8, k := NULL, threshold := 1, ties := 'average',
                            tie_key := NULL) AS
_ndcg_rbp(_ndcg_relevant(rel, threshold), rnk, p, k, ties, tie_key);

-- rbp_residual(rel, rnk, p := 0.8, k := NULL, ties := 'average', tie_key := NULL)
--   -> DOUBLE  [aggregate]
-- The residual of rank-biased precision: the most that rbp could still grow if every unjudged
-- row (rel NULL) among the first k returned were relevant, and every position after them too:
-- (1 - p) * sum of p^(q - 1) over the unjudged positions q <= m, plus p^m, m = least(k, returned
-- rows) (Moffat & Zobel; rbp + rbp_residual is the upper bound). Same p, k and ties as rbp.
-- Example: SELECT rbp(rel, rnk), rbp_residual(rel, rnk) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO rbp_residual(rel, rnk, p := 0.8, k := NULL, ties := 'average',
                                     tie_key := NULL) AS
-- p checked here too: with a NULL p the sum below is folded to NULL before _ndcg_rbp could object
CASE WHEN _ndcg_p_error(p) IS NULL THEN
    _ndcg_rbp(CASE WHEN rel IS NULL THEN 1 ELSE 0 END, rnk, p, k, ties, tie_key)
    + pow(p::DOUBLE, least(_ndcg_checked_k(k), count(rnk)))
END;
