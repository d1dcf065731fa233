"""compare_to_sql (the paired t-test per slice and cutoff) on real engines, against the DuckDB
compare_summary / compare_rankers macros and scipy.stats.ttest_rel; the closed forms of Student's
t against scipy.stats.t over a grid; events_to_sql's slice_by against ndcg_report."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import pytest
import sqlglot
from conftest import Engine
from sqlglot import exp

from duckdb_ndcg.portable import DIALECTS, _ttest, compare_to_sql, events_to_sql

stats = pytest.importorskip("scipy.stats")

# Tolerances from the measured error of the closed forms (test_t_distribution_error_bounds):
# p-value within 2.1e-12 of scipy, quantile within 3.3e-13 relative at conf 0.95 (half-widths
# here are below 1); the rest is rounding of sums in a different order (~1e-15).
P_TOLERANCE = 1e-11
CI_TOLERANCE = 1e-11
MEAN_TOLERANCE = 1e-12
KS = [1, 3, None]
ARGS = {"rankings_a": "cmp_a", "rankings_b": "cmp_b", "events": "cmp_events"}

# The macros' rows for one statement, computed once for all five engines (the session's reference
# connection is read-only: the same statement gives the same rows every time).
_TRUTH: dict[tuple[str, tuple[Any, ...]], list[tuple[Any, ...]]] = {}


def _truth(
    reference: duckdb.DuckDBPyConnection, sql: str, parameters: tuple[Any, ...] = ()
) -> list[tuple[Any, ...]]:
    if (sql, parameters) not in _TRUTH:
        _TRUTH[(sql, parameters)] = reference.execute(sql, list(parameters)).fetchall()
    return list(_TRUTH[(sql, parameters)])


def _pairs(
    reference: duckdb.DuckDBPyConnection,
) -> dict[tuple[str, Any], list[tuple[float, float]]]:
    rows = _truth(
        reference,
        "SELECT device, k, ndcg_a, ndcg_b FROM compare_rankers('cmp_a', 'cmp_b', 'cmp_events', "
        "k := [1, 3, NULL], slice_by := ['device'])",
    )
    pairs: dict[tuple[str, Any], list[tuple[float, float]]] = {}
    for device, k, a, b in rows:
        pairs.setdefault((device, k), []).append((a, b))
    return pairs


def _close(got: Any, want: Any, tolerance: float) -> bool:
    if want is None:
        return got is None
    return got is not None and not math.isnan(got) and abs(got - want) <= tolerance


def test_compare_matches_macros_and_scipy(
    engine: Engine, reference: duckdb.DuckDBPyConnection
) -> None:
    sql = compare_to_sql(engine.dialect, k=KS, slice_by=["device"], **ARGS)
    got = {(r[0], r[1]): r[2:] for r in engine.run(sql)}
    summary = _truth(
        reference,
        "SELECT device, k, queries, mean_a, mean_b, mean_diff, ci_low, ci_high, p_value, wins, "
        "ties, losses FROM compare_summary('cmp_a', 'cmp_b', 'cmp_events', k := [1, 3, NULL], "
        "slice_by := ['device'])",
    )
    pairs = _pairs(reference)
    assert set(got) == {(r[0], r[1]) for r in summary}
    assert {n for n, *_ in got.values()} >= {1, 4, 5, 24, 40}  # both formulas, degenerate rows
    for device, k, n, mean_a, mean_b, mean_diff, ci_low, ci_high, p, wins, ties, losses in summary:
        row = dict(zip(_COLUMNS, got[(device, k)], strict=True))
        where = (engine.dialect, device, k)
        assert (row["queries"], row["wins"], row["ties"], row["losses"]) == (
            n,
            wins,
            ties,
            losses,
        ), where
        for name, want in (("mean_a", mean_a), ("mean_b", mean_b), ("mean_diff", mean_diff)):
            assert _close(row[name], want, MEAN_TOLERANCE), (where, name)
        a, b = zip(*pairs[(device, k)], strict=True)
        if n >= 2 and len({y - x for x, y in zip(a, b, strict=True)}) > 1:
            oracle = stats.ttest_rel(b, a)
            low, high = oracle.confidence_interval(0.95)
            truth = {
                "t": float(oracle.statistic),
                "df": float(oracle.df),
                "p_value": float(oracle.pvalue),
                "ci_low": float(low),
                "ci_high": float(high),
                "sd_diff": float(stats.tstd([y - x for x, y in zip(a, b, strict=True)])),
            }
            for name, want in truth.items():
                assert _close(row[name], want, P_TOLERANCE), (where, name, row[name], want)
        # the macro, degenerate rows included (NULL below 2 queries, p 1 or 0 when constant)
        assert _close(row["p_value"], p, P_TOLERANCE), (where, row["p_value"], p)
        assert _close(row["ci_low"], ci_low, CI_TOLERANCE), where
        assert _close(row["ci_high"], ci_high, CI_TOLERANCE), where
        if n < 2:
            assert row["sd_diff"] is None and row["t"] is None and row["df"] is None, where
        elif row["t"] is None:  # constant differences
            assert row["sd_diff"] == 0 and row["df"] == n - 1, where


@pytest.mark.parametrize("empty", [0.0, 1.0, None])
def test_compare_empty_ideal_matches_compare_summary(
    engine: Engine, reference: duckdb.DuckDBPyConnection, empty: float | None
) -> None:
    """empty_ideal reaches both rankers' NDCG: s3 (no events) scores it, or with NULL leaves
    the pairs, as in compare_summary."""
    sql = compare_to_sql(
        engine.dialect,
        rankings_a="rankings",
        rankings_b="rankings_b",
        events="events",
        k=3,
        empty_ideal=empty,
    )
    (row,) = engine.run(sql)
    (truth,) = _truth(
        reference,
        "SELECT k, queries, mean_a, mean_b, mean_diff, p_value, wins, ties, losses FROM "
        "compare_summary('rankings', 'rankings_b', 'events', k := 3, empty_ideal := ?::DOUBLE)",
        (empty,),
    )
    got = dict(zip(("k", *_COLUMNS), row, strict=True))
    assert (got["k"], got["queries"], got["wins"], got["ties"], got["losses"]) == (
        truth[0],
        truth[1],
        *truth[6:],
    )
    assert got["queries"] == (2 if empty is None else 3)
    for name, want in zip(("mean_a", "mean_b", "mean_diff"), truth[2:5], strict=True):
        assert _close(got[name], want, MEAN_TOLERANCE), (name, got[name], want)
    assert _close(got["p_value"], truth[5], P_TOLERANCE)


_COLUMNS = (
    "queries",
    "mean_a",
    "mean_b",
    "mean_diff",
    "sd_diff",
    "t",
    "df",
    "p_value",
    "ci_low",
    "ci_high",
    "wins",
    "ties",
    "losses",
)


def test_result_columns(duckdb_engine: Engine) -> None:
    with duckdb.connect() as con:
        for name in ("cmp_a", "cmp_b"):
            con.execute(
                f'CREATE TABLE "{name}" (query_id TEXT, item_id TEXT, position BIGINT, device TEXT)'
            )
        con.execute('CREATE TABLE "cmp_events" (query_id TEXT, item_id TEXT, event_type TEXT)')
        cursor = con.execute(compare_to_sql("duckdb", slice_by=["device"], **ARGS))
        assert [d[0] for d in cursor.description] == ["device", "k", *_COLUMNS]
        assert cursor.fetchall() == []


# t in [0, 1000] (fine below 10) and df from 1 to 10^6 (every df below 400).
GRID_DF = sorted(set(range(1, 400)) | {round(10 ** (2.6 + i * 3.4 / 79)) for i in range(80)})
GRID_T = [i / 40 for i in range(401)] + [10 ** (1 + i * 2 / 59) for i in range(60)]
# The measured maxima (stated in duckdb_ndcg/portable/_ttest.py and compare_to_sql's docstring).
P_MEASURED = 2.1e-12
Q_MEASURED = {0.5: 1.6e-13, 0.95: 3.4e-13, 0.99: 2.4e-12, 0.999: 2.6e-11}


def _stages_sql(source: str, conf: float, dialect: str, body: exp.Expression | None = None) -> str:
    """The statistics CTEs over table `source` (or over the CTE `source` AS `body`)."""
    query = exp.select("dd", "tt", "t", "p_value", "ci_high", "mean_diff", "_se").from_("_tt4")
    if body is not None:
        query = query.with_(exp.to_identifier(source, quoted=True), as_=body)
    for name, stage in _ttest.stages(source, conf):
        query = query.with_(exp.to_identifier(name, quoted=True), as_=stage)
    return query.sql(dialect)


@pytest.mark.parametrize("conf", sorted(Q_MEASURED))
def test_t_distribution_error_bounds(conf: float) -> None:
    """The SQL closed forms against scipy.stats.t on 220,000 (t, df) points, run in DuckDB:
    the p-value's absolute error and the quantile's relative error stay at the stated bounds."""
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    rows = [(d + 1, t / math.sqrt(d + 1), 1.0, t, d) for d in GRID_DF for t in GRID_T]
    frame = pd.DataFrame(rows, columns=["queries", "mean_diff", "sd_diff", "tt", "dd"])
    with duckdb.connect() as con:
        con.register("grid_view", frame)
        con.execute("CREATE TABLE grid AS SELECT * FROM grid_view")
        result = np.array(con.execute(_stages_sql("grid", conf, "duckdb")).fetchall(), dtype=float)
    df, _, t, p, high, mean, se = result.T
    p_error = np.abs(p - 2 * stats.t.sf(np.abs(t), df))
    assert p_error.max() <= P_MEASURED
    assert p_error.max() > P_MEASURED / 2  # the bound is the measured one, not a loose one
    quantile = stats.t.ppf((1 + conf) / 2, df)
    q_error = np.abs((high - mean) / se - quantile) / quantile
    assert q_error.max() <= Q_MEASURED[conf]


def test_quantile_table_is_exact() -> None:
    """The table below df = 100, by bisection on the exact series: within 1e-12 relative (the
    series loses a few bits near P = 1, e.g. 1.6e-13 at df = 1, conf = 0.999)."""
    for conf in (0.5, 0.9, 0.95, 0.99, 0.999):
        for df in range(1, _ttest.TABLE_BELOW):
            want = stats.t.ppf((1 + conf) / 2, df)
            assert _ttest.t_quantile(conf, df) == pytest.approx(want, rel=1e-12), (conf, df)


# A small grid on every engine: both p-value formulas, far tails (EXP underflow on PostgreSQL),
# the quantile table and the expansion.
ENGINE_DF = [1, 2, 3, 4, 5, 10, 28, 29, 30, 31, 99, 100, 101, 1000, 100000]
ENGINE_T = [0.0, 0.3, 1.675, 2.0, 5.0, 30.0, 300.0]


def _union(column: str, values: list[float]) -> exp.Expression:
    """SELECT CAST(v AS DOUBLE) AS column, one branch per value, UNION ALL."""
    selects = [
        exp.select(exp.alias_(exp.cast(exp.Literal.number(repr(float(v))), "DOUBLE"), column))
        for v in values
    ]
    source = selects[0]
    for select in selects[1:]:
        source = exp.union(source, select, distinct=False)
    return source


def test_t_distribution_on_engine(engine: Engine) -> None:
    # the grid as the cross join of its two axes (22 UNION branches, not one per point: Spark and
    # ClickHouse plan each branch, 17 s for 105 of them); mean_diff t / sqrt(n) with sd 1 has the
    # statistic t, up to the engine's rounding, which the assertions read back from the engine
    source = (
        exp.select(
            exp.alias_(exp.cast(exp.column("dd") + 1, "BIGINT"), "queries"),
            exp.alias_(exp.column("tt") / exp.Sqrt(this=exp.column("dd") + 1), "mean_diff"),
            exp.alias_(exp.cast(exp.Literal.number("1.0"), "DOUBLE"), "sd_diff"),
            "tt",
            "dd",
        )
        .from_(_union("dd", ENGINE_DF).subquery("degrees"))
        .join(_union("tt", ENGINE_T).subquery("points"), join_type="CROSS")
    )
    rows = [(d, t) for d in ENGINE_DF for t in ENGINE_T]
    got = engine.run(_stages_sql("grid", 0.95, engine.dialect, source))
    assert sorted((dd, tt) for dd, tt, *_ in got) == sorted(rows)
    for dd, tt, t, p, high, mean, se in got:
        assert p == pytest.approx(2 * stats.t.sf(abs(t), dd), abs=P_MEASURED), (dd, tt)
        quantile = stats.t.ppf(0.975, dd)
        assert (high - mean) / se == pytest.approx(quantile, rel=Q_MEASURED[0.95]), (dd, tt)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_compare_sql_round_trip(dialect: str) -> None:
    """Every dialect parses back to the same SQL; every division has a float operand; no LOG,
    POWER, GREATEST/LEAST or anonymous function beyond the engine's error function."""
    sql = compare_to_sql(dialect, k=[5, 10], slice_by=["device", "day"], **ARGS)
    tree = sqlglot.parse_one(sql, read=dialect)
    assert tree.sql(dialect) == sql
    assert not list(tree.find_all(exp.Log)) and not list(tree.find_all(exp.Greatest))
    assert not list(tree.find_all(exp.Least))
    assert any(cte.alias == "_tt4" for cte in tree.find_all(exp.CTE))
    for division in tree.find_all(exp.Div):
        assert division.find(exp.Cast, exp.Ln, exp.Sqrt, exp.Avg), division.sql(dialect)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"conf": 1}, "conf must be a number between 0 and 1"),
        ({"conf": 0.0}, "conf must be a number between 0 and 1"),
        ({"conf": True}, "conf must be a number between 0 and 1"),
        ({"slice_by": ["k"]}, "slice_by column 'k' clashes"),
        ({"slice_by": ["query_id"]}, "slice_by column 'query_id' clashes"),
        ({"slice_by": ["device", "device"]}, "slice_by lists a column twice"),
        ({"slice_by": [""]}, "slice_by must name columns"),
        ({"k": [5, 5]}, "k lists a cutoff twice"),
        ({"ties": "first"}, "ties must be"),
        ({"mapping": {}}, "mapping must be a non-empty"),
    ],
)
def test_bad_arguments(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare_to_sql("postgres", **{**ARGS, **arguments})


def test_events_slices_match_ndcg_report(
    engine: Engine, reference: duckdb.DuckDBPyConnection
) -> None:
    sql = events_to_sql(
        engine.dialect, rankings="cmp_a", events="cmp_events", k=[3, None], slice_by=["device"]
    )
    got = {(r[0], r[1]): r[2:] for r in engine.run(sql)}
    truth: dict[tuple[str, str], dict[Any, float]] = {}
    for query_id, device, k, ndcg in _truth(
        reference,
        "SELECT query_id, device, k, ndcg FROM ndcg_report('cmp_a', 'cmp_events', "
        "k := [3, NULL], slice_by := ['device'])",
    ):
        truth.setdefault((query_id, device), {})[k] = ndcg
    assert set(got) == set(truth)
    for key, values in truth.items():
        assert got[key] == (
            pytest.approx(values[3], abs=1e-12),
            pytest.approx(values[None], abs=1e-12),
        ), key
