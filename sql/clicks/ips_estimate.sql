-- ips_estimate(logs_tbl, policy_tbl, estimator := 'ips', clip := NULL, item_col := 'item_id',
--              position_col := 'position', click_col := 'click',
--              propensity_col := 'propensity_score', probability_col := 'probability',
--              query_col := NULL, ci := 'none', conf := 0.95, resamples := 2000,
--              seed := 42)
--   -> TABLE(position, rows BIGINT, covered BIGINT, logged_ctr DOUBLE, estimate DOUBLE,
--            ci_low DOUBLE, ci_high DOUBLE, relative DOUBLE, ess DOUBLE, max_weight DOUBLE,
--            warning VARCHAR)
-- Off-policy (counterfactual) estimate of the click rate a new policy would get, from a log of
-- the old one: one row per position, then the overall row (position NULL).
--   logs_tbl    one row per logged impression: the item shown, its position, the click (true/1,
--               false/0) and the logging policy's probability of showing that item there
--               (propensity_col, in (0, 1]).
--   policy_tbl  the new policy: probability_col, its probability of showing item_col at
--               position_col (the same column names as the log; a pair it lacks has 0; a
--               deterministic ranking is probability 1 at its positions); per position the
--               probabilities sum to at most 1.
--   query_col   NULL: the policy is the same for every logged row (obp's context-free policies);
--               a column name: both tables have it, the policy is per query (its probabilities
--               sum to at most 1 per query and position) and a row is matched on it too.
--   estimator   each logged row weighs w = new probability / propensity:
--               'ips': Σ click × w / rows; 'snips': Σ click × w / Σ w (self-normalised);
--               'clipped': Σ click × min(w, clip) / rows. As obp 0.5.7's
--               InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting and
--               InverseProbabilityWeighting(lambda_ := clip).
--   clip        the largest weight of 'clipped' (a number > 0; needed there, unused otherwise).
--   ci          'none' (ci_low, ci_high NULL) or 'bootstrap': the percentile bootstrap interval
--               of the project's bootstrap_ci (conf, resamples, seed as there: the same seed
--               gives the same interval) over the rows' terms click × w: the estimate of
--               'ips' and 'clipped' is their mean; 'snips' divides the interval by the mean
--               weight of the whole log (or position), not re-estimated per resample, as obp's
--               estimate_interval does. Cost: resamples × rows hash draws, twice (per position
--               and overall); 2000 resamples of 10,000 rows take seconds.
-- Output: rows logged; covered, the rows the new policy could have shown (w > 0); logged_ctr,
-- the log's click rate; estimate; relative = estimate / logged_ctr; ess, the effective sample
-- size (Σ w)² / Σ w² of the weights used; max_weight; warning, when ess is below 1 % of rows
-- (the estimate rests on a few rows) or nothing is covered.
-- Example: SELECT * FROM ips_estimate('obd_random', 'bts_policy', estimator := 'snips');
CREATE OR REPLACE MACRO ips_estimate(logs_tbl, policy_tbl, estimator := 'ips', clip := NULL,
                                     item_col := 'item_id', position_col := 'position',
                                     click_col := 'click', propensity_col := 'propensity_score',
                                     probability_col := 'probability',
                                     query_col := NULL, ci := 'none', conf := 0.95,
                                     resamples := 2000, seed := 42) AS TABLE
WITH _ndcg_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = coalesce(query_col, item_col)) AS _key,
           COLUMNS(lambda c: c = item_col) AS _d,
           COLUMNS(lambda c: c = position_col) AS _p,
           COLUMNS(lambda c: c = click_col)::VARCHAR AS _flag,
           TRY_CAST(COLUMNS(lambda c: c = propensity_col) AS DOUBLE) AS _pscore
    FROM query_table(logs_tbl)
),
_ndcg_logged AS NOT MATERIALIZED (
    SELECT CASE WHEN query_col IS NOT NULL THEN _key END AS _q, _d, _p, _pscore,
           CASE WHEN _flag IN ('1', 'true', '1.0') THEN 1
                WHEN _flag IN ('0', 'false', '0.0') THEN 0 END AS _click
    FROM _ndcg_read
),
_ndcg_policy_read AS NOT MATERIALIZED (
    SELECT COLUMNS(lambda c: c = coalesce(query_col, item_col)) AS _key,
           COLUMNS(lambda c: c = item_col) AS _d,
           COLUMNS(lambda c: c = position_col) AS _p,
           TRY_CAST(COLUMNS(lambda c: c = probability_col) AS DOUBLE) AS _prob
    FROM query_table(policy_tbl)
),
_ndcg_policy AS NOT MATERIALIZED (
    SELECT CASE WHEN query_col IS NOT NULL THEN _key END AS _q, _d, _p, _prob
    FROM _ndcg_policy_read
),
_ndcg_policy_checks AS (
    SELECT count(*) FILTER (WHERE _prob IS NULL OR _prob < 0 OR _prob > 1 OR isnan(_prob))
               AS _bad_prob,
           count(*) - count(DISTINCT (_q, _d, _p)) AS _doubled,
           (SELECT min(_p) FROM (SELECT _p FROM _ndcg_policy GROUP BY _q, _p
                                 HAVING sum(_prob) > 1 + 1e-9)) AS _over_one
    FROM _ndcg_policy
),
_ndcg_weighted AS (
    SELECT l._p, l._click, l._pscore,
           coalesce(pol._prob, 0) / l._pscore AS _w
    FROM _ndcg_logged AS l
    LEFT JOIN _ndcg_policy AS pol
           ON pol._d = l._d AND pol._p = l._p AND pol._q IS NOT DISTINCT FROM l._q
),
_ndcg_used AS (
    SELECT _p, _click, _w,
           CASE WHEN estimator = 'clipped' THEN least(_w, clip::DOUBLE) ELSE _w END AS _u
    FROM _ndcg_weighted
),
_ndcg_log_checks AS (
    SELECT count(*) FILTER (WHERE _pscore IS NULL OR NOT (_pscore > 0 AND _pscore <= 1))
               AS _bad_pscore,
           count(*) FILTER (WHERE _click IS NULL) AS _bad_click,
           count(*) FILTER (WHERE _p IS NULL) AS _null_p
    FROM _ndcg_weighted
),
_ndcg_sums AS (
    SELECT _p, count(*) AS _rows, count(*) FILTER (WHERE _w > 0) AS _covered,
           avg(_click) AS _ctr, sum(_click * _u) AS _sum_rw, sum(_u) AS _sum_w,
           sum(_u * _u) AS _sum_w2, max(_u) AS _max_w,
           -- NULL terms (ci 'none') leave bootstrap_ci nothing to draw: NULL bounds
           bootstrap_ci(CASE WHEN ci = 'bootstrap' AND isfinite(_click * _u)
                             THEN _click * _u END,
                        0, conf := conf, resamples := resamples, seed := seed) AS _ci
    FROM _ndcg_used
    GROUP BY GROUPING SETS ((_p), ())
),
_ndcg_names AS (
    SELECT _ndcg_table_name(logs_tbl) AS _logs_name, _ndcg_table_name(policy_tbl) AS _policy_name
),
_ndcg_valued AS (
    SELECT _p, _rows, _covered, _ctr,
           CASE WHEN estimator = 'snips' THEN _sum_w / _rows ELSE 1 END AS _scale, _ci,
           CASE
               WHEN estimator IS NULL OR estimator NOT IN ('ips', 'snips', 'clipped') THEN
                   error('duckdb_ndcg: estimator must be ''ips'', ''snips'' or ''clipped'', got '
                         || coalesce('''' || estimator || '''', 'NULL'))
               WHEN ci IS NULL OR ci NOT IN ('none', 'bootstrap') THEN
                   error('duckdb_ndcg: ci must be ''none'' or ''bootstrap'', got '
                         || coalesce('''' || ci || '''', 'NULL'))
               WHEN estimator = 'clipped'
                    AND coalesce(NOT (TRY_CAST(clip AS DOUBLE) > 0), true) THEN
                   error('duckdb_ndcg: estimator := ''clipped'' needs clip := <the largest '
                         || 'weight, a number > 0>, got ' || coalesce(clip::VARCHAR, 'NULL'))
               WHEN _null_p > 0 THEN
                   error('duckdb_ndcg: logs table ' || _logs_name || ' has NULL in '
                         || position_col)
               WHEN _bad_pscore > 0 THEN
                   error('duckdb_ndcg: ' || propensity_col || ' of logs table ' || _logs_name
                         || ' must be a probability in (0, 1] (' || _bad_pscore
                         || ' rows are NULL, 0 or above 1)')
               WHEN _bad_click > 0 THEN
                   error('duckdb_ndcg: ' || click_col || ' of logs table ' || _logs_name
                         || ' must be true/false or 1/0 (' || _bad_click || ' rows are not)')
               WHEN _bad_prob > 0 THEN
                   error('duckdb_ndcg: ' || probability_col || ' of policy table '
                         || _policy_name || ' must be a probability in [0, 1] (' || _bad_prob
                         || ' rows are not)')
               WHEN _doubled > 0 THEN
                   error('duckdb_ndcg: policy table ' || _policy_name || ' lists '
                         || _doubled || ' (' || coalesce(query_col || ', ', '') || item_col
                         || ', ' || position_col || ') more than once')
               WHEN _over_one IS NOT NULL THEN
                   error('duckdb_ndcg: the probabilities of policy table ' || _policy_name
                         || ' at ' || position_col || ' ' || _over_one || ' sum to more than 1'
                         || CASE WHEN query_col IS NULL THEN ' (a policy per query takes '
                                 || 'query_col := <its column>)' ELSE ' for a ' || query_col
                                 END)
               ELSE true
           END AS _checked,  -- every number below reads it, so no projection skips a check
           CASE WHEN estimator = 'snips' THEN _sum_rw / nullif(_sum_w, 0)
                ELSE _sum_rw / _rows END AS _value,
           _sum_w * _sum_w / nullif(_sum_w2, 0) AS _ess, _max_w
    FROM _ndcg_sums, _ndcg_log_checks, _ndcg_policy_checks, _ndcg_names
),
_ndcg_estimated AS (
    SELECT *, CASE WHEN _checked THEN _value END AS _estimate,
           CASE WHEN _checked THEN _ci.ci_low / nullif(_scale, 0) END AS _low,
           CASE WHEN _checked THEN _ci.ci_high / nullif(_scale, 0) END AS _high
    FROM _ndcg_valued
)
SELECT _p AS position, _rows AS rows, _covered AS covered, _ctr AS logged_ctr,
       _estimate AS estimate, _low AS ci_low, _high AS ci_high,
       _estimate / nullif(_ctr, 0) AS relative,
       coalesce(_ess, 0) AS ess, _max_w AS max_weight,
       CASE
           WHEN _covered = 0 THEN 'the new policy covers none of the ' || _rows || ' logged rows'
           WHEN _ess < 0.01 * _rows THEN
               'effective sample size ' || round(_ess, 1) || ' is below 1 % of the ' || _rows
               || ' logged rows: the estimate rests on a few rows'
       END AS warning
FROM _ndcg_estimated
ORDER BY position NULLS LAST;
