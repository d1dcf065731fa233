"""duckdb_ndcg.compare(), verdict() and the ``duckdb-ndcg compare`` command."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest
from scipy import stats

import duckdb_ndcg
from duckdb_ndcg import demo
from duckdb_ndcg.cli import main
from duckdb_ndcg.inputs import macro_arguments

ROOT = Path(__file__).resolve().parents[2]
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
        texts = [rel.columns.index(name) for name in ("device", "test", "correction")]
        numbers = [i for i in range(len(rel.columns)) if i not in texts]
        assert [mine[i] for i in texts] == [theirs[i] for i in texts] == [mine[0], "sign", "bh"]
        assert [mine[i] for i in numbers] == pytest.approx([theirs[i] for i in numbers],
                                                           rel=1e-12, abs=1e-15)


def test_eps_and_log_base_reach_the_macro(
    files: Path, con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eps 1.0 makes every query a tie, as compare_summary(eps := 1.0) counts; log_base is
    passed as log_base := 10 (NDCG itself does not depend on the base: every discount scales
    alike), and the macro takes it."""
    a, b, ev = (str(files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    passed: list[dict] = []

    def spy(macro: str, values: dict) -> tuple[str, list]:
        arguments, params = macro_arguments(macro, values)
        assert "eps := ?" in arguments and "log_base := ?" in arguments
        passed.append(values)
        return arguments, params

    monkeypatch.setattr(compare_module, "macro_arguments", spy)
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
           "test": "t", "correction": "holm", "wins": 412, "ties": 96, "losses": 301,
           "queries_filled": 0}
    assert duckdb_ndcg.verdict(row) == (
        "B − A = +0.021 [+0.008, +0.034], p = 0.002 (paired t-test, Holm), "
        "412 wins / 96 ties / 301 losses")
    row |= {"mean_diff": -0.5, "ci_low": None, "ci_high": None, "p_adjusted": 3.2e-9,
            "test": "wilcoxon", "correction": "none", "queries_filled": 7}
    assert duckdb_ndcg.verdict(row) == (
        "B − A = -0.500 [n/a, n/a], p = 3.2e-09 (Wilcoxon, uncorrected), "
        "412 wins / 96 ties / 301 losses, 7 queries filled with 0")


def test_verdict_names_the_test_and_correction_of_its_row(
    files: Path, con: duckdb.DuckDBPyConnection
) -> None:
    """The row carries the test and correction it was computed with; the verdict names them
    (it said '(Holm)' after a Wilcoxon test corrected by Bonferroni)."""
    a, b, ev = (str(files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    rel = duckdb_ndcg.compare(a, b, ev, test="wilcoxon", correction="bonferroni", con=con)
    row = dict(zip(rel.columns, rel.fetchall()[0], strict=True))
    assert (row["test"], row["correction"]) == ("wilcoxon", "bonferroni")
    assert "(Wilcoxon, Bonferroni)" in duckdb_ndcg.verdict(row)
    with pytest.raises(ValueError, match="row was computed with test 'wilcoxon', not 'sign'"):
        duckdb_ndcg.verdict(row, test="sign")
    del row["test"]
    with pytest.raises(ValueError, match="row has no 'test' column: pass test="):
        duckdb_ndcg.verdict(row)
    assert "(sign test, Bonferroni)" in duckdb_ndcg.verdict(row, test="sign")


@pytest.mark.parametrize("p, printed", [
    (0.0, "p < 1e-300"), (5e-324, "p < 1e-300"), (2.2e-301, "p < 1e-300"),
    (1e-300, "p = 1.0e-300"), (3.8e-112, "p = 3.8e-112"), (0.0009, "p = 9.0e-04"),
    (0.001, "p = 0.001"), (1.0, "p = 1.000"), (None, "p = n/a"),
])
def test_verdict_p_value(p: float | None, printed: str) -> None:
    """A p-value that underflows (a t-tail beyond DOUBLE's range comes back 0) is not 0."""
    row = {"mean_diff": 0.1, "ci_low": 0.05, "ci_high": 0.15, "p_adjusted": p, "test": "t",
           "correction": "holm", "wins": 3, "ties": 0, "losses": 1, "queries_filled": 0}
    assert f", {printed} (paired t-test, Holm)," in duckdb_ndcg.verdict(row)


def test_readme_statistics_loop_prints_labeled_lines(files: Path) -> None:
    """The README's Python loop of the Statistics section is, verbatim, part of
    examples/compare_verdicts.py; run, it prints one labeled line per (device, k)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Statistics", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"<!-- from (\S+) -->\n```\w*\n(.*?)```", section, flags=re.DOTALL)
    assert [source for source, _ in blocks] == ["examples/compare_verdicts.py"]
    lines = [line.strip() for line in blocks[0][1].strip().splitlines()]
    text = [line.strip() for line in (ROOT / blocks[0][0]).read_text(encoding="utf-8").splitlines()]
    assert any(text[i : i + len(lines)] == lines for i in range(len(text) - len(lines) + 1))
    done = subprocess.run([sys.executable, str(ROOT / blocks[0][0]), str(files / "run")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert len(printed) == 6, printed
    pattern = (r"device=(desktop|mobile|tablet), NDCG@(5|10), \d+ queries: B − A = [+-]\d\.\d{3} "
               r"\[[+-]\d\.\d{3}, [+-]\d\.\d{3}\], p \S+ \S+ \(paired t-test, Holm\), "
               r"\d+ wins / \d+ ties / \d+ losses"
               # a ranker whose top k is more than 10 % unjudged is named at the end
               r"(; (A|B|A: \d+ %, B): \d+ % of (its|their) top (5|10) judged \(the rest have no "
               r"event in the log and score 0\))?")
    assert all(re.fullmatch(pattern, line) for line in printed), printed
    assert len({line.split(":")[0] for line in printed}) == 6  # each (device, k) once


@pytest.mark.parametrize("option, message", [
    ({"test": "z"}, "test must be 't', 'wilcoxon', 'sign' or 'randomization', got 'z'"),
    ({"correction": "fdr"}, "correction must be 'holm', 'bonferroni', 'bh' or 'none', got 'fdr'"),
    ({"query_set": "all"}, "query_set must be 'both', 'either', 'a' or 'b', got 'all'"),
    ({"eps": -0.1}, "eps must be a finite number >= 0"),
    ({"log_base": 1}, "log_base must be a finite number greater than 1"),
    ({"conf": 1.0}, "conf must be a number between 0 and 1"),
    ({"resamples": 0}, "resamples must be a whole number"),
    ({"seed": None}, "seed must be an integer or text, got None"),
    ({"seed": 1.5}, "seed must be an integer or text, got 1.5"),
    ({"eps": float("nan")}, "eps must be a finite number >= 0, got nan"),
    ({"slice_by": ["nope"]}, "neither rankings_a .* nor events .* has a column 'nope'"),
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
               r"[+-]\d\.\d{3}\], p \S+ \S+ \(paired t-test, Holm\), \d+ wins / \d+ ties / \d+ losses"
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
    assert code == 1  # found in the data
    assert err.startswith("duckdb-ndcg compare: neither rankings_a") and "(--slice-by)" in err
    assert len(err.strip().splitlines()) == 1


def test_compare_refuses_nan_scores(files: Path, con: duckdb.DuckDBPyConnection) -> None:
    """compare(empty_ideal=nan) with the sign test counted every NaN query as a win."""
    with pytest.raises(duckdb.Error, match=r"the NDCG@10 of query \{.*\} is NaN or infinite"):
        duckdb_ndcg.compare(str(files / "a.parquet"), str(files / "b.parquet"),
                            str(files / "events.parquet"), empty_ideal=float("nan"),
                            test="sign", con=con).fetchall()


@pytest.fixture
def ab_files(tmp_path: Path) -> Path:
    """An online A/B test: each query served by one arm (A or B), no query shared; and a pair
    whose rankers share 3 queries in 4 (B leaves every fourth out)."""
    with duckdb.connect() as con:
        demo.generate(con, queries=400)
        for r, keep in (("A", 0), ("B", 1)):
            con.execute(f"COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = '{r}' "
                        f"AND hash(query_id) % 2 = {keep}) TO '{tmp_path / r.lower()}.parquet'")
        con.execute(f"COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'B' "
                    f"AND hash(query_id || 'p') % 4 <> 0) TO '{tmp_path / 'b_most.parquet'}'")
        con.execute(f"COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A') "
                    f"TO '{tmp_path / 'a_all.parquet'}'")
        con.execute(f"COPY demo_events TO '{tmp_path / 'events.parquet'}'")
    return tmp_path


def _arm_values(ab_files: Path, arm: str, k: int = 10) -> list[float]:
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        return [v for v, in con.execute("SELECT ndcg FROM ndcg_report(?, ?, k := ?)",
                                        [str(ab_files / f"{arm}.parquet"),
                                         str(ab_files / "events.parquet"), k]).fetchall()]


@pytest.mark.parametrize("query_set", ["both", "either", "a"])
def test_compare_refuses_disjoint_query_sets(ab_files: Path, query_set: str,
                                            con: duckdb.DuckDBPyConnection) -> None:
    """Arms that share no query gave '0 queries, p = n/a' (both) or a paired t-test of zero-filled
    pairs, B - A = -0.061, p = 3.8e-112 (either): an error pointing at the unpaired comparison."""
    a, b, ev = (str(ab_files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    with pytest.raises(duckdb.Error, match=r"rankers A and B both showed 0 of the \d+ queries at "
                       r"NDCG@10 \(fewer than half\): a paired comparison does not apply.*"
                       r"compare\(\.\.\., unpaired=True\), duckdb-ndcg compare --unpaired"):
        duckdb_ndcg.compare(a, b, ev, query_set=query_set, con=con).fetchall()


def test_compare_with_most_queries_shared_is_paired(ab_files: Path,
                                                    con: duckdb.DuckDBPyConnection) -> None:
    """3 queries in 4 shared: the paired test applies; the filled queries are counted and named
    on the verdict line."""
    a, b, ev = (str(ab_files / f) for f in ("a_all.parquet", "b_most.parquet", "events.parquet"))
    rows = duckdb_ndcg.compare(a, b, ev, query_set="either", con=con)
    row = dict(zip(rows.columns, rows.fetchall()[0], strict=True))
    assert 0 < row["queries_filled"] < row["queries"] / 2
    # the count follows the wins / ties / losses (a judged-share note may follow it)
    assert re.search(rf"losses, {row['queries_filled']} queries filled with 0(;|$)",
                     duckdb_ndcg.verdict(row))


def test_compare_unpaired_equals_scipy_welch(ab_files: Path,
                                            con: duckdb.DuckDBPyConnection) -> None:
    a, b, ev = (str(ab_files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    rel = duckdb_ndcg.compare(a, b, ev, unpaired=True, conf=0.9, con=con)
    row = dict(zip(rel.columns, rel.fetchall()[0], strict=True))
    va, vb = np.array(_arm_values(ab_files, "a")), np.array(_arm_values(ab_files, "b"))
    want = stats.ttest_ind(vb, va, equal_var=False)
    ci = want.confidence_interval(0.9)
    assert (row["queries_a"], row["queries_b"]) == (len(va), len(vb))
    assert (row["mean_diff"], row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
        (vb.mean() - va.mean(), ci.low, ci.high, want.pvalue), abs=1e-9)
    assert (row["test"], row["correction"]) == ("welch", "holm")
    assert "(Welch t-test, Holm)" in duckdb_ndcg.verdict(row)
    with pytest.raises(ValueError, match="unpaired=True is Welch's t-test: test must be 't'"):
        duckdb_ndcg.compare(a, b, ev, unpaired=True, test="sign", con=con)


def test_cli_ab_test(ab_files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, ev = (str(ab_files / f) for f in ("a.parquet", "b.parquet", "events.parquet"))
    code = main(["compare", a, b, ev])
    err = capsys.readouterr().err
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "both showed 0 of the" in err and "duckdb-ndcg compare --unpaired" in err
    assert main(["compare", a, b, ev, "--unpaired", "--k", "5,10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    pattern = (r"NDCG@(5|10), (\d+) \+ (\d+) queries \(A \+ B\): B − A = [+-]\d\.\d{3} "
               r"\[[+-]\d\.\d{3}, [+-]\d\.\d{3}\], p \S+ \S+ \(Welch t-test, Holm\)")
    assert len(lines) == 2 and all(re.fullmatch(pattern, line) for line in lines), lines
    n_a, n_b = re.fullmatch(pattern, lines[1]).groups()[1:]
    assert (int(n_a), int(n_b)) == (len(_arm_values(ab_files, "a")), len(_arm_values(ab_files, "b")))
    assert main(["compare", a, b, ev, "--unpaired", "--test", "wilcoxon"]) == 2
    assert "--unpaired is Welch's t-test" in capsys.readouterr().err


def test_cli_prints_queries_filled(ab_files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, ev = (str(ab_files / f) for f in ("a_all.parquet", "b_most.parquet", "events.parquet"))
    assert main(["compare", a, b, ev, "--query-set", "either"]) == 0
    line = capsys.readouterr().out.strip()
    assert re.search(r"losses, \d+ queries filled with 0(;|$)", line), line
