"""The rows click_grades leaves out or grades 0 by rule are counted and reported (issue 23, "bad
input": positions beyond max_rank, clicks without impressions) by the Python and CLI faces, on the
excerpt of SRW's ESCI UBI sample; the counts are taken from the CSV by Python here."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import duckdb
import pytest
from clicks_data import FIXTURES, ROOT, read_csv

import duckdb_ndcg
from duckdb_ndcg import cli

EVENTS = FIXTURES / "srw_esci_events.csv"
UBI = {"query_col": "user_query", "item_col": "object_id", "position_col": "ordinal",
       "action_col": "action_name"}


def expected(max_rank: int) -> tuple[int, int, int]:
    """(rows above max_rank, all rows, pairs with clicks and no impression within max_rank)."""
    rows = read_csv(EVENTS.name)
    beyond = sum(int(r["ordinal"]) > max_rank for r in rows)
    counts: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        if int(r["ordinal"]) <= max_rank:
            c = counts.setdefault((r["user_query"], r["object_id"]), [0, 0])
            c[r["action_name"] == "click"] += 1
    return beyond, len(rows), sum(imps == 0 and clicks > 0 for imps, clicks in counts.values())


def test_python_warns_of_exclusions(log: duckdb.DuckDBPyConnection) -> None:
    beyond, total, unseen = expected(3)
    assert beyond > 0 and unseen > 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rel = duckdb_ndcg.click_grades(str(EVENTS), max_rank=3, con=log, **UBI)
    assert [str(w.message) for w in caught] == [
        f"events {EVENTS}: left out {beyond} of {total} rows whose ordinal is above max_rank 3",
        (f"events {EVENTS}: {unseen} (user_query, object_id) pairs have clicks but no impression: "
        "graded 0 by model := 'coec' (SRW's rule); min_impressions := 1 leaves them out"),
    ]
    assert rel.filter("impressions = 0 AND clicks > 0").count("*").fetchall()[0][0] == unseen
    readme = (ROOT / "README.md").read_text(encoding="utf-8")  # the numbers it quotes
    assert f"left out {beyond} of {total} rows whose ordinal is above max_rank 3" in readme
    assert f"`{unseen} (user_query,\nobject_id) pairs have clicks but no impression" in readme
    # none when nothing is left out: no position above 20, and min_impressions := 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        duckdb_ndcg.click_grades(str(EVENTS), max_rank=20, min_impressions=1, con=log, **UBI)
    assert [str(w.message) for w in caught] == []


def test_cli_reports_exclusions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    beyond, total, unseen = expected(3)
    out = tmp_path / "grades.csv"
    assert cli.main(["grades", str(EVENTS), "--query-col", "user_query", "--item-col",
                     "object_id", "--position-col", "ordinal", "--action-col", "action_name",
                     "--max-rank", "3", "--output", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "warning" in line] == [
        (f"duckdb-ndcg grades: warning: events {EVENTS}: left out {beyond} of {total} rows whose "
        "ordinal is above --max-rank 3"),
        (f"duckdb-ndcg grades: warning: events {EVENTS}: {unseen} (user_query, object_id) pairs "
        "have clicks but no impression: graded 0 by --model coec (SRW's rule); "
        "--min-impressions 1 leaves them out"),
    ]
    with out.open(newline="") as f:
        assert sum(r["impressions"] == "0" for r in csv.DictReader(f)) == unseen
