"""duckdb_ndcg.compare(), verdict() and the ``duckdb-ndcg compare`` command."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import demo
from duckdb_ndcg.cli import main
from duckdb_ndcg.evaluate import report_arguments

# the module: the package's name compare is the function
compare_module = importlib.import_module("duckdb_ndcg.compare")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    with duckdb.connect() as con:
        demo.generate(con, queries=300)
        for r in ("A", "B"):
            con.execute(f"COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = '{r}') "
                        f"TO '{tmp_path / r.lower()}.parquet'")
        con.execute(f"COPY demo_events TO '{tmp_path / 'events.parquet'}'")
    return tmp_path


def test_compare_equals_the_macro(files: Path, con: duckdb.DuckDBPyConnection) -> None:
    a, b, ev = (str(files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    rel = duckdb_ndcg.compare(a, b, ev, k=[3, 10], slice_by=["device"], test="sign",
                              correction="bh", con=con)
    want = con.execute("SELECT * FROM compare_summary(?, ?, ?, k := [3, 10], "
                       "slice_by := ['device'], test := 'sign', correction := 'bh')",
                       [a, b, ev]).fetchall()
    got = rel.fetchall()
    # parallel aggregation sums in any order: the last digit of a mean may differ between runs
    assert len(want) == 6 and len(got) == 6
    for mine, theirs in zip(got, want, strict=True):
        assert mine[0] == theirs[0]
        assert mine[1:] == pytest.approx(theirs[1:], rel=1e-12, abs=1e-15)


def test_eps_and_log_base_reach_the_macro(
    files: Path, con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eps 1.0 makes every query a tie, as compare_summary(eps := 1.0) counts; log_base is
    passed as log_base := 10 (NDCG itself does not depend on the base: every discount scales
    alike), and the macro takes it."""
    a, b, ev = (str(files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    passed: list[dict] = []

    def spy(options: dict) -> tuple[str, list]:
        passed.append(dict(options))
        return report_arguments(options)

    monkeypatch.setattr(compare_module, "report_arguments", spy)
    columns = "queries, wins, ties, losses"
    default = duckdb_ndcg.compare(a, b, ev, con=con).select(columns).fetchall()
    wide = duckdb_ndcg.compare(a, b, ev, eps=1.0, log_base=10, con=con).select(columns)
    want = con.execute(f"SELECT {columns} FROM compare_summary(?, ?, ?, eps := 1.0, "
                       "log_base := 10)", [a, b, ev]).fetchall()
    assert wide.fetchall() == want == [(default[0][0], 0, default[0][0], 0)]
    assert default[0][1] + default[0][3] > 0
    assert (passed[0]["eps"], passed[0]["log_base"]) == (0.0, 2)
    assert (passed[1]["eps"], passed[1]["log_base"]) == (1.0, 10)


def test_verdict_wording() -> None:
    row = {"mean_diff": 0.0214, "ci_low": 0.0081, "ci_high": 0.0342, "p_adjusted": 0.0021,
           "wins": 412, "ties": 96, "losses": 301}
    assert duckdb_ndcg.verdict(row) == (
        "B − A = +0.021 [+0.008, +0.034], p = 0.002 (Holm), 412 wins / 96 ties / 301 losses")
    row |= {"mean_diff": -0.5, "ci_low": None, "ci_high": None, "p_adjusted": 3.2e-9}
    assert duckdb_ndcg.verdict(row, test="wilcoxon", correction="none") == (
        "B − A = -0.500 [n/a, n/a], p = 3.2e-09 (Wilcoxon, uncorrected), "
        "412 wins / 96 ties / 301 losses")


@pytest.mark.parametrize("option, message", [
    ({"test": "z"}, "test must be 't', 'wilcoxon', 'sign' or 'randomization', got 'z'"),
    ({"correction": "fdr"}, "correction must be 'holm', 'bonferroni', 'bh' or 'none', got 'fdr'"),
    ({"query_set": "all"}, "query_set must be 'both', 'either', 'a' or 'b', got 'all'"),
    ({"eps": -0.1}, "eps must be a finite number >= 0"),
    ({"log_base": 1}, "log_base must be a finite number greater than 1"),
    ({"conf": 1.0}, "conf must be a number between 0 and 1"),
    ({"resamples": 0}, "resamples must be a whole number"),
    ({"slice_by": ["nope"]}, "rankings_a .* has no column 'nope'"),
])
def test_compare_bad_options(files: Path, option: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        duckdb_ndcg.compare(str(files / "a.parquet"), str(files / "b.parquet"),
                            str(files / "events.parquet"), **option)


def test_cli_prints_a_verdict_per_row(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compare", str(files / "a.parquet"), str(files / "b.parquet"),
                 str(files / "events.parquet"), "--k", "5,10", "--slice-by", "device",
                 "--output", str(files / "out.csv")])
    out = capsys.readouterr()
    assert code == 0
    lines = out.out.splitlines()
    assert len(lines) == 6
    pattern = (r"device=\w+, NDCG@(5|10), \d+ queries: B − A = [+-]\d\.\d{3} \[[+-]\d\.\d{3}, "
               r"[+-]\d\.\d{3}\], p = \S+ \(Holm\), \d+ wins / \d+ ties / \d+ losses"
               # the demo's rankers each leave some 10 % of their top 10 unjudged
               r"(; (A|B|A: \d+ %, B): \d+ % of (its|their) top (5|10) judged \(the rest have no "
               r"event in the log and score 0\))?")
    assert all(re.fullmatch(pattern, line) for line in lines), lines
    assert "wrote 6 rows" in out.err
    with duckdb.connect() as con:
        assert con.execute("SELECT count(*) FROM read_csv(?)", [str(files / "out.csv")]
                           ).fetchone()[0] == 6


def test_cli_bad_input_is_one_line(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compare", str(files / "a.parquet"), str(files / "b.parquet"),
                 str(files / "events.parquet"), "--slice-by", "nope"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("duckdb-ndcg compare: rankings_a") and "(--slice-by)" in err
    assert len(err.strip().splitlines()) == 1
