"""duckdb_ndcg.evaluate(): every relation it returns stays right, whatever is called after it."""

from __future__ import annotations

import math
import warnings

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from duckdb_ndcg.evaluate import evaluate

SHOWN_A = [("q1", "a", 1), ("q1", "b", 2), ("q2", "c", 1), ("q2", "d", 2)]
SHOWN_B = [("q1", "b", 1), ("q1", "a", 2), ("q2", "d", 1), ("q2", "c", 2)]
EVENTS = [("q1", "a", "purchase"), ("q1", "b", "click"), ("q2", "d", "click")]


@pytest.fixture
def logs(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    for name, rows in (("ranker_a", SHOWN_A), ("ranker_b", SHOWN_B)):
        con.execute(f"CREATE TABLE {name}(query_id VARCHAR, item_id VARCHAR, position INT)")
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", EVENTS)
    return con


def _ndcg(rows: list[tuple]) -> dict[str, float]:
    return {row[0]: round(row[2], 12) for row in rows}


def test_an_earlier_result_keeps_its_own_numbers(logs: duckdb.DuckDBPyConnection) -> None:
    """Both calls once read fixed-name views, so the second silently changed the first."""
    a = evaluate("ranker_a", "events", con=logs)
    alone = _ndcg(a.fetchall())
    b = evaluate("ranker_b", "events", con=logs)
    assert _ndcg(a.fetchall()) == alone
    assert _ndcg(b.fetchall()) != alone
    assert alone == {"q1": 1.0, "q2": round(1 / 1.5849625007211562, 12)}


def test_files_and_frames_of_one_connection_stay_apart(
    logs: duckdb.DuckDBPyConnection, tmp_path
) -> None:
    path = tmp_path / "b.parquet"
    logs.execute("COPY ranker_b TO ? (FORMAT PARQUET)", [str(path)])
    a = evaluate("ranker_a", "events", con=logs)
    b = evaluate(str(path), "events", con=logs)
    frame = evaluate(pd.DataFrame(SHOWN_B, columns=["query_id", "item_id", "position"]),
                     "events", con=logs)
    assert _ndcg(b.fetchall()) == _ndcg(frame.fetchall()) != _ndcg(a.fetchall())


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_data_frames_are_accepted(logs: duckdb.DuckDBPyConnection, kind: str) -> None:
    columns = ["query_id", "item_id", "position"]
    shown = pd.DataFrame(SHOWN_A, columns=columns)
    events = pd.DataFrame(EVENTS, columns=["query_id", "item_id", "event_type"])
    convert = {
        "pandas": lambda df: df,
        "polars": pl.from_pandas,
        "arrow": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    }[kind]
    got = evaluate(convert(shown), convert(events), con=logs, k=[1, 2])
    want = evaluate("ranker_a", "events", con=logs, k=[1, 2])
    assert sorted(got.fetchall()) == sorted(want.fetchall())


def test_a_frame_without_a_column_is_named(logs: duckdb.DuckDBPyConnection) -> None:
    shown = pd.DataFrame({"query_id": ["q1"], "item": ["a"], "position": [1]})
    with pytest.raises(ValueError, match="rankings data frame has no column 'item_id'"):
        evaluate(shown, "events", con=logs)


def test_ignore_unknown_drops_and_warns(logs: duckdb.DuckDBPyConnection) -> None:
    """unknown='ignore' failed with 'connection has an unfinished result' every time."""
    logs.execute("INSERT INTO events VALUES ('q2', 'c', 'like'), ('q2', 'c', 'share')")
    with pytest.raises(duckdb.Error, match="event types the mapping lacks: like, share"):
        evaluate("ranker_a", "events", con=logs).fetchall()
    with pytest.warns(UserWarning, match=r"ignored 2 rows whose event type is not in the mapping \(like, share\)"):
        got = evaluate("ranker_a", "events", con=logs, unknown="ignore")
    assert _ndcg(got.fetchall()) == {"q1": 1.0, "q2": round(1 / 1.5849625007211562, 12)}


def test_events_that_match_no_shown_item_warn(logs: duckdb.DuckDBPyConnection) -> None:
    """Upper-cased ids in the events gave mean NDCG 0.0000 with no word of why."""
    logs.execute("CREATE TABLE upper_events AS SELECT query_id, upper(item_id) AS item_id, "
                 "event_type FROM events")
    with pytest.warns(UserWarning, match=r"only 0 of 3 graded \(query, item\) pairs sampled"):
        rows = evaluate("ranker_a", "upper_events", con=logs).fetchall()
    assert {row[2] for row in rows} == {0.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate("ranker_a", "events", con=logs)


def test_huge_cutoffs_reach_the_whole_ranking(logs: duckdb.DuckDBPyConnection) -> None:
    whole = evaluate("ranker_a", "events", con=logs, k=[None]).fetchall()
    for k in (999_999, 2**63 - 1, 10**30):
        got = evaluate("ranker_a", "events", con=logs, k=k).fetchall()
        assert _ndcg(got) == _ndcg(whole)


def test_repeated_cutoffs_are_refused(logs: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=r"k lists a cutoff more than once"):
        evaluate("ranker_a", "events", con=logs, k=[5, 5], shape="summary").fetchall()


@pytest.mark.parametrize("option", ["ties", "collapse", "unknown", "duplicates", "gain"])
def test_none_settings_are_refused(logs: duckdb.DuckDBPyConnection, option: str) -> None:
    with pytest.raises(ValueError, match=rf"{option} must be"):
        evaluate("ranker_a", "events", con=logs, **{option: None})


def test_log_base_reaches_the_macro(logs: duckdb.DuckDBPyConnection) -> None:
    """log_base 10 gives ndcg_report's DCG and IDCG in that base: the base-2 values times
    ln 10 / ln 2 (every discount log_b(p + 1) scales alike, so NDCG, their ratio, is the same)."""
    columns = "query_id, k, ndcg, dcg, idcg"
    macro = logs.execute(
        f"SELECT {columns} FROM ndcg_report('ranker_a', 'events', log_base := 10) ORDER BY ALL"
    ).fetchall()
    got = evaluate("ranker_a", "events", con=logs, log_base=10).select(columns).order("ALL")
    base2 = evaluate("ranker_a", "events", con=logs).select(columns).order("ALL")
    for mine, theirs, default in zip(got.fetchall(), macro, base2.fetchall(), strict=True):
        assert mine[:2] == theirs[:2] == default[:2]
        assert mine[2:] == pytest.approx(theirs[2:], abs=1e-12)
        assert mine[2] == pytest.approx(default[2], abs=1e-12)
        assert mine[3:] == pytest.approx([v * math.log(10) / math.log(2) for v in default[3:]])
    with pytest.raises(ValueError, match=r"log_base must be a finite number greater than 1"):
        evaluate("ranker_a", "events", con=logs, log_base=1)


@pytest.mark.versions
def test_a_result_without_con_outlives_the_call() -> None:
    """Without con=, evaluate() and compare() made a connection of their own; on DuckDB 1.4 a
    relation does not keep its connection alive, so the returned relation (and one derived from
    it) failed with 'Connection has already been closed' once the call returned."""
    import gc

    from duckdb_ndcg import compare

    a = pd.DataFrame(SHOWN_A, columns=["query_id", "item_id", "position"])
    b = pd.DataFrame(SHOWN_B, columns=["query_id", "item_id", "position"])
    events = pd.DataFrame(EVENTS, columns=["query_id", "item_id", "event_type"])
    report = evaluate(a, events)
    ordered = evaluate(b, events).order("query_id")
    verdicts = compare(a, b, events)
    gc.collect()
    # by hand: q1 a(3) b(1): A dcg 3 + 1/log2(3), ideal the same -> 1; B 1 + 3/log2(3) over it
    ideal = 3 + 1 / math.log2(3)
    assert _ndcg(report.fetchall()) == {"q1": 1.0, "q2": round(1 / math.log2(3), 12)}
    assert _ndcg(ordered.fetchall()) == {"q1": round((1 + 3 / math.log2(3)) / ideal, 12), "q2": 1.0}
    (row,) = verdicts.fetchall()
    assert row[verdicts.columns.index("queries")] == 2
