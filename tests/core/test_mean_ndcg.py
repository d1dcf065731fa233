"""mean_ndcg and its family: the mean over queries of a metric, whatever a BI tool groups by.

The oracle is ndcg itself grouped by (BI group, query) and then averaged per BI group, the way an
analyst would write it by hand; the hand-computed case checks the numbers from the formulas.
"""

from __future__ import annotations

from functools import cache
from math import log2

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import duckdb_ndcg

OPTIONS = [
    "",
    ", gain := 'exponential'",
    ", ties := 'key', tie_key := item",
    ", log_base := 10",
    ", empty_ideal := NULL",
    ", clamp_k := true",
    ", gain := MAP {0: 0, 0.5: 1, 1: 2, 2: 5, 3: 9}",
]

ROW = st.tuples(
    st.integers(0, 5),  # query_id
    st.sampled_from([None, 0, 0, 0.5, 1, 2, 3]),  # rel
    st.one_of(st.none(), st.integers(1, 6)),  # rnk: small keys give many ties
    st.sampled_from(["mobile", "desktop"]),  # device
    st.integers(0, 2),  # day
)


def _load(con: duckdb.DuckDBPyConnection, rows: list[tuple]) -> None:
    con.execute(
        "CREATE OR REPLACE TABLE judged (query_id INT, rel DOUBLE, rnk INT, device VARCHAR, "
        "day INT, item INT)"
    )
    con.executemany(
        "INSERT INTO judged VALUES (?, ?, ?, ?, ?, ?)",
        [(*row, i) for i, row in enumerate(rows)],
    )


SETS = "GROUPING SETS ((), (device), (day), (device, day))"


@cache
def _registered() -> duckdb.DuckDBPyConnection:
    """One connection with the macros for every example of the property tests (registering
    them takes 0.3 s of CPU; each example replaces the table)."""
    con = duckdb.connect()
    duckdb_ndcg.register(con)
    return con


def _compare(con: duckdb.DuckDBPyConnection, k: int | None, options: str, metric: str) -> None:
    """mean_<metric>(query_id, ...) in each BI group == avg of <metric> per (BI group, query), for
    the groupings none, device, day, and device and day (one GROUPING SETS query each side)."""
    k_sql = "NULL" if k is None else str(k)
    measure = con.execute(
        f"SELECT GROUPING(device, day), device, day, "
        f"mean_{metric}(query_id, rel, rnk, {k_sql}{options}) FROM judged GROUP BY {SETS}"
    ).fetchall()
    per_query = con.execute(
        "SELECT g, device, day, avg(v) FROM ("
        "  SELECT GROUPING(device, day) AS g, device, day,"
        f"         {metric}(rel, rnk, {k_sql}{options}) AS v"
        "   FROM judged GROUP BY GROUPING SETS ((query_id), (device, query_id), (day, query_id),"
        "                                       (device, day, query_id))"
        ") GROUP BY g, device, day"
    ).fetchall()
    measure_by = {tuple(row[:3]): row[3] for row in measure}
    expected_by = {tuple(row[:3]): row[3] for row in per_query}
    assert measure_by.keys() == expected_by.keys()
    assert {key[0] for key in expected_by} == {0, 1, 2, 3}  # every grouping is there
    for key, expected in expected_by.items():
        if expected is None:  # every query of the group has an empty ideal and empty_ideal NULL
            assert measure_by[key] is None, (key, options)
        else:
            assert measure_by[key] == pytest.approx(expected, abs=1e-12), (key, options)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(ROW, min_size=1, max_size=40),
    k=st.sampled_from([None, 1, 2, 3, 10]),
    options=st.sampled_from(OPTIONS),
)
def test_mean_ndcg_is_the_mean_of_per_query_ndcg_under_every_grouping(
    rows: list[tuple], k: int | None, options: str
) -> None:
    con = _registered()
    _load(con, rows)
    # mean_ndcg refuses a group without a ranked row (the signature of a slice NULL on the
    # judged-only rows; tested in tests/examples/test_use_from.py): each (device, day) gets one
    # ranked, unjudged row below every other (rnk 7, rel NULL) in one of its queries
    con.execute(
        "INSERT INTO judged SELECT min(query_id), NULL, 7, device, day, 1000 + min(item) "
        "FROM judged GROUP BY device, day"
    )
    _compare(con, k, options, "ndcg")


def test_mean_ndcg_default_k_is_10(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE judged AS SELECT i // 12 AS query_id, (i * 7) % 4 AS rel, i % 12 AS rnk "
        "FROM range(36) t(i)"
    )
    assert con.execute("SELECT mean_ndcg(query_id, rel, rnk) FROM judged").fetchone()[0] == (
        pytest.approx(
            con.execute(
                "SELECT avg(v) FROM (SELECT ndcg(rel, rnk, 10) AS v FROM judged GROUP BY query_id)"
            ).fetchone()[0],
            abs=1e-15,
        )
    )


# Two queries on one device: q1 is perfect (3 at position 1), q2 has its only relevant item at
# position 2. Pooled into one ranking, the two rows at rnk 1 and the two at rnk 2 form tie groups.
POOLED = [(1, 3, 1, "mobile"), (1, 0, 2, "mobile"), (2, 0, 1, "mobile"), (2, 1, 2, "mobile")]


def test_pooling_queries_is_not_the_mean(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE judged (query_id INT, rel DOUBLE, rnk INT, device VARCHAR)")
    con.executemany("INSERT INTO judged VALUES (?, ?, ?, ?)", POOLED)
    mean, pooled = con.execute(
        "SELECT mean_ndcg(query_id, rel, rnk, 2), ndcg(rel, rnk, 2) FROM judged GROUP BY device"
    ).fetchone()
    assert mean == pytest.approx((1 + (1 / log2(3)) / 1) / 2, abs=1e-12)
    # pooled: positions 1-2 share (3 + 0) / 2 each, positions 3-4 are past k; ideal 3, 1
    tie_12 = (1 + 1 / log2(3)) / 2
    assert pooled == pytest.approx(1.5 * tie_12 * 2 / (3 + 1 / log2(3)), abs=1e-12)
    assert pooled != pytest.approx(mean, abs=1e-3)


def test_mean_ndcg_reports_ndcg_errors(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match="negative grade"):
        con.execute(
            "SELECT mean_ndcg(q, rel, rnk) FROM (VALUES (1, -1, 1)) v(q, rel, rnk)"
        ).fetchall()
    with pytest.raises(duckdb.Error, match="k must be a positive whole number"):
        con.execute(
            "SELECT mean_ndcg(q, rel, rnk, 0) FROM (VALUES (1, 1, 1)) v(q, rel, rnk)"
        ).fetchall()


def test_mean_ndcg_of_no_rows_is_null(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute(
        "SELECT mean_ndcg(q, rel, rnk) FROM (VALUES (1, 1, 1)) v(q, rel, rnk) WHERE q > 1"
    ).fetchone() == (None,)


FAMILY = ["precision_at_k", "recall_at_k", "hit_rate", "reciprocal_rank", "average_precision"]


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(ROW, min_size=1, max_size=40),
    k=st.sampled_from([None, 1, 3, 10]),
    threshold=st.sampled_from([1, 2]),
    metric=st.sampled_from(FAMILY),
)
def test_mean_family_is_the_mean_of_per_query_values(
    rows: list[tuple], k: int | None, threshold: int, metric: str
) -> None:
    # ties broken by item: hit_rate, reciprocal_rank and average_precision refuse averaged ties
    options = f", threshold := {threshold}, ties := 'key', tie_key := item"
    con = _registered()
    _load(con, rows)
    _compare(con, k, options, metric)


@pytest.mark.parametrize("metric", FAMILY)
def test_mean_family_reports_the_metric_errors(con: duckdb.DuckDBPyConnection, metric: str) -> None:
    with pytest.raises(duckdb.Error, match="needs tie_key"):
        con.execute(
            f"SELECT mean_{metric}(q, rel, rnk, 2, ties := 'key') "
            "FROM (VALUES (1, 1, 1), (1, 0, 2), (2, 1, 1)) v(q, rel, rnk)"
        ).fetchall()


@pytest.mark.parametrize("metric", ["ndcg", *FAMILY])
def test_null_query_id_is_an_error(con: duckdb.DuckDBPyConnection, metric: str) -> None:
    with pytest.raises(duckdb.Error, match="query_id is NULL"):
        con.execute(
            f"SELECT mean_{metric}(q, rel, rnk, 2) "
            "FROM (VALUES (1, 1, 1), (NULL, 0, 2), (2, 1, 1)) v(q, rel, rnk)"
        ).fetchall()


def test_mean_ndcg_refuses_a_group_without_a_ranked_row(con: duckdb.DuckDBPyConnection) -> None:
    # q1 ranked on mobile (b at 2, grade 1, and c graded 2 but not shown: ideal only) with the
    # device taken from the run side: c's row has device NULL, a group of no ranked row
    con.execute(
        "CREATE TABLE judged AS SELECT * FROM (VALUES ('q1', 0, 1, 'mobile'), "
        "('q1', 1, 2, 'mobile'), ('q1', 2, NULL, NULL)) t(query_id, rel, rnk, device)"
    )
    with pytest.raises(duckdb.Error, match=r"mean_ndcg: no row of the group is ranked \(rnk NULL "
                       r"on all 1 queries' rows\)"):
        con.execute(
            "SELECT device, mean_ndcg(query_id, rel, rnk, 10) FROM judged GROUP BY device"
        ).fetchall()
    # the device per query: the ideal holds c; (1 / log2 3) / (2 + 1 / log2 3) by hand
    by_query = con.execute(
        "SELECT mean_ndcg(query_id, rel, rnk, 10) FROM (SELECT * EXCLUDE (device), "
        "max(device) OVER (PARTITION BY query_id) AS device FROM judged) GROUP BY device"
    ).fetchall()
    assert by_query == [(pytest.approx((1 / log2(3)) / (2 + 1 / log2(3)), abs=1e-12),)]
