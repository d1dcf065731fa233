"""Every metric and convention of to_sql, run on real engines, equals the DuckDB macros."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import Any

import duckdb
import pytest
from conftest import ENGINES, Engine
from portable_golden import EVENTS, GOLDEN_EMPTY, RANKINGS

import duckdb_ndcg
from duckdb_ndcg.portable import METRICS, column_name, compare_to_sql, events_to_sql, to_sql
from duckdb_ndcg.portable._metrics import _ORDER_DEPENDENT as ORDER_DEPENDENT
from duckdb_ndcg.portable._metrics import _WHOLE_RANKING as WHOLE_RANKING

GAIN_MAP = {0: 0, 0.5: 1, 1: 1, 1.5: 2, 2: 3, 2.5: 5, 3: 7}
CONVENTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "k4-straddle": {"k": 4},
    "k2": {"k": 2},
    "k10-long": {"k": 10},
    "exponential": {"k": 4, "gain": "exponential"},
    "gain-map": {"k": 4, "gain": GAIN_MAP},
    "ties-key": {"k": 4, "ties": "key", "tie_key": "item_id"},
    "ties-key-all": {"ties": "key", "tie_key": "item_id"},
    "log10": {"k": 3, "log_base": 10},
    "empty-null": {"k": 4, "empty_ideal": None},
    "empty-null-all": {"empty_ideal": None},
    "empty-one-key": {"k": 2, "empty_ideal": 1.0, "ties": "key", "tie_key": "item_id"},
    "clamp": {"k": 10, "clamp_k": True},
    "full-ideal": {"full_ideal": True},
    "threshold2": {"k": 4, "threshold": 2, "ties": "key", "tie_key": "item_id"},
    "threshold2-all": {"threshold": 2, "ties": "key", "tie_key": "item_id"},
    "max-grade3-key": {"k": 4, "max_grade": 3, "ties": "key", "tie_key": "item_id"},
    "max-grade4.5-key-all": {"max_grade": 4.5, "ties": "key", "tie_key": "item_id"},
    "max-grade2.5-too-small": {"k": 2, "max_grade": 2.5},  # q1 has grade 3: an error
    "p0.5": {"k": 4, "p": 0.5},
    "p0.95-key-all": {"p": 0.95, "ties": "key", "tie_key": "item_id"},
    "min-k": {"k": 2, "denominator": "min_k"},
    "min-k-straddle": {"k": 4, "denominator": "min_k"},
    "min-k-all": {"denominator": "min_k"},
    "retrieved": {"k": 2, "denominator": "retrieved"},
    "retrieved-key": {"k": 4, "denominator": "retrieved", "ties": "key", "tie_key": "item_id"},
}
ERROR_TEXT = {"sqlite": "malformed JSON"}  # SQLite cannot carry our message
TOLERANCE = 1e-12


def applies(metric: str, conventions: dict[str, Any]) -> bool:
    """Whether to_sql takes these conventions for this metric (each option has its metrics)."""
    try:
        to_sql(metric, "duckdb", table="golden", **conventions)
    except ValueError:
        return False
    return True


APPLIES = [(m, c) for m in METRICS for c in CONVENTIONS if applies(m, CONVENTIONS[c])]


def _spark_cover() -> set[tuple[str, str]]:
    """The (metric, convention) cases Spark runs: every metric at full depth under both tie
    rules, ndcg under every convention, and every other convention once (its first metric).
    Each construct of the generated SQL (a metric's formula, a convention's window, gain, cut
    or denominator) then meets Spark's dialect; the whole cross product runs on DuckDB, SQLite,
    PostgreSQL and ClickHouse. Spark answers a statement in about 1 s against 0.05-0.3 s for
    the others: the 150 cases took some 2.5 CPU minutes of the suite there."""
    cover = {(m, c) for m, c in APPLIES if c in ("default", "ties-key-all") or m == "ndcg"}
    firsts: dict[str, str] = {}
    for m, c in APPLIES:
        firsts.setdefault(c, m)
    return cover | {(m, c) for c, m in firsts.items()}


def on_engines(cases: list[Any], spark: Callable[[Any], bool]) -> list[Any]:
    """Each case (a pytest.param) on every engine, on Spark only where ``spark(case)``: the
    engine parameter comes last, indirect (the ``engine`` fixture)."""
    return [
        pytest.param(*case.values, name, id=f"{name}-{case.id}")
        for name in ENGINES
        for case in cases
        if name != "spark" or spark(case)
    ]


def first_of_each(cases: list[Any], key: Callable[[tuple[Any, ...]], str]) -> set[str]:
    """The ids of the first case (a pytest.param) of each ``key(values)``: in METRICS order,
    the key's first metric."""
    firsts: dict[str, str] = {}
    for case in cases:
        firsts.setdefault(key(case.values), case.id)
    return set(firsts.values())


SPARK_COVER = _spark_cover()
ENGINE_CASES = on_engines(
    [pytest.param(m, c, id=f"{m}-{c}") for m, c in APPLIES],
    lambda case: tuple(case.values) in SPARK_COVER,
)


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, dict):
        return "MAP {" + ", ".join(f"{g}: {v}" for g, v in value.items()) + "}"
    return repr(value)


def macro_sql(metric: str, table: str, k: int | None, conventions: dict[str, Any]) -> str:
    """The reference: the DuckDB aggregate macro with the same conventions (test-owned values)."""
    args = ["rel"] if metric == "idcg" else ["rel", "rnk"]
    if metric not in WHOLE_RANKING:
        args.append(f"k := {_literal(k)}")  # by name: rbp's third parameter is p
    for name, value in conventions.items():
        if name == "k":
            continue
        args.append(f"{name} := {value}" if name == "tie_key" else f"{name} := {_literal(value)}")
    return (
        f"SELECT query_id, {metric}({', '.join(args)}) FROM {table} "
        "GROUP BY query_id ORDER BY query_id"
    )


# The macros' answer to one statement, computed once for all five engines: the reference
# connection is session-scoped and read-only (its golden tables never change), so the same SQL
# gives the same rows or the same error every time; binding a macro is most of a non-Spark case.
_TRUTH: dict[str, dict[str, float | None] | duckdb.Error] = {}


def expected(
    reference: duckdb.DuckDBPyConnection,
    metric: str,
    table: str,
    k: int | None,
    conventions: dict[str, Any],
) -> dict[str, float | None] | duckdb.Error:
    sql = macro_sql(metric, table, k, conventions)
    if sql not in _TRUTH:
        try:
            _TRUTH[sql] = dict(reference.execute(sql).fetchall())
        except duckdb.Error as error:
            _TRUTH[sql] = error
    truth = _TRUTH[sql]
    return truth if isinstance(truth, duckdb.Error) else dict(truth)


def run(engine: Engine, sql: str) -> dict[str, tuple[Any, ...]]:
    rows = engine.run(sql)
    result = {str(row[0]): tuple(row[1:]) for row in rows}
    assert len(result) == len(rows), f"query_id repeated in {rows}"
    return result


def assert_engine_raises(engine: Engine, sql: str) -> None:
    with pytest.raises(Exception) as caught:
        engine.run(sql)
    assert ERROR_TEXT.get(engine.dialect, "duckdb_ndcg") in str(caught.value)


@pytest.mark.parametrize(("metric", "convention", "engine"), ENGINE_CASES, indirect=["engine"])
def test_metric_matches_macros(
    engine: Engine, reference: duckdb.DuckDBPyConnection, metric: str, convention: str
) -> None:
    conventions = CONVENTIONS[convention]
    sql = to_sql(metric, engine.dialect, table="golden", **conventions)
    truth = expected(reference, metric, "golden", conventions.get("k"), conventions)
    if isinstance(truth, duckdb.Error):  # the macros refuse: the engine must refuse too
        assert "duckdb_ndcg" in str(truth)
        assert_engine_raises(engine, sql)
        return
    if metric in ORDER_DEPENDENT and conventions.get("ties", "average") == "average":
        # a stated gap: the macros give the expectation over tied orders, the portable SQL
        # refuses a ranking whose order matters (and answers the others, equal to the macros)
        try:
            got = run(engine, sql)
        except Exception as error:  # noqa: BLE001 (each engine raises its own exception type)
            text = ERROR_TEXT.get(engine.dialect, "depends on the order of tied rank keys")
            assert text in str(error)
            return
    else:
        got = run(engine, sql)
    assert set(got) == set(truth)
    for query_id, value in truth.items():
        assert got[query_id] == (pytest.approx(value, abs=TOLERANCE, nan_ok=False),), query_id


@pytest.mark.parametrize("metric", METRICS)
def test_integer_columns(engine: Engine, reference: duckdb.DuckDBPyConnection, metric: str) -> None:
    """BIGINT grades and ranks: no integer division, no integer POWER on any engine."""
    k = None if metric in WHOLE_RANKING + ("judged_at_k",) else 3
    conventions: dict[str, Any] = {"k": k}
    if applies(metric, {"gain": "exponential"}):
        conventions["gain"] = "exponential"
    if metric in ("hit_rate", "reciprocal_rank", "average_precision", "precision_at_k", "bpref"):
        conventions["threshold"] = 2
    if metric == "err":  # an integer max_grade: no integer POWER
        conventions["max_grade"] = 3
    if metric in ("rbp", "rbp_residual"):
        conventions["p"] = 0.5
    got = run(engine, to_sql(metric, engine.dialect, table="golden_int", **conventions))
    truth = expected(reference, metric, "golden_int", k, conventions)
    assert isinstance(truth, dict)
    assert any(0 < v < 1 for v in truth.values() if v is not None) or metric in (
        "dcg",
        "cg",
        "hit_rate",
        "idcg",
    )
    assert got == {q: (pytest.approx(v, abs=TOLERANCE),) for q, v in truth.items()}


def test_cutoffs_and_metrics_in_one_statement(
    engine: Engine, reference: duckdb.DuckDBPyConnection
) -> None:
    metrics = ["ndcg", "precision_at_k", "recall_at_k"]
    ks = [None, 2, 4, 10]
    got = run(engine, to_sql(metrics, engine.dialect, table="golden", k=ks))
    columns = [(m, k) for m in metrics for k in ks]
    for position, (metric, k) in enumerate(columns):
        truth = expected(reference, metric, "golden", k, {})
        assert isinstance(truth, dict)
        for query_id, value in truth.items():
            assert got[query_id][position] == pytest.approx(value, abs=TOLERANCE), (metric, k)


def test_column_names(duckdb_engine: Engine) -> None:
    with duckdb.connect() as con:
        con.execute(
            "CREATE TABLE golden AS SELECT 'q' AS query_id, 'a' AS item_id, 1 AS rel, 1 AS rnk"
        )
        single = con.execute(to_sql("precision", "duckdb", table="golden", k=5))
        assert [d[0] for d in single.description] == ["query_id", "precision_at_k"]
        many = con.execute(
            to_sql(["ndcg", "precision_at_k"], "duckdb", table="golden", k=[None, 10])
        )
        assert [d[0] for d in many.description] == [
            "query_id",
            "ndcg",
            "ndcg_at_10",
            "precision",
            "precision_at_10",
        ]
    assert column_name("recall_at_k", 5) == "recall_at_5"


BAD_CASES = {
    "negative-grade": ("ndcg", {"k": 2}),
    "grade-not-in-map": ("dcg", {"gain": {1: 1, -1: 0}, "negative": "zero"}),
    "null-tie-key": ("ndcg", {"ties": "key", "tie_key": "item_id", "negative": "zero"}),
}


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_raises_on_engine(
    engine: Engine, reference: duckdb.DuckDBPyConnection, case: str
) -> None:
    metric, conventions = BAD_CASES[case]
    truth = expected(reference, metric, "bad", conventions.get("k"), conventions)
    assert isinstance(truth, duckdb.Error) and "duckdb_ndcg" in str(truth)
    assert_engine_raises(engine, to_sql(metric, engine.dialect, table="bad", **conventions))


@pytest.mark.parametrize(
    ("metric", "k"), [(m, 4) for m in ORDER_DEPENDENT if m != "bpref"] + [("bpref", None)]
)
def test_tied_order_metric_is_a_gap_of_the_portable_sql(
    engine: Engine, reference: duckdb.DuckDBPyConnection, metric: str, k: int | None
) -> None:
    """The macros give the expectation over tied orders; where a tie group's order changes the
    value (golden q1: grades 3, 0, 1 tied at positions 3-5) the portable SQL refuses, loudly."""
    truth = expected(reference, metric, "golden", k, {})
    assert isinstance(truth, dict)
    assert all(0.0 <= value <= 1.0 for value in truth.values())
    with pytest.raises(Exception) as caught:
        engine.run(to_sql(metric, engine.dialect, table="golden", k=k))
    text = ERROR_TEXT.get(engine.dialect, f"duckdb_ndcg: {metric} depends on the order of tied")
    assert text in str(caught.value)


# Every tie of golden_ties is one whose order changes none of the metrics: a group of equal
# grades, of non-relevant rows only (unjudged or grade 0), or a group straddling the cut whose
# rows are all relevant. The order-dependent metrics answer there, with ties='average' too.
ORDER_FREE_OPTIONS: list[dict[str, Any]] = [
    {},
    {"denominator": "min_k"},
    {"denominator": "retrieved"},
    {"p": 0.6},
    {"max_grade": 5},
]
ORDER_FREE = [
    pytest.param(m, k, o, id=f"{m}-{k}-{'-'.join(f'{n}={v}' for n, v in o.items()) or 'default'}")
    for m in METRICS
    for k in (None, 1, 3, 10)
    for o in ORDER_FREE_OPTIONS
    if applies(m, {"k": k, **o})
]


def _options_key(options: dict[str, Any]) -> str:
    return repr(sorted(options.items()))


# Spark: every metric without options at full depth and at k 3 (inside a tie group), and each
# option at each cutoff once (its first metric)
_ORDER_FREE_SPARK = first_of_each(ORDER_FREE, lambda v: f"{v[1]}-{_options_key(v[2])}")


@pytest.mark.parametrize(
    ("metric", "k", "options", "engine"),
    on_engines(
        ORDER_FREE,
        lambda case: (not case.values[2] and case.values[1] in (None, 3))
        or case.id in _ORDER_FREE_SPARK,
    ),
    indirect=["engine"],
)
def test_ties_whose_order_cannot_matter(
    engine: Engine,
    reference: duckdb.DuckDBPyConnection,
    metric: str,
    k: int | None,
    options: dict[str, Any],
) -> None:
    got = run(engine, to_sql(metric, engine.dialect, table="golden_ties", k=k, **options))
    truth = expected(reference, metric, "golden_ties", k, options)
    assert isinstance(truth, dict)
    assert got == {q: (pytest.approx(v, abs=TOLERANCE),) for q, v in truth.items()}


# empty_ideal: the result of a query with no relevant judged row (rel >= threshold, returned or
# not), for every metric whose macro takes it, in each of its variants that changes what counts as
# relevant or what the value divides by (golden_empty: such queries beside queries scoring 0 for
# another reason: relevant rows never returned, or only after k, or none retrieved).
EMPTY_IDEAL_METRICS = [m for m in METRICS if applies(m, {"empty_ideal": None})]
EMPTY_IDEALS = (0.0, 1.0, None)
EMPTY_OPTIONS: list[dict[str, Any]] = [
    {},
    {"k": 2},
    {"k": 2, "denominator": "min_k"},
    {"k": 2, "denominator": "retrieved"},
    {"denominator": "retrieved"},
    {"threshold": 2},
    {"ties": "key", "tie_key": "item_id"},
]
EMPTY_CASES = [
    pytest.param(m, o, id=f"{m}-{'-'.join(f'{n}={v}' for n, v in o.items()) or 'default'}")
    for m in EMPTY_IDEAL_METRICS
    for o in EMPTY_OPTIONS
    if applies(m, {**o, "empty_ideal": None})
]


def _nothing_relevant(threshold: float) -> set[str]:
    """golden_empty's queries with no judged row of grade >= threshold (returned or not)."""
    queries = {q for q, *_ in GOLDEN_EMPTY}
    return queries - {q for q, _, rel, _ in GOLDEN_EMPTY if rel is not None and rel >= threshold}


def test_every_metric_with_an_empty_ideal_takes_it() -> None:
    """The metrics whose macro has empty_ideal (the conventions table), and only those."""
    from duckdb_ndcg.conventions import MACROS

    assert EMPTY_IDEAL_METRICS == [
        m for m in METRICS if any(p.name == "empty_ideal" for p in MACROS[m].params)
    ]
    assert EMPTY_IDEAL_METRICS == [
        "ndcg",
        "recall_at_k",
        "hit_rate",
        "reciprocal_rank",
        "average_precision",
        "r_precision",
        "f1_at_k",
        "bpref",
    ]


# Spark: every metric without options, and each option once (its first metric)
_EMPTY_SPARK = first_of_each(EMPTY_CASES, lambda v: _options_key(v[1]))


@pytest.mark.parametrize(
    ("metric", "options", "engine"),
    on_engines(EMPTY_CASES, lambda case: not case.values[1] or case.id in _EMPTY_SPARK),
    indirect=["engine"],
)
def test_empty_ideal_matches_macros(
    engine: Engine, reference: duckdb.DuckDBPyConnection, metric: str, options: dict[str, Any]
) -> None:
    """0.0, 1.0 and NULL: equal to the macro with the same options, query by query; for the
    family metrics the value changes with empty_ideal exactly on the queries with nothing
    relevant (ndcg's rule is IDCG 0, which with k NULL also holds for a query that returned
    nothing: m2)."""
    results = {}
    for empty in EMPTY_IDEALS:
        conventions = {**options, "empty_ideal": empty}
        sql = to_sql(metric, engine.dialect, table="golden_empty", **conventions)
        truth = expected(reference, metric, "golden_empty", options.get("k"), conventions)
        assert isinstance(truth, dict)
        got = run(engine, sql)
        assert got == {q: (pytest.approx(v, abs=TOLERANCE),) for q, v in truth.items()}, empty
        results[empty] = truth
    if metric == "ndcg":
        return
    empty_queries = _nothing_relevant(options.get("threshold", 1))
    for query_id, value in results[0.0].items():
        if query_id in empty_queries:
            assert (value, results[1.0][query_id], results[None][query_id]) == (0.0, 1.0, None)
        else:
            assert value == results[1.0][query_id] == results[None][query_id] is not None
    # queries with relevant rows that score 0 all the same (never returned, after k, none
    # retrieved) keep their 0 whatever empty_ideal is
    assert {"m1", "m2"} <= {q for q, v in results[1.0].items() if v == 0.0}


# The peers' conventions for a query without a relevant item, as empty_ideal: torchmetrics'
# retrieval metrics (RetrievalRecall, RetrievalHitRate, RetrievalMRR, RetrievalMAP,
# RetrievalRPrecision) score it 0 with empty_target_action='neg' (their default), 1 with 'pos',
# and leave it out of the mean with 'skip' (NULL, which avg() skips); XGBoost's `map` metric
# scores it 1 (`map-`: 0). golden_peer: p1 [1, 0, 1], p2 [0, 0] (no positive), p3 [0, 1].
PEER_ACTIONS = {"neg": 0.0, "pos": 1.0, "skip": None}
# per metric: (to_sql options, p1, p3): recall@2, hit@2, RR, AP, R-precision
PEER_VALUES: dict[str, tuple[dict[str, Any], float, float]] = {
    "recall_at_k": ({"k": 2}, 1 / 2, 1.0),
    "hit_rate": ({"k": 2}, 1.0, 1.0),
    "reciprocal_rank": ({}, 1.0, 1 / 2),
    "average_precision": ({}, (1 + 2 / 3) / 2, 1 / 2),
    "r_precision": ({}, 1 / 2, 0.0),
}
# the mean over p1, p2, p3 of each metric under each action (torchmetrics' aggregation 'mean')
PEER_MEANS = {
    "recall_at_k": {"neg": 1 / 2, "pos": 5 / 6, "skip": 3 / 4},
    "hit_rate": {"neg": 2 / 3, "pos": 1.0, "skip": 1.0},
    "reciprocal_rank": {"neg": 1 / 2, "pos": 5 / 6, "skip": 3 / 4},
    "average_precision": {"neg": 4 / 9, "pos": 7 / 9, "skip": 2 / 3},
    "r_precision": {"neg": 1 / 6, "pos": 1 / 2, "skip": 1 / 4},
}


@pytest.mark.parametrize("action", PEER_ACTIONS)
@pytest.mark.parametrize("metric", PEER_VALUES)
def test_empty_ideal_gives_the_peers_empty_target_action(
    engine: Engine, metric: str, action: str
) -> None:
    options, p1, p3 = PEER_VALUES[metric]
    empty = PEER_ACTIONS[action]
    got = run(
        engine, to_sql(metric, engine.dialect, table="golden_peer", empty_ideal=empty, **options)
    )
    assert got == {
        "p1": (pytest.approx(p1, abs=TOLERANCE),),
        "p2": (empty,),
        "p3": (pytest.approx(p3, abs=TOLERANCE),),
    }
    kept = [v for (v,) in got.values() if v is not None]  # avg() skips NULL
    assert sum(kept) / len(kept) == pytest.approx(PEER_MEANS[metric][action], abs=TOLERANCE)


def test_empty_ideal_one_is_xgboosts_map(engine: Engine) -> None:
    """XGBoost's `map`: a query with no positive label has AP 1 (empty_ideal := 1.0)."""
    got = run(
        engine, to_sql("average_precision", engine.dialect, table="golden_peer", empty_ideal=1.0)
    )
    assert got["p2"] == (1.0,)
    mean = sum(v for (v,) in got.values()) / 3
    assert mean == pytest.approx((5 / 6 + 1 + 1 / 2) / 3, abs=TOLERANCE)


@pytest.mark.parametrize("empty", EMPTY_IDEALS)
def test_events_empty_ideal_matches_ndcg_report_macro(
    engine: Engine, reference: duckdb.DuckDBPyConnection, empty: float | None
) -> None:
    """events_to_sql's empty_ideal (NDCG of a ranking whose query has no graded event: s3)."""
    key = f"ndcg_report k 3 empty_ideal {empty!r}"  # once for all five engines, as expected()
    if key not in _TRUTH:
        _TRUTH[key] = dict(
            reference.execute(
                "SELECT query_id, ndcg FROM ndcg_report('rankings', 'events', k := 3, "
                "empty_ideal := ?::DOUBLE)",
                [empty],
            ).fetchall()
        )
    truth = dict(_TRUTH[key])
    assert truth["s3"] == empty
    sql = events_to_sql(
        engine.dialect, rankings="rankings", events="events", k=3, empty_ideal=empty
    )
    assert run(engine, sql) == {q: (pytest.approx(v, abs=TOLERANCE),) for q, v in truth.items()}


# A bad option of the family fails in Python with the macros' own wording.
BAD_OPTIONS = [
    ("err", {"max_grade": 0}),
    ("err", {"max_grade": -1.5}),
    ("err", {"max_grade": None}),
    ("rbp", {"p": 1}),
    ("rbp", {"p": 0}),
    ("rbp", {"p": None}),
    ("rbp_residual", {"p": 1.5}),
    ("recall_at_k", {"denominator": "retrieved"}),
    ("average_precision", {"denominator": "max"}),
    ("average_precision", {"denominator": None}),
]


@pytest.mark.parametrize(("metric", "options"), BAD_OPTIONS)
def test_bad_family_option_has_the_macros_wording(
    reference: duckdb.DuckDBPyConnection, metric: str, options: dict[str, Any]
) -> None:
    truth = expected(reference, metric, "golden", None, options)
    assert isinstance(truth, duckdb.Error)
    with pytest.raises(ValueError) as caught:
        to_sql(metric, "duckdb", table="golden", **options)
    assert str(caught.value) == str(truth).split("duckdb_ndcg: ", 1)[1]


@pytest.mark.parametrize("max_grade", [4, 0.5])
def test_err_grade_outside_the_scale_raises_on_engine(
    engine: Engine, reference: duckdb.DuckDBPyConnection, max_grade: float
) -> None:
    """bad: grades -1 (b1) and 7 (b2); golden: grade 3 above max_grade 0.5 (q1)."""
    table = "bad" if max_grade == 4 else "golden"
    truth = expected(reference, "err", table, None, {"max_grade": max_grade})
    head = f"duckdb_ndcg: err needs grades between 0 and max_grade {max_grade}, got "
    assert isinstance(truth, duckdb.Error) and head in str(truth)
    with pytest.raises(Exception) as caught:
        engine.run(to_sql("err", engine.dialect, table=table, max_grade=max_grade))
    assert ERROR_TEXT.get(engine.dialect, head) in str(caught.value)


def _pytrec_ndcg(k: int) -> dict[str, float]:
    """Independent oracle: trec_eval ndcg_cut.k over the events collapsed in Python."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    grade = {"impression": 0, "view": 0, "click": 1, "add_to_cart": 2, "cart": 2, "purchase": 3}
    qrels: dict[str, dict[str, int]] = {}
    for query_id, item_id, event_type in EVENTS:
        items = qrels.setdefault(query_id, {})
        items[item_id] = max(items.get(item_id, 0), grade[event_type])
    run_: dict[str, dict[str, float]] = {}
    for query_id, item_id, position in RANKINGS:
        run_.setdefault(query_id, {})[item_id] = 1000.0 - position
    measure = f"ndcg_cut.{k}"
    scores = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run_)
    result = {q: s[f"ndcg_cut_{k}"] for q, s in scores.items()}
    # trec_eval skips queries without qrels; the SQL gives them empty_ideal = 0.0. Queries never
    # ranked (s4) are not reported, as by the ndcg_report macro.
    for query_id in {q for q, *_ in RANKINGS}:
        result.setdefault(query_id, 0.0)
    return result


@pytest.mark.parametrize("k", [2, 3, 10])
def test_events_pipeline_matches_ndcg_report_macro(
    reference: duckdb.DuckDBPyConnection, duckdb_engine: Engine, k: int
) -> None:
    """The DuckDB event macro of the core library gives the same per-query NDCG."""
    truth = dict(
        reference.execute(
            "SELECT query_id, ndcg FROM ndcg_report('rankings', 'events', k := ?)", [k]
        ).fetchall()
    )
    got = run(duckdb_engine, events_to_sql("duckdb", rankings="rankings", events="events", k=k))
    assert got == {q: (pytest.approx(v, abs=1e-12),) for q, v in truth.items()}


@pytest.mark.parametrize("k", [2, 3, 10])
def test_events_pipeline_matches_trec_eval(engine: Engine, k: int) -> None:
    got = run(engine, events_to_sql(engine.dialect, rankings="rankings", events="events", k=k))
    truth = _pytrec_ndcg(k)
    assert any(0 < v < 1 for v in truth.values())
    assert got == {q: (pytest.approx(v, abs=1e-9),) for q, v in truth.items()}


def test_events_unknown_type_raises(engine: Engine) -> None:
    assert_engine_raises(
        engine, events_to_sql(engine.dialect, rankings="rankings", events="bad_events")
    )


# One search: the shown item a clicked (grade 1), the unshown item b purchased (grade 3). At full
# depth (k None) the report's ideal is every graded item: NDCG = 1 / (3 + 1 / log2 3) = 0.2754;
# the portable SQL cut the ideal at the one shown row (1 / 3).
_UNSHOWN = {
    "rankings": "SELECT * FROM (VALUES ('s', 'a', 1)) AS r(query_id, item_id, position)",
    "rankings_b": "SELECT * FROM (VALUES ('s', 'b', 1), ('s', 'a', 2)) "
    "AS r(query_id, item_id, position)",
    "events": "SELECT * FROM (VALUES ('s', 'a', 'click'), ('s', 'b', 'purchase')) "
    "AS e(query_id, item_id, event_type)",
}


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite"])
def test_full_depth_ideal_holds_unshown_graded_items(dialect: str) -> None:
    """events_to_sql and compare_to_sql at k None equal ndcg_report's and a hand computation
    (they gave 0.3333 and means 0.333 / 0.733 where the macros gave 0.275 / 0.606)."""
    full = 1 / (3 + 1 / math.log2(3))
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        for name, select in _UNSHOWN.items():
            con.execute(f"CREATE TABLE {name} AS {select}")
        macro = con.execute(
            "SELECT ndcg FROM ndcg_report('rankings', 'events', k := NULL)"
        ).fetchall()
        rows = {name: con.execute(f"FROM {name}").fetchall() for name in _UNSHOWN}
    assert macro == [(pytest.approx(full, abs=1e-12),)]
    if dialect == "sqlite":
        target: Any = sqlite3.connect(":memory:")
        for name, values in rows.items():
            columns = "query_id, item_id, " + ("event_type" if name == "events" else "position")
            target.execute(f"CREATE TABLE {name} ({columns})")
            target.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", values)
    else:
        target = duckdb.connect()
        for name, select in _UNSHOWN.items():
            target.execute(f"CREATE TABLE {name} AS {select}")
    events = events_to_sql(dialect, rankings="rankings", events="events", k=None)
    assert target.execute(events).fetchall() == [("s", pytest.approx(full, abs=1e-12))]
    compare = compare_to_sql(
        dialect, rankings_a="rankings", rankings_b="rankings_b", events="events", k=None
    )
    cursor = target.execute(compare)
    names = [d[0] for d in cursor.description]
    row = dict(zip(names, cursor.fetchall()[0], strict=True))
    assert (row["mean_a"], row["mean_b"]) == (pytest.approx(full, abs=1e-12), pytest.approx(1.0))
    target.close()
