"""`click_grades_to_sql`: the click models of ``click_grades`` (sql/clicks/click_grades.sql) as one
statement for another engine: COEC, CTR and DCTR as grouped sums, the cascade model and SDBN as
window sums over each page, PBM as its 50 EM steps unrolled (a chain of SELECTs, each reading the
one before once, each step two window sums: attractiveness over a (query, item), examination over
a position), since recursive CTEs with aggregates are not portable (PostgreSQL refuses them).

The statement is written once here, in DuckDB's dialect, with placeholder names; it is parsed by
sqlglot (our text only) and every placeholder is replaced by a node: the user's columns and table
as quoted identifiers, numbers as literals, each check as the dialect's raiser; sqlglot prints the
result for the target engine. No user text is ever parsed or pasted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

import sqlglot
from sqlglot import exp

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.portable import _dialects
from duckdb_ndcg.portable._metrics import check_functions, table_expression
from duckdb_ndcg.portable._sql import col, number, string

_MODEL = MACROS["click_grades"].param("model")
# the models the portable SQL writes: DBN's E-step walks each page's results as lists (DuckDB only)
MODELS = ("coec", "ctr", "dctr", "cascade", "sdbn", "pbm")
PAGE_MODELS = ("cascade", "sdbn", "pbm")
EM_STEPS = 50  # PyClick's EMInference iterations, as the macro's
# (dialect, model) the portable SQL does not write, and why: a gap is a row here, raised as our
# own error, never SQL that fails (or crawls) on the engine
GAPS = {
    (engine, "pbm"): "PBM's 50 EM steps are 50 nested window queries, past Spark's analyzer "
    "(spark.sql.analyzer.maxIterations 100; 30 steps take 37 s on 1,000 rows), and Spark's "
    "WITH RECURSIVE allows no window function or aggregate on its recursive reference"
    for engine in ("spark", "databricks")
}

# The log, one row per row of the table at a position up to max_rank, every rule checked on the
# way (each check a raiser that only fires on its row). Flag form: one impression a row, _clk 1/0.
_LOG = """
SELECT __s AS _s, __q AS _q, __d AS _d, __p AS _p, __imp AS _imp,
       CASE WHEN __q IS NULL THEN _ndcg_raise(__q IS NULL, 'null_query', __q)
            WHEN __d IS NULL THEN _ndcg_raise(__d IS NULL, 'null_item', __d)
            WHEN __p IS NULL THEN _ndcg_raise(__p IS NULL, 'null_position', __p)
            WHEN __p < 0 THEN _ndcg_raise(__p < 0, 'negative_position', __p)
            WHEN __null_session THEN _ndcg_raise(__null_session, 'null_session', __s)
            ELSE __clk END AS _clk
FROM __events
WHERE __p IS NULL OR __p <= __max_rank
"""
_FLAG = ("CASE WHEN __c = 1 THEN 1 WHEN __c = 0 THEN 0 "
         "ELSE _ndcg_raise(COALESCE(__c NOT IN (0, 1), TRUE), 'click', __c) END")
_ACTION = "CASE WHEN LOWER(CAST(__a AS TEXT)) = '{}' THEN 1 ELSE 0 END"

# COEC, CTR, DCTR: per (query, item) its events and lowest position; SRW's rank CTR per position
_COUNTED = """
WITH _ndcg_log AS ({log}),
_ndcg_counted AS (
    SELECT _q, _d, SUM(_imp) AS _imps, SUM(_clk) AS _clks,
           MIN(CASE WHEN _imp > 0 OR _clk > 0 THEN _p END) AS _rank
    FROM _ndcg_log GROUP BY _q, _d
),
_ndcg_rank_ctr AS (
    SELECT _p, SUM(_imp) AS _rank_imps, SUM(_clk) AS _rank_clks
    FROM _ndcg_log WHERE _p < __max_rank GROUP BY _p HAVING SUM(_imp) > 0
),
_ndcg_graded AS (
    SELECT c._q, c._d, c._imps, c._clks, c._rank, {grade} AS _grade
    FROM _ndcg_counted AS c LEFT JOIN _ndcg_rank_ctr AS r ON r._p = c._rank
)
"""
_UNSEEN = "_ndcg_raise(c._clks > c._imps, 'unseen', c._q)"
_GRADES = {
    # SRW: clicks / (ctr[rank] × impressions), 0 when that is 0, half up to 3 decimals. Written
    # as the exact fraction a / b = clicks × rank impressions / (rank clicks × impressions),
    # rounded by floor((2000 a + b) / (2 b)) / 1000 in doubles (exact while 2000 a + b < 2^53);
    # SRW's own double arithmetic agrees but where its rounding errors cross a half (checked on
    # SRW's ESCI sample).
    "coec": """CASE WHEN COALESCE(r._rank_clks, 0) > 0 AND c._imps > 0 THEN
                   FLOOR((2000 * CAST(c._clks AS DOUBLE) * r._rank_imps
                          + CAST(r._rank_clks AS DOUBLE) * c._imps)
                         / (2 * CAST(r._rank_clks AS DOUBLE) * c._imps)) / 1000
                   ELSE CAST(0 AS DOUBLE) END""",
    "ctr": f"""CASE WHEN c._clks > c._imps THEN {_UNSEEN}
                   ELSE CAST(c._clks AS DOUBLE) / NULLIF(c._imps, 0) END""",
    "dctr": f"""CASE WHEN c._clks > c._imps THEN {_UNSEEN}
                    ELSE (CAST(c._clks AS DOUBLE) + 1) / (c._imps + 2) END""",
}

# the page models: a page is a (session, query), one result a position
_PAGES = """
WITH _ndcg_log AS ({log}),
_ndcg_pages AS (
    SELECT _q, _d, _p,
           CASE WHEN COUNT(*) OVER (PARTITION BY _s, _q, _p) > 1
                THEN _ndcg_raise(COUNT(*) OVER (PARTITION BY _s, _q, _p) > 1, 'two_results', _s)
                ELSE _clk END AS _c,
           MIN(CASE WHEN _clk = 1 THEN _p END) OVER (PARTITION BY _s, _q) AS _first_click,
           MAX(CASE WHEN _clk = 1 THEN _p END) OVER (PARTITION BY _s, _q) AS _last_click
    FROM _ndcg_log
)
"""
_PAGED = """,
_ndcg_paged AS (
    SELECT _q, _d, COUNT(*) AS _imps, SUM(_c) AS _clks, MIN(_p) AS _rank,
           SUM(CASE WHEN _p <= COALESCE(_first_click, _p) THEN 1 ELSE 0 END) AS _to_first,
           SUM(CASE WHEN _c = 1 AND _p = _first_click THEN 1 ELSE 0 END) AS _first_clicks,
           SUM(CASE WHEN _p <= COALESCE(_last_click, _p) THEN 1 ELSE 0 END) AS _to_last,
           SUM(CASE WHEN _c = 1 AND _p = _last_click THEN 1 ELSE 0 END) AS _last_clicks
    FROM _ndcg_pages GROUP BY _q, _d
),
_ndcg_graded AS (
    SELECT _q, _d, _imps, _clks, _rank, {grade} AS _grade FROM _ndcg_paged
)
"""
_PAGE_GRADES = {
    "cascade": "(1 + CAST(_first_clicks AS DOUBLE)) / (2 + _to_first)",
    "sdbn": "((1 + CAST(_clks AS DOUBLE)) / (2 + _to_last)) "
            "* ((1 + CAST(_last_clicks AS DOUBLE)) / (2 + _clks))",
}
# PBM: the results grouped by (query, item, position), then EM_STEPS steps from 0.5; each step's
# columns are named by its number (_a7, _e7), so no engine can take a new value for an old one.
# A step is one SELECT: both window sums and the new values.
_PBM_START = """,
_ndcg_em0 AS (
    SELECT _q, _d, _p, CAST(COUNT(*) AS DOUBLE) AS _n, CAST(SUM(_c) AS DOUBLE) AS _clicks,
           CAST(0.5 AS DOUBLE) AS _a0, CAST(0.5 AS DOUBLE) AS _e0
    FROM _ndcg_pages GROUP BY _q, _d, _p
)"""
_PBM_STEP = """,
_ndcg_em{i} AS (
    SELECT _q, _d, _p, _n, _clicks,
           LEAST((1 + SUM(_clicks + (_n - _clicks) / (1 - _e{j} * _a{j}) * (1 - _e{j}) * _a{j})
                      OVER (PARTITION BY _q, _d))
                 / (2 + SUM(_n) OVER (PARTITION BY _q, _d)), 1 - 1e-6) AS _a{i},
           LEAST((1 + SUM(_clicks + (_n - _clicks) / (1 - _e{j} * _a{j}) * (1 - _a{j}) * _e{j})
                      OVER (PARTITION BY _p))
                 / (2 + SUM(_n) OVER (PARTITION BY _p)), 1 - 1e-6) AS _e{i}
    FROM _ndcg_em{j}
)"""
# The same step as three SELECTs (each result's updates, their window sums bare, the new values),
# for the engines in SPLIT_STEPS: SQLite's window rewrite nests every expression in or around a
# window function a level deeper a step, past its expression depth limit of 1000 at 35 steps;
# ClickHouse, whose subquery depth limit is 100, and the others take one SELECT a step.
SPLIT_STEPS = ("sqlite",)
_PBM_STEP_SPLIT = """,
_ndcg_updates{i} AS (
    SELECT _q, _d, _p, _n, _clicks,
           _clicks + (_n - _clicks) / (1 - _e{j} * _a{j}) * (1 - _e{j}) * _a{j} AS _attr_up,
           _clicks + (_n - _clicks) / (1 - _e{j} * _a{j}) * (1 - _a{j}) * _e{j} AS _exam_up
    FROM _ndcg_em{j}
),
_ndcg_sums{i} AS (
    SELECT _q, _d, _p, _n, _clicks,
           SUM(_attr_up) OVER (PARTITION BY _q, _d) AS _attr_sum,
           SUM(_n) OVER (PARTITION BY _q, _d) AS _attr_n,
           SUM(_exam_up) OVER (PARTITION BY _p) AS _exam_sum,
           SUM(_n) OVER (PARTITION BY _p) AS _exam_n
    FROM _ndcg_updates{i}
),
_ndcg_em{i} AS (
    SELECT _q, _d, _p, _n, _clicks,
           LEAST((1 + _attr_sum) / (2 + _attr_n), 1 - 1e-6) AS _a{i},
           LEAST((1 + _exam_sum) / (2 + _exam_n), 1 - 1e-6) AS _e{i}
    FROM _ndcg_sums{i}
)"""
_PBM_END = """,
_ndcg_graded AS (
    SELECT _q, _d, SUM(_n) AS _imps, SUM(_clicks) AS _clks, MIN(_p) AS _rank, MAX(_a{n}) AS _grade
    FROM _ndcg_em{n} GROUP BY _q, _d
)
"""
_SELECT = """
SELECT _q AS query_id, _d AS item_id, __rel AS rel, _rank AS rnk,
       CAST(_imps AS BIGINT) AS impressions, CAST(_clks AS BIGINT) AS clicks
FROM _ndcg_graded
WHERE _grade IS NOT NULL AND _imps >= __min_impressions
"""


def _whole(name: str, value: object, lowest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
        raise ValueError(f"{name} must be a whole number >= {lowest}, got {value!r}")
    return value


def click_grades_to_sql(
    dialect: str,
    *,
    table: str | Sequence[str],
    model: str = "coec",
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    session_col: str | None = None,
    click_col: str = "click",
    action_col: str | None = None,
    max_rank: int = 20,
    bins: Sequence[Real] | None = None,
    min_impressions: int = 0,
    pretty: bool = False,
) -> str:
    """One SQL statement for ``dialect`` computing ``click_grades(table, model := ...)``: per
    (query, item) ``query_id, item_id, rel, rnk, impressions, clicks``, with the macro's options
    and numbers (the models, max_rank, bins, min_impressions; each check an engine error).

    Models: 'coec', 'ctr', 'dctr' (flag or event form), 'cascade', 'sdbn', 'pbm' (flag form, one
    row per shown result, needing session_col). The flag is read as an integer 1/0. Not written:
    'dbn' (its E-step needs lists) and the date range (filter ``table`` first).

    Example::

        print(click_grades_to_sql("spark", table="clicks", model="pbm", session_col="session_id"))
    """
    dialect = _dialects.normalize(dialect)
    if model == "dbn":
        raise ValueError("model := 'dbn' has no portable SQL (its E-step walks each page's results "
                         "as lists): use the DuckDB macro, or one of " + ", ".join(MODELS))
    if model not in MODELS:
        raise ValueError(_MODEL.error(repr(model)))
    if (dialect, model) in GAPS:
        raise ValueError(f"model := '{model}' has no portable SQL for {dialect}: "
                         f"{GAPS[dialect, model]}; use the DuckDB macro or another engine")
    if model in PAGE_MODELS and session_col is None:
        raise ValueError(f"model := '{model}' reads result pages: it needs session_col := <the "
                         "column naming one search (a page of results)>")
    if model in PAGE_MODELS and action_col is not None:
        raise ValueError(f"model := '{model}': the portable SQL reads the flag form (one row per "
                         "shown result, click_col 1/0), not action_col")
    _whole("max_rank", max_rank, 1)
    _whole("min_impressions", min_impressions, 0)
    thresholds = None if bins is None else list(bins)
    if thresholds is not None and (
        not thresholds
        or not all(isinstance(b, Real) and not isinstance(b, bool) and math.isfinite(b)
                   for b in thresholds)
        or thresholds != sorted(thresholds)
    ):
        raise ValueError("bins must be a non-empty list of finite thresholds in ascending order, "
                         f"got {bins!r}")
    events = table_expression(table)
    name = ".".join(p.name for p in (events.args.get("catalog"), events.args.get("db"),
                                     events.this) if p)
    messages = {
        "null_query": f"duckdb_ndcg: events table {name} has NULL in {query_col}",
        "null_item": f"duckdb_ndcg: events table {name} has NULL in {item_col}",
        "null_position": f"duckdb_ndcg: events table {name} has NULL in {position_col}",
        "null_session": f"duckdb_ndcg: events table {name} has NULL in {session_col}",
        "negative_position": f"duckdb_ndcg: {position_col} of events table {name} has negative "
                             "positions",
        "click": f"duckdb_ndcg: {click_col} of events table {name} must be 1 or 0",
        "two_results": f"duckdb_ndcg: ({session_col}, {query_col}, {position_col}) of {name} "
                       "show more than one result (a position holds one item a page)",
        "unseen": f"duckdb_ndcg: a (query, item) of {name} has more clicks than impressions; "
                  f"model := '{model}' needs an impression per click",
    }
    if action_col is None:
        log = _LOG.replace("__imp", "1").replace("__clk", _FLAG)
    else:
        log = _LOG.replace("__imp", _ACTION.format("impression")).replace(
            "__clk", _ACTION.format("click"))
    if model in _GRADES:
        text = _COUNTED.format(log=log, grade=_GRADES[model])
    elif model in _PAGE_GRADES:
        text = _PAGES.format(log=log) + _PAGED.format(grade=_PAGE_GRADES[model])
    else:
        step = _PBM_STEP_SPLIT if dialect in SPLIT_STEPS else _PBM_STEP
        steps = "".join(step.format(i=i, j=i - 1) for i in range(1, EM_STEPS + 1))
        text = _PAGES.format(log=log) + _PBM_START + steps + _PBM_END.format(n=EM_STEPS)
    tree = sqlglot.parse_one(text + _SELECT, read="duckdb")

    columns = {"__q": query_col, "__d": item_col, "__p": position_col, "__c": click_col,
               "__a": action_col, "__s": session_col}
    nodes: dict[str, exp.Expression] = {
        "__max_rank": number(max_rank),
        "__min_impressions": number(min_impressions),
        "__null_session": exp.false(),
        "__rel": _binned(thresholds),
    }
    if session_col is not None:
        nodes["__null_session"] = exp.Is(this=col(session_col), expression=exp.null())

    def replace(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in columns:
            given = columns[node.name]
            return col(given) if given is not None else exp.null()
        if isinstance(node, exp.Column) and not node.table and node.name in nodes:
            return nodes[node.name].copy()
        if isinstance(node, exp.Table) and node.name == "__events":
            return events.copy()
        return node

    def raise_(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.lower() == "_ndcg_raise":
            cond, key, detail = node.expressions
            # the offending value in the message: a constant message could be raised while the
            # plan is made (PostgreSQL folds a constant cast even in a branch never taken)
            shown = exp.Coalesce(this=exp.Cast(this=detail, to=exp.DataType.build("TEXT")),
                                 expressions=[string("NULL")])
            message = exp.DPipe(this=exp.DPipe(this=string(messages[key.this] + " (at "),
                                               expression=shown, safe=True),
                                expression=string(")"), safe=True)
            return _dialects.raiser(dialect, cond, message, "BIGINT")
        return node

    tree = tree.transform(replace).transform(raise_)  # the raisers read replaced columns
    check_functions(tree, dialect)
    return tree.sql(dialect, pretty=pretty)


def _binned(thresholds: list[Real] | None) -> exp.Expression:
    """The grade, or with bins the count of thresholds <= it (as the macro's)."""
    grade = exp.column("_grade")
    if thresholds is None:
        return grade
    count: exp.Expression = number(0)
    for t in thresholds:
        step = exp.Case(ifs=[exp.If(this=exp.GTE(this=grade.copy(), expression=number(t)),
                                    true=number(1))], default=number(0))
        count = exp.Add(this=count, expression=step)
    return exp.Case(ifs=[exp.If(this=exp.Is(this=grade.copy(), expression=exp.null()),
                                true=exp.Cast(this=exp.null(), to=exp.DataType.build("DOUBLE")))],
                    default=exp.Cast(this=exp.paren(count), to=exp.DataType.build("DOUBLE")))
