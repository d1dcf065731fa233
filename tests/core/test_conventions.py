"""Each convention as data (dbt-utils style): input rows, an expression, the expected value.

Rows are ``(rel, rnk, item)``: ``rnk`` NULL = judged but not returned (ideal only), ``rel`` NULL =
returned but unjudged (gain 0, not in the ideal). Expected values are written from the formulas,
never computed by the macros under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import log2, log10

import duckdb
import pytest

import duckdb_ndcg

pytestmark = pytest.mark.versions  # tests/core/test_versions_selection.py

L3, L5 = log2(3), log2(5)  # discounts of positions 2 and 4

Row = tuple[float | None, float | None, str]
# Judged grades 1, 0 returned at positions 1, 2; grades 3, 2 judged but not returned.
MISSED: list[Row] = [(1, 1, "a"), (0, 2, "b"), (3, None, "c"), (2, None, "d")]
# A tie group at rnk 2 (grades 0 and 2) straddling a cut at 2.
TIED: list[Row] = [(3, 1, "a"), (0, 2, "b"), (2, 2, "c"), (1, 3, "d")]
# Unjudged returned rows (rel NULL) count as positions with gain 0.
UNJUDGED: list[Row] = [(None, 1, "a"), (2, 2, "b"), (None, 3, "c"), (3, None, "d")]
ALL_ZERO: list[Row] = [(0, 1, "a"), (0, 2, "b"), (0, None, "c")]
NOTHING_JUDGED: list[Row] = [(None, 1, "a"), (None, 2, "b")]
SPARSE_RANKS: list[Row] = [(0, 10, "a"), (2, 20, "b"), (1, 35.5, "c")]
FRACTIONAL: list[Row] = [(0.5, 1, "a"), (0.25, 2, "b"), (0.75, None, "c")]
BINARY: list[Row] = [
    (1, 1, "a"),
    (0, 2, "b"),
    (1, 3, "c"),
    (1, 4, "d"),
    (0, 5, "e"),
    (1, None, "f"),
]

CASES: list[tuple[str, list[Row], str, float | None]] = [
    # k: NULL cuts DCG and IDCG at the returned rows; explicit k cuts IDCG over every judged row.
    ("k-null", MISSED, "ndcg(rel, rnk)", 1 / (3 + 2 / L3)),
    ("k-null-explicit", MISSED, "ndcg(rel, rnk, NULL)", 1 / (3 + 2 / L3)),
    ("k-1", MISSED, "ndcg(rel, rnk, 1)", 1 / 3),
    ("k-4-beyond-list", MISSED, "ndcg(rel, rnk, 4)", 1 / (3 + 2 / L3 + 1 / 2)),
    ("k-4-clamp", MISSED, "ndcg(rel, rnk, 4, clamp_k := true)", 1 / (3 + 2 / L3)),
    ("k-1-clamp-no-effect", MISSED, "ndcg(rel, rnk, 1, clamp_k := true)", 1 / 3),
    ("full-ideal", MISSED, "ndcg(rel, rnk, full_ideal := true)", 1 / (3 + 2 / L3 + 1 / 2)),
    ("full-ideal-k-wins", MISSED, "ndcg(rel, rnk, 1, full_ideal := true)", 1 / 3),
    ("dcg-k-beyond-list", MISSED, "dcg(rel, rnk, 100)", 1.0),
    ("idcg-all", MISSED, "idcg(rel)", 3 + 2 / L3 + 1 / 2),
    ("idcg-k", MISSED, "idcg(rel, 2)", 3 + 2 / L3),
    ("cg-null-rnk-excluded", MISSED, "cg(rel, rnk)", 1.0),
    # empty ideal: 0 by default, NULL on request.
    ("empty-ideal-0", ALL_ZERO, "ndcg(rel, rnk)", 0.0),
    ("empty-ideal-null", ALL_ZERO, "ndcg(rel, rnk, empty_ideal := NULL)", None),
    ("empty-ideal-custom", ALL_ZERO, "ndcg(rel, rnk, 3, empty_ideal := -1)", -1.0),
    ("nothing-judged", NOTHING_JUDGED, "ndcg(rel, rnk)", 0.0),
    ("nothing-judged-null", NOTHING_JUDGED, "ndcg(rel, rnk, empty_ideal := NULL)", None),
    ("nothing-judged-idcg", NOTHING_JUDGED, "idcg(rel)", 0.0),
    ("nothing-judged-dcg", NOTHING_JUDGED, "dcg(rel, rnk)", 0.0),
    # gain
    ("gain-exponential", MISSED, "dcg(rel, rnk, gain := 'exponential')", 1.0),
    ("gain-exponential-ideal", MISSED, "idcg(rel, gain := 'exponential')", 7 + 3 / L3 + 1 / 2),
    (
        "gain-map",
        TIED,
        "dcg(rel, rnk, gain := MAP {0: 0, 1: 1, 2: 3, 3: 7}, ties := 'key', tie_key := item)",
        7 + 3 / L3 + 0 / 2 + 1 / L5,
    ),
    (
        "gain-map-text",
        TIED,
        "dcg(rel, rnk, gain := '{0=0, 1=1, 2=3, 3=7}', ties := 'key', tie_key := item)",
        7 + 3 / L3 + 0 / 2 + 1 / L5,
    ),
    (
        "gain-map-fractional",
        FRACTIONAL,
        "ndcg(rel, rnk, gain := MAP {0.25: 1, 0.5: 2, 0.75: 8})",
        (2 + 1 / L3) / (8 + 2 / L3),
    ),
    ("gain-linear-fractional", FRACTIONAL, "ndcg(rel, rnk)", (0.5 + 0.25 / L3) / (0.75 + 0.5 / L3)),
    # log_base
    (
        "log-base-10",
        MISSED,
        "idcg(rel, log_base := 10)",
        3 / log10(2) + 2 / log10(3) + 1 / log10(4),
    ),
    (
        "log-base-ndcg",
        MISSED,
        "ndcg(rel, rnk, log_base := 10)",
        (1 / log10(2)) / (3 / log10(2) + 2 / log10(3)),
    ),
    # ties := 'average' (default): a tie group shares its mean gain, also across the cut.
    ("ties-average-cut-2", TIED, "dcg(rel, rnk, 2)", 3 + 1 / L3),
    ("ties-average-cut-3", TIED, "dcg(rel, rnk, 3)", 3 + 1 / L3 + 1 / 2),
    ("ties-average-full", TIED, "dcg(rel, rnk)", 3 + 1 / L3 + 1 / 2 + 1 / L5),
    ("ties-average-cg-2", TIED, "cg(rel, rnk, 2)", 4.0),
    ("ties-average-ndcg-2", TIED, "ndcg(rel, rnk, 2)", (3 + 1 / L3) / (3 + 2 / L3)),
    ("ties-average-precision", TIED, "precision_at_k(rel, rnk, 2, threshold := 2)", (1 + 0.5) / 2),
    ("ties-average-recall", TIED, "recall_at_k(rel, rnk, 2, threshold := 2)", (1 + 0.5) / 2),
    # ties := 'key': equal rnk broken by tie_key descending (c before b).
    ("ties-key-cut-2", TIED, "dcg(rel, rnk, 2, ties := 'key', tie_key := item)", 3 + 2 / L3),
    (
        "ties-key-rr",
        TIED,
        "reciprocal_rank(rel, rnk, threshold := 2, ties := 'key', tie_key := item)",
        1.0,
    ),
    (
        "ties-key-ap",
        TIED,
        "average_precision(rel, rnk, threshold := 2, ties := 'key', tie_key := item)",
        (1 + 2 / 2) / 2,
    ),
    # positions follow ascending rnk, whatever its values
    ("sparse-ranks", SPARSE_RANKS, "dcg(rel, rnk)", 0 + 2 / L3 + 1 / 2),
    ("sparse-ranks-rr", SPARSE_RANKS, "reciprocal_rank(rel, rnk)", 1 / 2),
    # NULL rel rows: gain 0, counted as returned positions, not in the ideal.
    ("unjudged-dcg", UNJUDGED, "dcg(rel, rnk)", 2 / L3),
    ("unjudged-ndcg", UNJUDGED, "ndcg(rel, rnk)", (2 / L3) / (3 + 2 / L3 + 0)),
    ("unjudged-ndcg-k1", UNJUDGED, "ndcg(rel, rnk, 1)", 0.0),
    ("unjudged-idcg", UNJUDGED, "idcg(rel)", 3 + 2 / L3),
    ("unjudged-precision", UNJUDGED, "precision_at_k(rel, rnk, 3)", 1 / 3),
    ("unjudged-recall", UNJUDGED, "recall_at_k(rel, rnk)", 1 / 2),
    # family metrics (trec_eval denominators)
    ("precision-k-null", BINARY, "precision_at_k(rel, rnk)", 3 / 5),
    ("precision-k-beyond-list", BINARY, "precision_at_k(rel, rnk, 10)", 3 / 10),
    ("recall-k-3", BINARY, "recall_at_k(rel, rnk, 3)", 2 / 4),
    ("hit-rate-1", BINARY, "hit_rate(rel, rnk, 1)", 1.0),
    ("hit-rate-none", ALL_ZERO, "hit_rate(rel, rnk, 2)", 0.0),
    ("rr-none", ALL_ZERO, "reciprocal_rank(rel, rnk)", 0.0),
    ("ap", BINARY, "average_precision(rel, rnk)", (1 + 2 / 3 + 3 / 4) / 4),
    ("ap-cut-3", BINARY, "average_precision(rel, rnk, 3)", (1 + 2 / 3) / 4),
    ("ap-none", ALL_ZERO, "average_precision(rel, rnk)", 0.0),
    ("recall-none", ALL_ZERO, "recall_at_k(rel, rnk, 2)", 0.0),
    ("threshold-2", TIED, "recall_at_k(rel, rnk, 1, threshold := 2)", 1 / 2),
    (
        "negative-grade-non-relevant",
        [(-1, 1, "a"), (1, 2, "b")],
        "precision_at_k(rel, rnk, 2)",
        1 / 2,
    ),
    (
        "negative-zero",
        [(-1, 1, "a"), (1, 2, "b")],
        "ndcg(rel, rnk, negative := 'zero')",
        (1 / L3) / 1,
    ),
]


@pytest.fixture(scope="module")
def module_con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        yield connection


def load(con: duckdb.DuckDBPyConnection, rows: list[Row], name: str = "judged") -> None:
    con.execute(f"CREATE OR REPLACE TABLE {name} (rel DOUBLE, rnk DOUBLE, item VARCHAR)")
    con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)


@pytest.mark.parametrize(
    ("rows", "expr", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_convention(
    module_con: duckdb.DuckDBPyConnection, rows: list[Row], expr: str, expected: float | None
) -> None:
    load(module_con, rows)
    value = module_con.execute(f"SELECT {expr} FROM judged").fetchone()[0]
    if expected is None:
        assert value is None
    else:
        assert value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("order", ["item ASC", "item DESC", "random()"])
def test_ties_average_ignores_row_order(module_con: duckdb.DuckDBPyConnection, order: str) -> None:
    load(module_con, TIED)
    value = module_con.execute(
        f"SELECT dcg(rel, rnk, 2) FROM (SELECT * FROM judged ORDER BY {order})"
    ).fetchone()[0]
    assert value == pytest.approx(3 + 1 / L3, abs=1e-12)


LIST_CASES: list[tuple[str, str, float | None]] = [
    ("k-null", "list_ndcg([1, 0], ideal := [1, 0, 3, 2])", 1 / (3 + 2 / L3)),
    ("k-4", "list_ndcg([1, 0], 4, ideal := [1, 0, 3, 2])", 1 / (3 + 2 / L3 + 1 / 2)),
    ("clamp", "list_ndcg([1, 0], 4, ideal := [1, 0, 3, 2], clamp_k := true)", 1 / (3 + 2 / L3)),
    (
        "full-ideal",
        "list_ndcg([1, 0], ideal := [1, 0, 3, 2], full_ideal := true)",
        1 / (3 + 2 / L3 + 1 / 2),
    ),
    ("ideal-default-rels", "list_ndcg([1, 3])", (1 + 3 / L3) / (3 + 1 / L3)),
    # a given ideal must dominate rels' gains best first (test_bad_input: ideal-short-*); it need
    # not list the ranking's zeros, unjudged rows or its exact grades
    ("ideal-without-zeros", "list_ndcg([0, 3, NULL], ideal := [1, 3])", (3 / L3) / (3 + 1 / L3)),
    ("ideal-above-rels", "list_ndcg([2, 0], ideal := [3])", 2 / 3),
    ("ideal-by-gain", "list_ndcg([2], ideal := [1], gain := MAP {1: 5, 2: 3})", 3 / 5),
    ("ideal-null-row", "list_ndcg([1, 3], ideal := NULL::INT[])", (1 + 3 / L3) / (3 + 1 / L3)),
    ("empty-ideal-0", "list_ndcg([0, 0])", 0.0),
    ("empty-ideal-null", "list_ndcg([0, 0], empty_ideal := NULL)", None),
    (
        "avg-skips-null",
        "avg(list_ndcg(r, empty_ideal := NULL)) FROM (VALUES ([0, 0]), ([1, 3])) AS t(r)",
        (1 + 3 / L3) / (3 + 1 / L3),
    ),
    (
        "avg-counts-zero",
        "avg(list_ndcg(r)) FROM (VALUES ([0, 0]), ([1, 3])) AS t(r)",
        (1 + 3 / L3) / (3 + 1 / L3) / 2,
    ),
    ("null-grade", "list_dcg([NULL, 2])", 2 / L3),
    ("null-grade-idcg", "list_idcg([NULL, 2, 1])", 2 + 1 / L3),
    ("empty-list", "list_dcg([])", 0.0),
    ("cg-k", "list_cg([3, 2, 3], 2)", 5.0),
    ("exponential", "list_dcg([3, 2], gain := 'exponential')", 7 + 3 / L3),
    ("map", "list_dcg([2, 1], gain := MAP {1: 10, 2: 100})", 100 + 10 / L3),
    ("map-text", "list_dcg([2, 1], gain := '{1=10, 2=100}')", 100 + 10 / L3),
    ("log-base-10", "list_dcg([3, 2], log_base := 10)", 3 / log10(2) + 2 / log10(3)),
    ("k-beyond-list", "list_dcg([3, 2], 10)", 3 + 2 / L3),
]


@pytest.mark.parametrize(
    ("expr", "expected"), [c[1:] for c in LIST_CASES], ids=[c[0] for c in LIST_CASES]
)
def test_list_convention(
    module_con: duckdb.DuckDBPyConnection, expr: str, expected: float | None
) -> None:
    value = module_con.execute(f"SELECT {expr}").fetchone()[0]
    if expected is None:
        assert value is None
    else:
        assert value == pytest.approx(expected, abs=1e-12)


def test_mean_ndcg_skips_empty_ideal_queries(module_con: duckdb.DuckDBPyConnection) -> None:
    load(module_con, [*MISSED, *ALL_ZERO])
    module_con.execute(
        "CREATE OR REPLACE TABLE two AS SELECT *, (row_number() OVER () > 4)::INT AS q FROM judged"
    )
    skip, count = module_con.execute(
        "SELECT avg(n_null), avg(n_zero) FROM (SELECT ndcg(rel, rnk, empty_ideal := NULL) AS "
        "n_null, ndcg(rel, rnk) AS n_zero FROM two GROUP BY q)"
    ).fetchone()
    assert skip == pytest.approx(1 / (3 + 2 / L3), abs=1e-12)
    assert count == pytest.approx(1 / (3 + 2 / L3) / 2, abs=1e-12)


def test_ndcg_curve(module_con: duckdb.DuckDBPyConnection) -> None:
    """NDCG@k for k = 1..max_k per query, with the aggregate's conventions (explicit k)."""
    module_con.execute(
        'CREATE OR REPLACE TABLE "My Runs" (qid VARCHAR, grade DOUBLE, position INTEGER)'
    )
    module_con.executemany(
        'INSERT INTO "My Runs" VALUES (?, ?, ?)',
        [("x", 1, 1), ("x", 0, 2), ("x", 3, None), ("x", 2, None), ("y", 2, 1)],
    )
    rows = module_con.execute(
        "SELECT query_id, k, ndcg FROM ndcg_curve('\"My Runs\"', max_k := 3, query_col := 'qid', "
        "rel_col := 'grade', rnk_col := 'position') ORDER BY query_id, k"
    ).fetchall()
    expected = [
        ("x", 1, 1 / 3),
        ("x", 2, 1 / (3 + 2 / L3)),
        ("x", 3, 1 / (3 + 2 / L3 + 1 / 2)),
        ("y", 1, 1.0),
        ("y", 2, 1.0),
        ("y", 3, 1.0),
    ]
    assert [r[:2] for r in rows] == [e[:2] for e in expected]
    assert [r[2] for r in rows] == pytest.approx([e[2] for e in expected], abs=1e-12)


def test_ndcg_curve_gain_and_log_base(module_con: duckdb.DuckDBPyConnection) -> None:
    load(module_con, MISSED)
    module_con.execute("CREATE OR REPLACE TABLE runs AS SELECT 'q' AS query_id, * FROM judged")
    value = module_con.execute(
        "SELECT ndcg FROM ndcg_curve('runs', max_k := 2, gain := 'exponential', log_base := 10) "
        "WHERE k = 2"
    ).fetchone()[0]
    assert value == pytest.approx((1 / log10(2)) / (7 / log10(2) + 3 / log10(3)), abs=1e-12)


def test_discounted_gain_running_window(module_con: duckdb.DuckDBPyConnection) -> None:
    """sum(discounted_gain) OVER (ORDER BY rnk) is DCG at every rank: the list_dcg of each prefix."""
    grades = [3, 2, 3, 0, 1, 2]
    running = module_con.execute(
        "SELECT sum(discounted_gain(rel, rnk)) OVER (ORDER BY rnk), "
        "sum(discounted_gain(rel, rnk, gain := 'exponential', log_base := 10)) OVER (ORDER BY rnk) "
        "FROM (SELECT unnest($1) AS rel, generate_subscripts($1, 1) AS rnk) ORDER BY rnk",
        [grades],
    ).fetchall()
    for p, (linear, exponential) in enumerate(running, 1):
        prefix = grades[:p]
        assert linear == pytest.approx(
            sum(g / log2(i + 1) for i, g in enumerate(prefix, 1)), abs=1e-12
        )
        assert exponential == pytest.approx(
            sum((2**g - 1) / log10(i + 1) for i, g in enumerate(prefix, 1)), abs=1e-12
        )
    assert running[-1][0] == pytest.approx(6.861126688593501, abs=1e-12)
