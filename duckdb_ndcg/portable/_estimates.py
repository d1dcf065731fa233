"""`ips_estimate_to_sql`, `slate_estimate_to_sql`, `ips_ndcg_to_sql`: the counterfactual estimates
of the ``ips_estimate``, ``slate_estimate`` and ``ips_ndcg`` macros (sql/clicks/) as one statement
for another engine, with the macros' numbers, warnings and checks.

As in _clicks.py, each statement is written once here in DuckDB's dialect with placeholder names,
parsed by sqlglot (our text only), and every placeholder replaced by a node: the user's columns
and tables as quoted identifiers, numbers as literals, each check as the dialect's raiser. What
differs from the macros' text, for the engines: no FILTER, GROUPING SETS, IS NOT DISTINCT FROM or
count(DISTINCT (a, b)) (grouped sums and UNION ALL instead); a LEFT JOIN's match is read from a
marker column (ClickHouse fills an unmatched row with 0, not NULL); LAG is read only past a
slate's first row (ClickHouse's LAG gives 0 there); a division by a value that may be 0 goes
through NULLIF (PostgreSQL raises); log2(x) is LN(x) / LN(2) (PostgreSQL's two-argument LOG is
numeric). An error's message is the macro's, with the offending count or position (on
ClickHouse, whose throwIf takes a constant text, N in its place). Not written:
``ci := 'bootstrap'``, whose resamples are drawn from DuckDB's hash().
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from numbers import Real

import sqlglot
from sqlglot import exp

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.portable import _dialects
from duckdb_ndcg.portable._metrics import check_functions, table_expression
from duckdb_ndcg.portable._sql import cast, col, number, string

_BOOTSTRAP = ("ci := 'bootstrap' has no portable SQL (its resamples are drawn from DuckDB's "
              "hash(), which no other engine computes): use the DuckDB macro, or ci := 'none'")

# the text of a whole number as the macros print it (3, not 3.0), else the number
_WHOLE = ("CASE WHEN {x} = FLOOR({x}) THEN CAST(CAST({x} AS BIGINT) AS TEXT) "
          "ELSE CAST({x} AS TEXT) END")
# the macros' round(ess, 1) as text, half up: the tenths, then '.', then the last digit
_ESS_TEXT = ("CAST(CAST(FLOOR(CAST(_ess10 AS DOUBLE) / 10) AS BIGINT) AS TEXT) || '.' || "
             "CAST(CAST(_ess10 - 10 * FLOOR(CAST(_ess10 AS DOUBLE) / 10) AS BIGINT) AS TEXT)")
_ESS10 = "CAST(FLOOR(_ess * 10 + 0.5) AS BIGINT) AS _ess10"


def _check(checks: Sequence[tuple[str, str, str]], sources: str) -> str:
    """The one-row CTE whose ``_ok`` is 1, or the first failing check's engine error: each check
    (condition, message key, the detail shown in the message) over the counts of ``sources``."""
    whens = " ".join(f"WHEN {cond} THEN _ndcg_raise({cond}, '{key}', {detail})"
                     for cond, key, detail in checks)
    return f"_ndcg_check AS (SELECT CASE {whens} ELSE 1 END AS _ok FROM {sources})"


# --- ips_estimate -------------------------------------------------------------------------------

_IPS = """
WITH _ndcg_logged AS (
    SELECT __lq AS _q, __d AS _d, __p AS _p, CAST(__ps AS DOUBLE) AS _pscore,
           CASE WHEN __c = 1 THEN 1 WHEN __c = 0 THEN 0 END AS _click
    FROM __logs
),
_ndcg_policy AS (
    SELECT __pq AS _q, __d AS _d, __p AS _p, CAST(__prob AS DOUBLE) AS _prob, 1 AS _hit
    FROM __policy
),
_ndcg_used AS (
    SELECT _p, _click, _w, {used} AS _u
    FROM (SELECT l._p AS _p, l._click AS _click,
                 CASE WHEN pol._hit = 1 THEN pol._prob ELSE 0 END / NULLIF(l._pscore, 0) AS _w
          FROM _ndcg_logged AS l
          LEFT JOIN _ndcg_policy AS pol ON pol._d = l._d AND pol._p = l._p{query_join}) AS w
),
_ndcg_log_counts AS (
    SELECT SUM(CASE WHEN _p IS NULL THEN 1 ELSE 0 END) AS _null_p,
           SUM(CASE WHEN _pscore > 0 AND _pscore <= 1 THEN 0 ELSE 1 END) AS _bad_pscore,
           SUM(CASE WHEN _click IS NULL THEN 1 ELSE 0 END) AS _bad_click,
           SUM(CASE WHEN _q IS NULL THEN 1 ELSE 0 END) AS _null_q
    FROM _ndcg_logged
),
_ndcg_policy_counts AS (
    SELECT SUM(CASE WHEN _prob >= 0 AND _prob <= 1 THEN 0 ELSE 1 END) AS _bad_prob,
           SUM(CASE WHEN _q IS NULL THEN 1 ELSE 0 END) AS _policy_null_q
    FROM _ndcg_policy
),
_ndcg_doubled AS (
    SELECT SUM(_n - 1) AS _doubled
    FROM (SELECT COUNT(*) AS _n FROM _ndcg_policy GROUP BY _q, _d, _p) AS g
),
_ndcg_over AS (
    SELECT MIN(_p) AS _over_one
    FROM (SELECT _p FROM _ndcg_policy GROUP BY _q, _p HAVING SUM(_prob) > 1 + 1e-9) AS g
),
{check},
_ndcg_sums AS (
    SELECT _p, 0 AS _all, COUNT(*) AS _rows, SUM(CASE WHEN _w > 0 THEN 1 ELSE 0 END) AS _covered,
           AVG(CAST(_click AS DOUBLE)) AS _ctr, SUM(_click * _u) AS _sum_rw, SUM(_u) AS _sum_w,
           SUM(_u * _u) AS _sum_w2, MAX(_u) AS _max_w
    FROM _ndcg_used GROUP BY _p
    UNION ALL
    SELECT NULL, 1, COUNT(*), COALESCE(SUM(CASE WHEN _w > 0 THEN 1 ELSE 0 END), 0),
           AVG(CAST(_click AS DOUBLE)),
           SUM(_click * _u), SUM(_u), SUM(_u * _u), MAX(_u)
    FROM _ndcg_used
),
_ndcg_valued AS (
    SELECT s._p AS _p, s._all AS _all, s._rows AS _rows, s._covered AS _covered,
           s._ctr AS _ctr, s._max_w AS _max_w,
           CASE WHEN c._ok = 1 THEN {estimate} END AS _estimate,
           COALESCE(s._sum_w * s._sum_w / NULLIF(s._sum_w2, 0), 0) AS _ess
    FROM _ndcg_sums AS s CROSS JOIN _ndcg_check AS c
)
SELECT _p AS "position", CAST(_rows AS BIGINT) AS "rows", CAST(_covered AS BIGINT) AS "covered",
       _ctr AS "logged_ctr", _estimate AS "estimate", CAST(NULL AS DOUBLE) AS "ci_low",
       CAST(NULL AS DOUBLE) AS "ci_high", _estimate / NULLIF(_ctr, 0) AS "relative",
       _ess AS "ess", _max_w AS "max_weight",
       CASE WHEN _covered = 0 THEN 'the new policy covers none of the '
                                   || CAST(_rows AS TEXT) || ' logged rows'
            WHEN _ess < 0.01 * _rows THEN 'effective sample size ' || {ess_text}
                 || ' is below 1 % of the ' || CAST(_rows AS TEXT)
                 || ' logged rows: the estimate rests on a few rows'
       END AS "warning"
FROM (SELECT *, {ess10} FROM _ndcg_valued) AS v
ORDER BY _all, _p
"""
_IPS_CHECKS = [
    ("_null_p > 0", "null_position", "_null_p"),
    ("_bad_pscore > 0", "propensity", "_bad_pscore"),
    ("_bad_click > 0", "click", "_bad_click"),
    ("_bad_prob > 0", "probability", "_bad_prob"),
    ("_doubled > 0", "doubled", "_doubled"),
    ("_over_one IS NOT NULL", "over_one", _WHOLE.format(x="_over_one")),
]
_IPS_ESTIMATES = {
    "ips": "s._sum_rw / NULLIF(s._rows, 0)",
    "snips": "s._sum_rw / NULLIF(s._sum_w, 0)",
    "clipped": "s._sum_rw / NULLIF(s._rows, 0)",
}


def ips_estimate_to_sql(
    dialect: str,
    *,
    logs: str | Sequence[str],
    policy: str | Sequence[str],
    estimator: str = "ips",
    clip: Real | None = None,
    item_col: str = "item_id",
    position_col: str = "position",
    click_col: str = "click",
    propensity_col: str = "propensity_score",
    probability_col: str = "probability",
    query_col: str | None = None,
    ci: str = "none",
    pretty: bool = False,
) -> str:
    """One SQL statement for ``dialect`` computing ``ips_estimate(logs, policy, ...)``: per
    position, then all rows (position NULL), ``position, rows, covered, logged_ctr, estimate,
    ci_low, ci_high, relative, ess, max_weight, warning``, with the macro's estimators ('ips',
    'snips', 'clipped' with ``clip``), ``query_col`` and checks (each an engine error). The click
    is read as a number 1/0. ``ci`` 'none' only (ci_low, ci_high NULL): the bootstrap draws from
    DuckDB's hash().

    Example::

        print(ips_estimate_to_sql("bigquery", logs="obd_random", policy="bts_policy",
                                  estimator="snips"))
    """
    dialect = _dialects.normalize(dialect)
    _choice("ips_estimate", "estimator", estimator)
    _ci(ci)
    if estimator == "clipped" and not (
        isinstance(clip, Real) and not isinstance(clip, bool) and math.isfinite(clip) and clip > 0
    ):
        raise ValueError("estimator := 'clipped' needs clip := <the largest weight, a number > 0>, "
                         f"got {clip!r}")
    _names(item_col=item_col, position_col=position_col, click_col=click_col,
           propensity_col=propensity_col, probability_col=probability_col)
    if query_col is not None:
        _names(query_col=query_col)
    tables = {"__logs": table_expression(logs), "__policy": table_expression(policy)}
    logs_name, policy_name = (_shown(t) for t in tables.values())
    key = f"{query_col}, " if query_col else ""
    messages = {
        "null_position": (f"duckdb_ndcg: logs table {logs_name} has NULL in {position_col} (",
                          " rows)"),
        "propensity": ((f"duckdb_ndcg: {propensity_col} of logs table {logs_name} must be a "
                       "probability in (0, 1] ("), " rows are NULL, 0 or above 1)"),
        "click": (f"duckdb_ndcg: {click_col} of logs table {logs_name} must be 1 or 0 (",
                  " rows are not)"),
        "probability": ((f"duckdb_ndcg: {probability_col} of policy table {policy_name} must be "
                        "a probability in [0, 1] ("), " rows are not)"),
        "doubled": (f"duckdb_ndcg: policy table {policy_name} lists ",
                    f" ({key}{item_col}, {position_col}) more than once"),
        "over_one": ((f"duckdb_ndcg: the probabilities of policy table {policy_name} at "
                     f"{position_col} "), " sum to more than 1" + (
                         f" for a {query_col}" if query_col else
                         " (a policy per query takes query_col := <its column>)")),
    }
    checks = list(_IPS_CHECKS)
    if query_col:  # a NULL query matches no policy row here (the macro matches NULL to NULL)
        checks[1:1] = [("_null_q > 0", "null_query", "_null_q"),
                       ("_policy_null_q > 0", "null_policy_query", "_policy_null_q")]
        messages["null_query"] = ((f"duckdb_ndcg: logs table {logs_name} has NULL in {query_col} "
                                  "("), " rows)")
        messages["null_policy_query"] = ((f"duckdb_ndcg: policy table {policy_name} has NULL in "
                                         f"{query_col} ("), " rows)")
    text = _IPS.format(
        used="LEAST(_w, __clip)" if estimator == "clipped" else "_w",
        query_join=" AND pol._q = l._q" if query_col else "",
        check=_check(checks, "_ndcg_log_counts CROSS JOIN _ndcg_policy_counts "
                     "CROSS JOIN _ndcg_doubled CROSS JOIN _ndcg_over"),
        estimate=_IPS_ESTIMATES[estimator], ess_text=_ESS_TEXT, ess10=_ESS10,
    )
    query = col(query_col) if query_col else cast(exp.null(), "TEXT")
    columns = {"__d": item_col, "__p": position_col, "__c": click_col, "__ps": propensity_col,
               "__prob": probability_col}
    nodes = {"__lq": query, "__pq": query}
    if estimator == "clipped":
        nodes["__clip"] = cast(number(clip), "DOUBLE")
    return _render(dialect, text, columns, nodes, tables, messages, pretty)


# --- slate_estimate -----------------------------------------------------------------------------

_SLATE = """
WITH _ndcg_read AS (
    SELECT __s AS _s, __p AS _p, CAST(__r AS DOUBLE) AS _r, CAST(__b AS DOUBLE) AS _b,
           CAST(__e AS DOUBLE) AS _e
    FROM __logs
),
_ndcg_ordered AS (
    SELECT _s, _p, _r, _b, _e, _e / NULLIF(_b, 0) AS _w,
           ROW_NUMBER() OVER (PARTITION BY _s ORDER BY _p) AS _row,
           LAG(_b) OVER (PARTITION BY _s ORDER BY _p) AS _b_above,
           LAG(_e) OVER (PARTITION BY _s ORDER BY _p) AS _e_above
    FROM _ndcg_read
),
_ndcg_counts AS (
    SELECT SUM(CASE WHEN _s IS NULL OR _p IS NULL THEN 1 ELSE 0 END) AS _null_key,
           SUM(CASE WHEN _r - _r = 0 THEN 0 ELSE 1 END) AS _bad_reward,
           SUM(CASE WHEN _b > 0 AND _b <= 1 THEN 0 ELSE 1 END) AS _bad_b,
           SUM(CASE WHEN _e >= 0 AND _e <= 1 THEN 0 ELSE 1 END) AS _bad_e,
           SUM(CASE WHEN _row > 1 AND _b > _b_above THEN 1 ELSE 0 END) AS _b_rises,
           SUM(CASE WHEN _row > 1 AND _e > _e_above THEN 1 ELSE 0 END) AS _e_rises,
           COUNT(DISTINCT _s) AS _slates, AVG(_w) AS _mean_w
    FROM _ndcg_ordered
),
_ndcg_doubled AS (
    SELECT SUM(_n - 1) AS _doubled
    FROM (SELECT COUNT(*) AS _n FROM _ndcg_read GROUP BY _s, _p) AS g
),
_ndcg_varies AS (
    SELECT SUM(CASE WHEN _nb > 1 THEN 1 ELSE 0 END) AS _b_varies,
           SUM(CASE WHEN _ne > 1 THEN 1 ELSE 0 END) AS _e_varies
    FROM (SELECT COUNT(DISTINCT _b) AS _nb, COUNT(DISTINCT _e) AS _ne
          FROM _ndcg_read GROUP BY _s) AS g
),
{check},
_ndcg_positions AS (
    SELECT _p, COUNT(*) AS _rows, SUM(CASE WHEN _w > 0 THEN 1 ELSE 0 END) AS _covered,
           SUM(_r) AS _sum_r, SUM(_r * _w) AS _sum_rw, AVG(_w) AS _mean_w_p,
           SUM(_w) AS _sum_w, SUM(_w * _w) AS _sum_w2, MAX(_w) AS _max_w
    FROM _ndcg_ordered GROUP BY _p
),
_ndcg_per_position AS (
    SELECT p._p AS _p, c._slates AS _slates, p._rows AS _rows, p._covered AS _covered,
           p._sum_r / NULLIF(c._slates, 0) AS _logged, p._max_w AS _max_w, p._sum_rw / NULLIF({normaliser}, 0) / NULLIF(c._slates, 0) AS _value,
           COALESCE(p._sum_w * p._sum_w / NULLIF(p._sum_w2, 0), 0) AS _ess
    FROM _ndcg_positions AS p CROSS JOIN _ndcg_counts AS c
),
_ndcg_estimated AS (
    SELECT _p, 0 AS _all, _slates, _rows, _covered, _logged, _value, _ess, _max_w
    FROM _ndcg_per_position
    UNION ALL
    SELECT NULL, 1, MAX(_slates), SUM(_rows), SUM(_covered), SUM(_logged),
           CASE WHEN COUNT(_value) = COUNT(*) THEN SUM(_value) END, COALESCE(MIN(_ess), 0),
           MAX(_max_w)
    FROM _ndcg_per_position
),
_ndcg_valued AS (
    SELECT e._p AS _p, e._all AS _all, e._slates AS _slates, e._rows AS _rows,
           e._covered AS _covered, e._logged AS _logged, e._ess AS _ess, e._max_w AS _max_w,
           CASE WHEN k._ok = 1 THEN e._value END AS _estimate
    FROM _ndcg_estimated AS e CROSS JOIN _ndcg_check AS k
)
SELECT _p AS "position", CAST(_slates AS BIGINT) AS "slates", CAST(_rows AS BIGINT) AS "rows",
       CAST(_covered AS BIGINT) AS "covered", _logged AS "logged_reward",
       _estimate AS "estimate", CAST(NULL AS DOUBLE) AS "ci_low",
       CAST(NULL AS DOUBLE) AS "ci_high", _estimate / NULLIF(_logged, 0) AS "relative",
       _ess AS "ess", _max_w AS "max_weight",
       CASE WHEN _covered = 0 THEN 'the new policy covers none of the '
                                   || CAST(_rows AS TEXT) || ' logged rows'
            WHEN _ess < 0.01 * _slates THEN 'effective sample size ' || {ess_text}
                 || ' is below 1 % of the ' || CAST(_slates AS TEXT)
                 || ' logged slates: the estimate rests on a few slates'
       END AS "warning"
FROM (SELECT *, {ess10} FROM _ndcg_valued) AS v
ORDER BY _all, _p
"""
_SLATE_NORMALISERS = {"sips": "1", "iips": "1", "rips": "1", "snsips": "c._mean_w",
                      "sniips": "p._mean_w_p", "snrips": "p._mean_w_p"}
_SLATE_KINDS = {"sips": "of the whole slate", "snsips": "of the whole slate",
                "rips": "of the slate down to the position",
                "snrips": "of the slate down to the position",
                "iips": "of the item at the position", "sniips": "of the item at the position"}


def slate_estimate_to_sql(
    dialect: str,
    *,
    logs: str | Sequence[str],
    estimator: str = "sips",
    slate_col: str = "slate_id",
    position_col: str = "position",
    reward_col: str = "click",
    propensity_col: str = "propensity_score",
    evaluation_col: str = "evaluation_propensity",
    ci: str = "none",
    pretty: bool = False,
) -> str:
    """One SQL statement for ``dialect`` computing ``slate_estimate(logs, ...)``: per position,
    then all positions (position NULL), ``position, slates, rows, covered, logged_reward,
    estimate, ci_low, ci_high, relative, ess, max_weight, warning``, with the macro's estimators
    ('sips', 'iips', 'rips', 'snsips', 'sniips', 'snrips') and checks (each an engine error).
    ``ci`` 'none' only (ci_low, ci_high NULL): the bootstrap draws from DuckDB's hash().

    Example::

        print(slate_estimate_to_sql("spark", logs="slates", estimator="snrips",
                                    propensity_col="pscore_cascade",
                                    evaluation_col="evaluation_pscore_cascade"))
    """
    dialect = _dialects.normalize(dialect)
    _choice("slate_estimate", "estimator", estimator)
    _ci(ci)
    _names(slate_col=slate_col, position_col=position_col, reward_col=reward_col,
           propensity_col=propensity_col, evaluation_col=evaluation_col)
    tables = {"__logs": table_expression(logs)}
    name = _shown(tables["__logs"])
    kind = _SLATE_KINDS[estimator]
    weighs = f"duckdb_ndcg: estimator := '{estimator}' weighs the probability {kind}"
    messages = {
        "null_key": (f"duckdb_ndcg: logs table {name} has NULL in {slate_col} or {position_col} (",
                     " rows)"),
        "doubled": (f"duckdb_ndcg: logs table {name} lists ",
                    f" ({slate_col}, {position_col}) more than once"),
        "reward": (f"duckdb_ndcg: {reward_col} of logs table {name} must be a finite number (",
                   " rows are not)"),
        "propensity": ((f"duckdb_ndcg: {propensity_col} of logs table {name} must be a "
                       "probability in (0, 1] ("), " rows are NULL, 0 or above 1)"),
        "evaluation": ((f"duckdb_ndcg: {evaluation_col} of logs table {name} must be a "
                       "probability in [0, 1] ("), " rows are NULL, below 0 or above 1)"),
        "b_varies": ((f"{weighs}, the same on each of its rows, but {propensity_col} of logs table "
                     f"{name} differs within "), f" {slate_col} values"),
        "e_varies": ((f"{weighs}, the same on each of its rows, but {evaluation_col} of logs table "
                     f"{name} differs within "), f" {slate_col} values"),
        "b_rises": ((f"{weighs}, which cannot grow down a slate, but {propensity_col} of logs "
                    f"table {name} grows in "), " rows"),
        "e_rises": ((f"{weighs}, which cannot grow down a slate, but {evaluation_col} of logs "
                    f"table {name} grows in "), " rows"),
    }
    checks = [
        ("_null_key > 0", "null_key", "_null_key"),
        ("_doubled > 0", "doubled", "_doubled"),
        ("_bad_reward > 0", "reward", "_bad_reward"),
        ("_bad_b > 0", "propensity", "_bad_b"),
        ("_bad_e > 0", "evaluation", "_bad_e"),
    ]
    if estimator in ("sips", "snsips"):  # the slate's probability: one value a slate
        checks += [("_b_varies > 0", "b_varies", "_b_varies"),
                   ("_e_varies > 0", "e_varies", "_e_varies")]
    if estimator in ("rips", "snrips"):  # a prefix's probability cannot grow down the slate
        checks += [("_b_rises > 0", "b_rises", "_b_rises"),
                   ("_e_rises > 0", "e_rises", "_e_rises")]
    text = _SLATE.format(
        check=_check(checks, "_ndcg_counts CROSS JOIN _ndcg_doubled CROSS JOIN _ndcg_varies"),
        normaliser=_SLATE_NORMALISERS[estimator], ess_text=_ESS_TEXT, ess10=_ESS10,
    )
    columns = {"__s": slate_col, "__p": position_col, "__r": reward_col, "__b": propensity_col,
               "__e": evaluation_col}
    return _render(dialect, text, columns, {}, tables, messages, pretty)


# --- ips_ndcg -----------------------------------------------------------------------------------

_IPS_NDCG = """
WITH _ndcg_logged AS (
    SELECT __s AS _s, __q AS _q, __d AS _d, CAST(__pos AS DOUBLE) AS _pos,
           CASE WHEN __c = 1 THEN 1 WHEN __c = 0 THEN 0 END AS _click
    FROM __logs
),
_ndcg_ranking AS (SELECT __q AS _q, __d AS _d, __r AS _r FROM __ranking),
_ndcg_ranked AS (
    SELECT _q, _d, ROW_NUMBER() OVER (PARTITION BY _q ORDER BY _r) AS _rank, 1 AS _hit
    FROM _ndcg_ranking
),{bias}
_ndcg_clicked AS (
    SELECT l._s AS _s, l._q AS _q, l._d AS _d, l._pos AS _pos, {propensity} AS _p, {listed} AS _listed,
           CASE WHEN r._hit = 1 THEN r._rank END AS _rank
    FROM _ndcg_logged AS l{bias_join}
    LEFT JOIN _ndcg_ranked AS r ON r._q = l._q AND r._d = l._d
    WHERE l._click = 1
),
_ndcg_log_counts AS (
    SELECT SUM(CASE WHEN _s IS NULL OR _q IS NULL OR _d IS NULL OR _pos IS NULL THEN 1 ELSE 0 END)
               AS _null_key,
           SUM(CASE WHEN _click IS NULL THEN 1 ELSE 0 END) AS _bad_click
    FROM _ndcg_logged
),
_ndcg_twice AS (
    SELECT SUM(_n - 1) AS _twice
    FROM (SELECT COUNT(*) AS _n FROM _ndcg_logged WHERE _click = 1 GROUP BY _s, _q, _d) AS g
),
_ndcg_bias_counts AS ({bias_counts}),
_ndcg_click_counts AS (
    SELECT MIN(CASE WHEN _listed = 0 THEN _pos END) AS _unlisted,
           MIN(CASE WHEN _pos < 1 OR _pos <> FLOOR(_pos) THEN _pos END) AS _bad_pos
    FROM _ndcg_clicked
),
_ndcg_ranking_counts AS (
    SELECT SUM(CASE WHEN _q IS NULL OR _d IS NULL OR _r IS NULL THEN 1 ELSE 0 END) AS _null_rank
    FROM _ndcg_ranking
),
_ndcg_rank_twice AS (
    SELECT SUM(_n - 1) AS _rank_twice
    FROM (SELECT COUNT(*) AS _n FROM _ndcg_ranking GROUP BY _q, _d) AS g
),
_ndcg_rank_ties AS (
    SELECT SUM(_n - 1) AS _rank_ties
    FROM (SELECT COUNT(*) AS _n FROM _ndcg_ranking GROUP BY _q, _r) AS g
),
{check},
_ndcg_ideal AS (
    SELECT _s, _q, _rank, 1 / _p AS _w,
           ROW_NUMBER() OVER (PARTITION BY _s, _q ORDER BY 1 / _p DESC) AS _ideal_rank
    FROM _ndcg_clicked
),
_ndcg_search_sums AS (
    SELECT _s, _q, 1 AS _hit,
           SUM(CASE WHEN _rank <= __k THEN _w / (LN(CAST(1 + _rank AS DOUBLE)) / LN(2.0))
                    ELSE 0 END) AS _dcg,
           SUM(CASE WHEN _ideal_rank <= __k
                    THEN _w / (LN(CAST(1 + _ideal_rank AS DOUBLE)) / LN(2.0)) ELSE 0 END) AS _idcg,
           MAX(_w) AS _max_w
    FROM _ndcg_ideal GROUP BY _s, _q
),
_ndcg_ranked_queries AS (SELECT _q, MAX(1) AS _hit FROM _ndcg_ranking GROUP BY _q),
_ndcg_per_search AS (
    SELECT s._s AS _s, s._q AS _q, CASE WHEN c._hit = 1 THEN c._dcg END AS _dcg,
           CASE WHEN c._hit = 1 THEN c._idcg END AS _idcg,
           CASE WHEN c._hit = 1 THEN c._max_w END AS _max_w,
           CASE WHEN rq._hit = 1 THEN 0 ELSE 1 END AS _unranked
    FROM (SELECT _s, _q FROM _ndcg_logged GROUP BY _s, _q) AS s
    LEFT JOIN _ndcg_search_sums AS c ON c._s = s._s AND c._q = s._q
    LEFT JOIN _ndcg_ranked_queries AS rq ON rq._q = s._q
),
_ndcg_queries AS (
    SELECT COUNT(*) AS _queries, SUM(_query_unranked) AS _unranked_queries
    FROM (SELECT _q, MAX(_unranked) AS _query_unranked FROM _ndcg_per_search GROUP BY _q) AS g
),
_ndcg_scored AS (
    SELECT _q, 0 AS _all, COUNT(*) AS _searches, COUNT(_idcg) AS _clicked,
           AVG(COALESCE(_dcg, 0)) AS _mean_dcg, AVG(_dcg / NULLIF(_idcg, 0)) AS _mean_ndcg,
           MAX(_max_w) AS _top_w, MAX(_unranked) AS _not_ranked
    FROM _ndcg_per_search GROUP BY _q
    UNION ALL
    SELECT NULL, 1, COUNT(*), COUNT(_idcg), AVG(COALESCE(_dcg, 0)), AVG(_dcg / NULLIF(_idcg, 0)),
           MAX(_max_w), NULL
    FROM _ndcg_per_search
)
SELECT x._q AS "query_id", CAST(x._searches AS BIGINT) AS "searches",
       CAST(x._clicked AS BIGINT) AS "clicked",
       CASE WHEN k._ok = 1 THEN x._mean_dcg END AS "ips_dcg",
       CASE WHEN k._ok = 1 THEN x._mean_ndcg END AS "ips_ndcg",
       CASE WHEN k._ok = 1 THEN x._top_w END AS "max_weight",
       CASE WHEN x._all = 0 AND x._not_ranked > 0
                THEN 'the new ranking has no row for this query: it scores 0'
            WHEN x._all = 1 AND n._unranked_queries > 0
                THEN CAST(n._unranked_queries AS TEXT) || ' of the ' || CAST(n._queries AS TEXT)
                     || ' logged queries have no row in the new ranking: they score 0'
       END AS "warning"
FROM _ndcg_scored AS x CROSS JOIN _ndcg_check AS k CROSS JOIN _ndcg_queries AS n
ORDER BY x._all, x._q
"""
_BIAS = """
_ndcg_bias AS (
    SELECT CAST("position" AS DOUBLE) AS _pos, CAST("propensity" AS DOUBLE) AS _prop, 1 AS _hit
    FROM __bias
),"""
_BIAS_COUNTS = """
    SELECT SUM(CASE WHEN _pos IS NOT NULL AND _prop > 0 AND _prop <= 1 THEN 0 ELSE 1 END)
               AS _bad_prop, (SELECT SUM(_n - 1) FROM (SELECT COUNT(*) AS _n FROM _ndcg_bias
                                                        GROUP BY _pos) AS g) AS _bias_twice
    FROM _ndcg_bias"""


def ips_ndcg_to_sql(
    dialect: str,
    *,
    logs: str | Sequence[str],
    ranking: str | Sequence[str],
    k: int = 10,
    propensity: str | Sequence[str] = "power",
    eta: Real = 1.0,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    session_col: str = "session_id",
    click_col: str = "click",
    rnk_col: str = "rnk",
    pretty: bool = False,
) -> str:
    """One SQL statement for ``dialect`` computing ``ips_ndcg(logs, ranking, ...)``: per query,
    then all searches (query_id NULL), ``query_id, searches, clicked, ips_dcg, ips_ndcg,
    max_weight, warning``: the propensity-weighted click DCG/NDCG@k of a new ranking, the
    propensity ``'power'`` (1 / position^eta) or a table of that engine with columns position and
    propensity; the macro's checks, each an engine error. The click is read as a number 1/0.

    Example::

        print(ips_ndcg_to_sql("postgres", logs="clicks", ranking="new_run", k=5,
                              propensity="bias"))
    """
    dialect = _dialects.normalize(dialect)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    if propensity is None:
        raise ValueError("propensity must be 'power' or a table name, got None")
    power = isinstance(propensity, str) and propensity == "power"
    if power and (isinstance(eta, bool) or not isinstance(eta, Real) or not math.isfinite(eta)
                  or eta < 0):
        raise ValueError(f"propensity := 'power' needs eta := <a finite number >= 0>, got {eta!r}")
    _names(query_col=query_col, item_col=item_col, position_col=position_col,
           session_col=session_col, click_col=click_col, rnk_col=rnk_col)
    tables = {"__logs": table_expression(logs), "__ranking": table_expression(ranking)}
    if not power:
        tables["__bias"] = table_expression(propensity)
    logs_name, ranking_name = _shown(tables["__logs"]), _shown(tables["__ranking"])
    bias_name = None if power else _shown(tables["__bias"])
    messages = {
        "null_key": ((f"duckdb_ndcg: logs table {logs_name} has NULL (or a position that is not a "
                     f"number) in {session_col}, {query_col}, {item_col} or {position_col} ("),
                     " rows)"),
        "click": (f"duckdb_ndcg: {click_col} of logs table {logs_name} must be 1 or 0 (",
                  " rows are not)"),
        "twice": (f"duckdb_ndcg: logs table {logs_name} has ",
                  f" clicks on an {item_col} already clicked in the same {session_col}"),
        "bias_twice": (f"duckdb_ndcg: propensity table {bias_name} lists ",
                       " position more than once"),
        "bad_prop": ((f"duckdb_ndcg: propensity of propensity table {bias_name} must be a "
                     "probability in (0, 1] at a numeric position ("),
                     " rows are NULL, 0 or above 1)"),
        "unlisted": (f"duckdb_ndcg: {position_col} ",
                     (f" of a click in logs table {logs_name} has no propensity in propensity "
                     f"table {bias_name}")),
        "bad_pos": ((f"duckdb_ndcg: propensity := 'power' reads {position_col} as whole numbers "
                    f"from 1, but a click in logs table {logs_name} is at "), ""),
        "null_rank": ((f"duckdb_ndcg: ranking table {ranking_name} has NULL in {query_col}, "
                      f"{item_col} or {rnk_col} ("), " rows)"),
        "rank_twice": (f"duckdb_ndcg: ranking table {ranking_name} lists ",
                       f" ({query_col}, {item_col}) more than once"),
        "rank_ties": (f"duckdb_ndcg: {rnk_col} of ranking table {ranking_name} has ",
                      f" ties within a {query_col} (the new ranking must order its items)"),
    }
    checks = [
        ("_null_key > 0", "null_key", "_null_key"),
        ("_bad_click > 0", "click", "_bad_click"),
        ("_twice > 0", "twice", "_twice"),
    ]
    if power:
        checks.append(("_bad_pos IS NOT NULL", "bad_pos", _WHOLE.format(x="_bad_pos")))
    else:
        checks += [("_bias_twice > 0", "bias_twice", "_bias_twice"),
                   ("_bad_prop > 0", "bad_prop", "_bad_prop"),
                   ("_unlisted IS NOT NULL", "unlisted", _WHOLE.format(x="_unlisted"))]
    checks += [("_null_rank > 0", "null_rank", "_null_rank"),
               ("_rank_twice > 0", "rank_twice", "_rank_twice"),
               ("_rank_ties > 0", "rank_ties", "_rank_ties")]
    text = _IPS_NDCG.format(
        bias="" if power else _BIAS,
        bias_join="" if power else "\n    LEFT JOIN _ndcg_bias AS b ON b._pos = l._pos",
        # a position below 1 has no power (PostgreSQL raises): the check names it
        propensity=("CASE WHEN l._pos >= 1 THEN POWER(l._pos, -__eta) END" if power
                    else "CASE WHEN b._hit = 1 THEN b._prop END"),
        listed="1" if power else "CASE WHEN b._hit = 1 THEN 1 ELSE 0 END",
        bias_counts="SELECT 0 AS _bad_prop, 0 AS _bias_twice" if power else _BIAS_COUNTS,
        check=_check(checks, "_ndcg_log_counts CROSS JOIN _ndcg_twice CROSS JOIN "
                     "_ndcg_bias_counts CROSS JOIN _ndcg_click_counts CROSS JOIN "
                     "_ndcg_ranking_counts CROSS JOIN _ndcg_rank_twice CROSS JOIN "
                     "_ndcg_rank_ties"),
    )
    columns = {"__s": session_col, "__q": query_col, "__d": item_col, "__pos": position_col,
               "__c": click_col, "__r": rnk_col}
    nodes = {"__k": number(k)}
    if power:
        nodes["__eta"] = cast(number(eta), "DOUBLE")
    return _render(dialect, text, columns, nodes, tables, messages, pretty)


# --- shared -------------------------------------------------------------------------------------


def _choice(macro: str, name: str, value: object) -> None:
    param = MACROS[macro].param(name)
    if value not in param.choices:
        raise ValueError(param.error(repr(value)))


def _ci(ci: object) -> None:
    _choice("ips_estimate", "ci", ci)
    if ci == "bootstrap":
        raise ValueError(_BOOTSTRAP)


def _names(**given: object) -> None:
    for label, value in given.items():
        if not isinstance(value, str) or not value:
            raise ValueError(f"{label} must be a non-empty column name, got {value!r}")


def _shown(table: exp.Table) -> str:
    """The table's name as the messages show it (schema.name)."""
    return ".".join(p.name for p in (table.args.get("catalog"), table.args.get("db"),
                                     table.this) if p)


# ClickHouse's throwIf takes a constant message (its raiser keeps a message's text up to the first
# value): there the whole sentence, with N for the count, rather than the words before it
_CONSTANT_MESSAGES = ("clickhouse",)


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> exp.Expression:
    """Our statement's tree (parsing is most of a call's time; the text holds no user input)."""
    return sqlglot.parse_one(text, read="duckdb")


def _render(
    dialect: str,
    text: str,
    columns: dict[str, str],
    nodes: dict[str, exp.Expression],
    tables: dict[str, exp.Table],
    messages: dict[str, tuple[str, str]],
    pretty: bool,
) -> str:
    """``text`` (ours, DuckDB's dialect) parsed, each placeholder replaced by its node, each
    ``_ndcg_raise(cond, 'key', detail)`` by the dialect's raiser of message ``key`` (its head,
    the detail as text, its tail), printed for ``dialect``."""
    tree = _parsed(text).copy()

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in columns:
            return col(columns[node.name])
        if isinstance(node, exp.Column) and not node.table and node.name in nodes:
            return nodes[node.name].copy()
        if isinstance(node, exp.Table) and node.name in tables:
            return tables[node.name].copy()
        return node

    def raise_(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.lower() == "_ndcg_raise":
            cond, key, detail = node.expressions
            head, tail = messages[key.this]
            # the offending count in the message: a constant message could be raised while the
            # plan is made (PostgreSQL folds a constant cast even in a branch never taken)
            shown = exp.Coalesce(this=cast(detail, "TEXT"), expressions=[string("NULL")])
            message = exp.DPipe(this=string(head), safe=True, expression=exp.DPipe(
                this=shown, expression=string(tail), safe=True))
            if dialect in _CONSTANT_MESSAGES:  # the whole sentence, N for the count
                message = string(f"{head}N{tail}")
            return _dialects.raiser(dialect, cond, message, "BIGINT")
        return node

    tree = tree.transform(replace).transform(raise_)
    check_functions(tree, dialect)
    return tree.sql(dialect, pretty=pretty)
