"""Rank keys that a DOUBLE cannot tell apart (issue 20, item 19): integers beyond 2^53 and
DECIMAL keys of more than 15 significant digits.

The report path (ndcg_report, and so evaluate(), compare() and the CLI) ordered a ranking by its
position or score cast to DOUBLE, so keys 2^60 and 2^60 + 1 were one value and tied: NDCG 0.815
where the clicked item is first (1.0). By hand: two items, the clicked one ranked first gives
NDCG 1; ranked second (the higher score first) 1 / log2(3).
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest

from duckdb_ndcg import cli, compare, evaluate

FIRST, SECOND = 1.0, 1 / math.log2(3)

# (type, the clicked item's key, the other item's key): each pair is one DOUBLE
KEYS = [
    ("BIGINT", str(2**60), str(2**60 + 1)),
    ("UBIGINT", str(2**63 + 2), str(2**63 + 3)),
    ("HUGEINT", str(-(2**70)), str(-(2**70) + 1)),
    ("UHUGEINT", str(2**100), str(2**100 + 1)),
    ("DECIMAL(18,0)", "123456789012345678", "123456789012345679"),
    ("DECIMAL(18,3)", "123456789012345.678", "123456789012345.679"),
    ("DECIMAL(38,10)", "1234567890123.0000000001", "1234567890123.0000000002"),
]


@pytest.fixture
def keyed(con: duckdb.DuckDBPyConnection, request: pytest.FixtureRequest) -> duckdb.DuckDBPyConnection:
    kind, clicked, other = request.param
    assert float(clicked) == float(other)  # the case is a collision in DOUBLE
    con.execute(
        f"CREATE TABLE shown AS SELECT query_id, item_id, position, position AS score "
        f"FROM (VALUES ('q', 'a', {clicked}::{kind}), ('q', 'b', {other}::{kind})) "
        "AS t(query_id, item_id, position)"
    )
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, 'a' AS item_id, "
                "'click' AS event_type")
    return con


@pytest.mark.parametrize("keyed", KEYS, indirect=True, ids=[k[0] for k in KEYS])
def test_report_orders_wide_keys_exactly(keyed: duckdb.DuckDBPyConnection) -> None:
    by_position = keyed.execute("SELECT ndcg FROM ndcg_report('shown', 'events')").fetchall()
    by_score = keyed.execute(
        "SELECT ndcg FROM ndcg_report('shown', 'events', score_col := 'score')").fetchall()
    assert by_position == [(pytest.approx(FIRST, abs=1e-12),)]
    assert by_score == [(pytest.approx(SECOND, abs=1e-12),)]
    summary = keyed.execute("SELECT mean_ndcg FROM ndcg_summary('shown', 'events')").fetchall()
    assert summary == [(pytest.approx(FIRST, abs=1e-12),)]


@pytest.mark.parametrize("keyed", KEYS[:1] + KEYS[4:5], indirect=True, ids=["BIGINT", "DECIMAL"])
def test_evaluate_and_compare_order_wide_keys_exactly(keyed: duckdb.DuckDBPyConnection) -> None:
    ndcg = evaluate("shown", "events", con=keyed, k=None).df()["ndcg"].tolist()
    assert ndcg == [pytest.approx(FIRST, abs=1e-12)]
    scored = evaluate("shown", "events", con=keyed, k=None, score_col="score").df()
    assert scored["ndcg"].tolist() == [pytest.approx(SECOND, abs=1e-12)]
    # B ranks by score (the clicked item second), A by position (first): B - A = 1/log2(3) - 1
    keyed.execute("CREATE TABLE shown_b AS SELECT query_id, item_id, -score AS position FROM shown")
    row = compare("shown", "shown_b", "events", con=keyed, k=None).df().iloc[0]
    assert (row["mean_a"], row["mean_b"]) == (pytest.approx(FIRST, abs=1e-12),
                                              pytest.approx(SECOND, abs=1e-12))


def test_cli_orders_wide_keys_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A CSV's positions beyond 2^53 are read as BIGINT, and the CLI's NDCG orders them."""
    monkeypatch.chdir(tmp_path)
    Path("shown.csv").write_text(f"query_id,item_id,position\nq,a,{2**60}\nq,b,{2**60 + 1}\n")
    Path("events.csv").write_text("query_id,item_id,event_type\nq,a,click\n")
    code = cli.main(["evaluate", "shown.csv", "events.csv", "--output", "out.csv"])
    assert code == 0, capsys.readouterr().err
    with duckdb.connect() as con:
        got = con.execute("SELECT ndcg FROM read_csv('out.csv')").fetchall()
    assert got == [(pytest.approx(FIRST, abs=1e-12),)]


@pytest.mark.parametrize("keyed", KEYS, indirect=True, ids=[k[0] for k in KEYS])
def test_run_report_orders_wide_keys_exactly(keyed: duckdb.DuckDBPyConnection) -> None:
    """run_report, the spilling route for judged runs, grouped and ordered the keys as DOUBLE."""
    keyed.execute("CREATE TABLE run AS SELECT query_id, item_id, (item_id = 'a')::INTEGER AS rel, "
                  "position AS rnk FROM shown")
    got = keyed.execute("SELECT metric, k, value FROM run_report('run', k := [1, 2], "
                        "metrics := ['ndcg', 'precision_at_k']) ORDER BY ALL").fetchall()
    assert got == [("ndcg", 1, 1.0), ("ndcg", 2, 1.0),
                   ("precision_at_k", 1, 1.0), ("precision_at_k", 2, 0.5)]
