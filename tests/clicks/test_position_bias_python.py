"""duckdb_ndcg.position_bias, the Python face of the position_bias macro, against the
ultr-bias-toolkit and PyClick fixtures (tests/fixtures/clicks/), and its errors in the macro's
words."""

from __future__ import annotations

import re

import duckdb
import pytest
from clicks_data import FIXTURES, read_csv

import duckdb_ndcg

LOG = str(FIXTURES / "log.csv")


def test_python_equals_the_oracles(log: duckdb.DuckDBPyConnection) -> None:
    rel = duckdb_ndcg.position_bias(LOG, "pivot", con=log)
    assert rel.columns == ["position", "propensity", "impressions", "clicks", "pairs", "note"]
    got = {p: v for p, v, *_ in rel.fetchall()}
    oracle = {int(r["position"]): float(r["pivot"]) for r in read_csv("ultr_bias.csv")}
    assert got.keys() == oracle.keys()
    assert max(abs(got[p] - v) for p, v in oracle.items()) < 1e-12
    exam = {int(r["position"]): float(r["pbm_exam"]) for r in read_csv("pyclick_exam.csv")}
    pbm = dict(duckdb_ndcg.position_bias(LOG, "pbm", session_col="session_id", con=log)
               .select("position, propensity").fetchall())
    assert max(abs(pbm[p] - v / exam[1]) for p, v in exam.items()) < 1e-12


def test_python_errors(log: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match=re.escape(
            "method must be 'ctr_ratio', 'pivot', 'adjacent_chain' or 'pbm', got 'naive'")):
        duckdb_ndcg.position_bias(LOG, "naive", con=log)
    with pytest.raises(duckdb.Error, match=re.escape(
            "method := 'pbm' reads result pages: it needs session_col")):
        duckdb_ndcg.position_bias(LOG, "pbm", con=log).fetchall()
