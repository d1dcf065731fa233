"""click_grades from Python (duckdb_ndcg.click_grades) and the CLI (duckdb-ndcg grades), against
the PyClick fixtures, and their errors in each surface's words."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb
import pytest
from clicks_data import FIXTURES, read_csv

import duckdb_ndcg
from duckdb_ndcg import cli

LOG = str(FIXTURES / "log.csv")


def worst(got: dict, column: str) -> float:
    oracle = read_csv("pyclick_grades.csv")
    assert sorted(got) == sorted((r["query_id"], r["item_id"]) for r in oracle)
    return max(abs(got[r["query_id"], r["item_id"]] - float(r[column])) for r in oracle)


def test_python(log: duckdb.DuckDBPyConnection) -> None:
    rel = duckdb_ndcg.click_grades(LOG, "dctr", con=log, bins=[0.2, 0.4])
    assert rel.columns == ["query_id", "item_id", "rel", "rnk", "impressions", "clicks"]
    got = {(q, d): g for q, d, g, *_ in rel.fetchall()}
    assert {k: float((v >= 0.2) + (v >= 0.4)) for k, v in (
        ((r["query_id"], r["item_id"]), float(r["dctr"])) for r in read_csv("pyclick_grades.csv")
    )} == got
    with pytest.raises(ValueError, match=re.escape(
            "model must be 'coec', 'ctr', 'dctr', 'cascade', 'sdbn', 'pbm' or 'dbn', got 'ubm'")):
        duckdb_ndcg.click_grades(LOG, "ubm", con=log)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "grades.csv"
    code = cli.main(["grades", LOG, "--model", "pbm", "--session-col", "session_id",
                     "--output", str(out)])
    assert code == 0
    with out.open(newline="") as f:
        got = {(r["query_id"], r["item_id"]): float(r["rel"]) for r in csv.DictReader(f)}
    assert worst(got, "pbm") < 1e-12
    capsys.readouterr()
    assert cli.main(["grades", LOG, "--model", "sdbn"]) == cli.DATA
    assert capsys.readouterr().err.strip() == (
        "duckdb-ndcg grades: --model sdbn reads result pages: it needs --session-col <the column "
        "naming one search (a page of results)>")
    assert cli.main(["grades", LOG, "--bins", "2,1"]) == cli.USAGE
    assert "--bins: thresholds must be finite and ascending" in capsys.readouterr().err
