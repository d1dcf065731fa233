-- slate_estimate(logs_tbl, estimator := 'sips', slate_col := 'slate_id',
--                position_col := 'position', reward_col := 'click',
--                propensity_col := 'propensity_score', evaluation_col := 'evaluation_propensity',
--                ci := 'none', conf := 0.95, resamples := 2000, seed := 42)
--   -> TABLE(position, slates BIGINT, rows BIGINT, covered BIGINT, logged_reward DOUBLE,
--            estimate DOUBLE, ci_low DOUBLE, ci_high DOUBLE, relative DOUBLE, ess DOUBLE,
--            max_weight DOUBLE, warning VARCHAR)
-- Off-policy estimate of the reward per slate (a ranked list shown at once) a new ranking policy
-- would get, from a slate log of the old one: one row per position, then all positions
-- (position NULL). McInerney et al. 2020, "Counterfactual Evaluation of Slate Recommendations
-- with Sequential Reward Interactions", Eq. (1)-(4); obp 0.5.7's slate estimators.
--   logs_tbl        one row per (slate, position) shown: the slate, the position, its reward
--                   (a number; a click 1/0) and two probabilities of what the estimator weighs,
--                   propensity_col of the logging policy (in (0, 1]) and evaluation_col of the
--                   new policy (in [0, 1]):
--                     'sips', 'snsips'  of the whole slate (the same on each of its rows);
--                     'iips', 'sniips'  of the item at that position (its marginal);
--                     'rips', 'snrips'  of the slate from the top down to that position (its
--                                       prefix: non-increasing down a slate).
--                   A deterministic new ranking has evaluation probability 1 when it would have
--                   shown the same (slate / item / prefix), else 0.
--   estimator       each row weighs w = evaluation / propensity. 'sips', 'iips', 'rips':
--                   Σ reward × w / slates; 'snsips': Σ reward × w / mean(w of all rows) / slates;
--                   'sniips', 'snrips': each position's rows normalised by that position's
--                   mean w. As obp's SlateStandardIPS, SlateIndependentIPS,
--                   SlateRewardInteractionIPS and their SelfNormalized* forms.
--   ci              'none' (ci_low, ci_high NULL) or 'bootstrap': bootstrap_ci's percentile
--                   interval (conf, resamples, seed as there) over the slates, each slate's
--                   value its sum of reward × w / the normaliser (per position: that position's
--                   term, 0 for a slate without it); the self-normalised forms keep the
--                   normaliser of the whole log, as obp's estimate_interval does. Cost:
--                   resamples × slates hash draws per position and once more overall.
-- Output: slates, the slates logged (every position divides by them, so the positions add up
-- to the overall row); rows; covered, rows with w > 0; logged_reward, Σ reward / slates;
-- estimate; relative = estimate / logged_reward; ess, (Σ w)² / Σ w² over the position's rows
-- (overall: the smallest of the positions'); max_weight; warning when ess is below 1 % of the
-- slates or nothing is covered.
-- Example: SELECT * FROM slate_estimate('slates', estimator := 'rips',
--                 propensity_col := 'pscore_cascade', evaluation_col := 'new_pscore_cascade');
CREATE OR REPLACE MACRO slate_estimate(logs_tbl, estimator := 'sips', slate_col := 'slate_id',
                                       position_col := 'position', reward_col := 'click',
                                       propensity_col := 'propensity_score',
                                       evaluation_col := 'evaluation_propensity',
                                       ci := 'none', conf := 0.95, resamples := 2000,
                                       seed := 42) AS TABLE
WITH _ndcg_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = slate_col) AS _s,
           COLUMNS(lambda c: c = position_col) AS _p,
           TRY_CAST(COLUMNS(lambda c: c = reward_col) AS DOUBLE) AS _r,
           TRY_CAST(COLUMNS(lambda c: c = propensity_col) AS DOUBLE) AS _b,
           TRY_CAST(COLUMNS(lambda c: c = evaluation_col) AS DOUBLE) AS _e
    FROM query_table(logs_tbl)
),
_ndcg_ordered AS (
    SELECT *, _e / _b AS _w,
           lag(_b) OVER (PARTITION BY _s ORDER BY _p) AS _b_above,
           lag(_e) OVER (PARTITION BY _s ORDER BY _p) AS _e_above
    FROM _ndcg_read
),
_ndcg_checks AS (
    SELECT count(*) FILTER (WHERE _s IS NULL OR _p IS NULL) AS _null_key,
           count(*) FILTER (WHERE _r IS NULL OR isnan(_r) OR isinf(_r)) AS _bad_reward,
           count(*) FILTER (WHERE _b IS NULL OR NOT (_b > 0 AND _b <= 1)) AS _bad_b,
           count(*) FILTER (WHERE _e IS NULL OR NOT (_e >= 0 AND _e <= 1)) AS _bad_e,
           count(*) - count(DISTINCT (_s, _p)) AS _doubled,
           count(*) FILTER (WHERE _b > _b_above) AS _b_rises,
           count(*) FILTER (WHERE _e > _e_above) AS _e_rises,
           count(DISTINCT (_s, _b)) - count(DISTINCT _s) AS _b_varies,
           count(DISTINCT (_s, _e)) - count(DISTINCT _s) AS _e_varies,
           count(DISTINCT _s) AS _slates,
           avg(_w) AS _mean_w
    FROM _ndcg_ordered
),
_ndcg_positions AS (
    SELECT _p, count(*) AS _rows, count(*) FILTER (WHERE _w > 0) AS _covered,
           sum(_r) AS _sum_r, sum(_r * _w) AS _sum_rw, avg(_w) AS _mean_w_p,
           sum(_w) AS _sum_w, sum(_w * _w) AS _sum_w2, max(_w) AS _max_w
    FROM _ndcg_ordered
    GROUP BY _p
),
_ndcg_names AS (
    SELECT _ndcg_table_name(logs_tbl) AS _name,
           CASE WHEN estimator IN ('sips', 'snsips') THEN 'of the whole slate'
                WHEN estimator IN ('rips', 'snrips') THEN 'of the slate down to the position'
                ELSE 'of the item at the position' END AS _kind
),
_ndcg_per_position AS (
    SELECT _p, _slates, _rows, _covered, _sum_r / _slates AS _logged, _max_w,
           CASE
               WHEN estimator IS NULL
                    OR estimator NOT IN ('sips', 'iips', 'rips', 'snsips', 'sniips', 'snrips')
                    THEN
                   error('duckdb_ndcg: estimator must be ''sips'', ''iips'', ''rips'', '
                         || '''snsips'', ''sniips'' or ''snrips'', got '
                         || coalesce('''' || estimator || '''', 'NULL'))
               WHEN ci IS NULL OR ci NOT IN ('none', 'bootstrap') THEN
                   error('duckdb_ndcg: ci must be ''none'' or ''bootstrap'', got '
                         || coalesce('''' || ci || '''', 'NULL'))
               WHEN _null_key > 0 THEN
                   error('duckdb_ndcg: logs table ' || _name || ' has NULL in ' || slate_col
                         || ' or ' || position_col || ' (' || _null_key || ' rows)')
               WHEN _doubled > 0 THEN
                   error('duckdb_ndcg: logs table ' || _name || ' lists ' || _doubled || ' ('
                         || slate_col || ', ' || position_col || ') more than once')
               WHEN _bad_reward > 0 THEN
                   error('duckdb_ndcg: ' || reward_col || ' of logs table ' || _name
                         || ' must be a finite number (' || _bad_reward || ' rows are not)')
               WHEN _bad_b > 0 THEN
                   error('duckdb_ndcg: ' || propensity_col || ' of logs table ' || _name
                         || ' must be a probability in (0, 1] (' || _bad_b
                         || ' rows are NULL, 0 or above 1)')
               WHEN _bad_e > 0 THEN
                   error('duckdb_ndcg: ' || evaluation_col || ' of logs table ' || _name
                         || ' must be a probability in [0, 1] (' || _bad_e
                         || ' rows are NULL, below 0 or above 1)')
               WHEN estimator IN ('sips', 'snsips') AND _b_varies + _e_varies > 0 THEN
                   error('duckdb_ndcg: estimator := ''' || estimator || ''' weighs the '
                         || 'probability ' || _kind || ', the same on each of its rows, but '
                         || CASE WHEN _b_varies > 0 THEN propensity_col ELSE evaluation_col END
                         || ' of logs table ' || _name || ' differs within '
                         || greatest(_b_varies, _e_varies) || ' ' || slate_col || ' values')
               WHEN estimator IN ('rips', 'snrips') AND _b_rises + _e_rises > 0 THEN
                   error('duckdb_ndcg: estimator := ''' || estimator || ''' weighs the '
                         || 'probability ' || _kind || ', which cannot grow down a slate, but '
                         || CASE WHEN _b_rises > 0 THEN propensity_col ELSE evaluation_col END
                         || ' of logs table ' || _name || ' grows in '
                         || greatest(_b_rises, _e_rises) || ' rows')
               ELSE true
           END AS _checked,  -- every number below reads it, so no projection skips a check
           _sum_rw / nullif(CASE WHEN estimator = 'snsips' THEN _mean_w
                                 WHEN estimator IN ('sniips', 'snrips') THEN _mean_w_p
                                 ELSE 1 END, 0) / _slates AS _value,
           _sum_w * _sum_w / nullif(_sum_w2, 0) AS _ess
    FROM _ndcg_positions, _ndcg_checks, _ndcg_names
),
-- the interval: each row's term reward × w / the normaliser, a slate's value per position (0
-- where it has none) and overall (its sum); NULL terms (ci 'none') leave bootstrap_ci
-- nothing to draw
_ndcg_terms AS (
    SELECT o._s, o._p,
           -- a bad row (the estimate's error names it) draws nothing
           CASE WHEN ci = 'bootstrap' AND o._b > 0 AND o._b <= 1 AND o._e >= 0
                     AND o._e <= 1 AND isfinite(o._r) THEN
               o._r * o._w / nullif(CASE WHEN estimator = 'snsips' THEN c._mean_w
                                         WHEN estimator IN ('sniips', 'snrips') THEN p._mean_w_p
                                         ELSE 1 END, 0)
           END AS _t
    FROM _ndcg_ordered AS o
    JOIN _ndcg_positions AS p ON p._p = o._p
    CROSS JOIN _ndcg_checks AS c
),
_ndcg_slate_terms AS (
    SELECT s._s, p._p, coalesce(t._t, CASE WHEN ci = 'bootstrap' THEN 0 END) AS _t
    FROM (SELECT DISTINCT _s FROM _ndcg_ordered) AS s
    CROSS JOIN _ndcg_positions AS p
    LEFT JOIN _ndcg_terms AS t ON t._s = s._s AND t._p = p._p
),
_ndcg_intervals AS (
    SELECT _p, bootstrap_ci(_t, 0, conf := conf, resamples := resamples, seed := seed) AS _ci
    FROM _ndcg_slate_terms
    GROUP BY _p
    UNION ALL
    SELECT NULL, bootstrap_ci(_t, 0, conf := conf, resamples := resamples, seed := seed)
    FROM (SELECT _s, sum(_t) AS _t FROM _ndcg_slate_terms GROUP BY _s)
),
_ndcg_estimated AS (
    SELECT _p, _checked, _slates, _rows, _covered, _logged, _value, coalesce(_ess, 0) AS _ess,
           _max_w
    FROM _ndcg_per_position
    UNION ALL
    SELECT NULL, bool_and(_checked), any_value(_slates), sum(_rows), sum(_covered),
           sum(_logged), CASE WHEN count(_value) = count(*) THEN sum(_value) END,
           coalesce(min(_ess), 0), max(_max_w)
    FROM _ndcg_per_position
)
SELECT e._p AS position, _slates AS slates, _rows AS rows, _covered AS covered,
       _logged AS logged_reward, _estimate AS estimate,
       CASE WHEN _checked AND _estimate IS NOT NULL THEN i._ci.ci_low END AS ci_low,
       CASE WHEN _checked AND _estimate IS NOT NULL THEN i._ci.ci_high END AS ci_high,
       _estimate / nullif(_logged, 0) AS relative, _ess AS ess, _max_w AS max_weight,
       CASE
           WHEN _covered = 0 THEN
               'the new policy covers none of the ' || _rows || ' logged rows'
           WHEN _ess < 0.01 * _slates THEN
               'effective sample size ' || round(_ess, 1) || ' is below 1 % of the ' || _slates
               || ' logged slates: the estimate rests on a few slates'
       END AS warning
FROM (SELECT *, CASE WHEN _checked THEN _value END AS _estimate FROM _ndcg_estimated) AS e
LEFT JOIN _ndcg_intervals AS i ON i._p IS NOT DISTINCT FROM e._p
ORDER BY position NULLS LAST;
