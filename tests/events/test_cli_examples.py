"""The duckdb-ndcg CLI run as a subprocess, and every example run on data it makes itself."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=120, env=env, check=False
    )


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _run(sys.executable, "-m", "duckdb_ndcg.cli", *args, cwd=cwd)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("demo")
    done = _cli("demo", "--queries", "300", "--keep", "demo.duckdb", cwd=work)
    assert done.returncode == 0, done.stderr
    assert "Mean NDCG@k over queries" in done.stdout and "B vs A at NDCG@10" in done.stdout
    # the demo ends its comparison with the verdict: difference, interval, p-value, wins
    assert re.search(
        r"B vs A at NDCG@10: B − A = [+-]\d\.\d+ \[[+-]\d\.\d+, [+-]\d\.\d+\], p [=<] \S+ "
        r"\(paired t-test, Holm\), \d+ wins / \d+ ties / \d+ losses",
        done.stdout,
    ), done.stdout
    page = (work / "ndcg_demo.html").read_text()
    assert page.count("<polyline") == 2 and "ranker A" in page and "<script" not in page
    assert (work / "ndcg_demo.svg").read_text().startswith("<svg")
    # the files the evaluate tests read, made here so that no test depends on another having run
    # first (pytest-xdist spreads them over workers)
    with duckdb.connect(str(work / "demo.duckdb"), read_only=True) as con:
        con.execute(
            "COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A') "
            f"TO '{work / 'a.parquet'}'"
        )
        con.execute(f"COPY demo_events TO '{work / 'events.csv'}'")
    return work


def test_evaluate_files_and_outputs(demo_db: Path) -> None:
    with duckdb.connect(str(demo_db / "demo.duckdb"), read_only=True) as con:
        expected = dict(
            con.execute(
                "SELECT query_id, ndcg FROM ndcg_report('demo_rankings', 'demo_events', k := 5, "
                "slice_by := ['ranker']) WHERE ranker = 'A'"
            ).fetchall()
        )
    for name in ("out.csv", "out.json", "out.parquet"):
        done = _cli(
            "evaluate", "a.parquet", "events.csv", "--k", "5", "--output", name, cwd=demo_db
        )
        assert done.returncode == 0, done.stderr
    rows = json.loads((demo_db / "out.json").read_text())
    assert {r["query_id"]: r["ndcg"] for r in rows} == pytest.approx(expected, abs=1e-12)
    with duckdb.connect() as con:
        for name in ("out.csv", "out.parquet"):
            got = dict(con.execute(f"SELECT query_id, ndcg FROM '{demo_db / name}'").fetchall())
            assert got == pytest.approx(expected, abs=1e-12)
    shown = _cli(
        "evaluate",
        "demo_rankings",
        "demo_events",
        "--db",
        "demo.duckdb",
        "--summary",
        "--k",
        "1,10",
        "--slice-by",
        "ranker",
        "--chart",
        "c.html",
        cwd=demo_db,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].split() == [
        "ranker",
        "k",
        "queries",
        "mean_ndcg",
        "queries_without_relevant",
        "mean_ndcg_with_relevant",
        "shown_relevant",
        "relevant",
        "ci_low",
        "ci_high",
        "mean_judged_at_k",
    ]
    assert len(shown.stdout.splitlines()) == 6 and (demo_db / "c.svg").is_file()


@pytest.mark.parametrize(
    ("args", "message", "exit_code"),  # 2: the command line is wrong; 1: the data (README)
    [
        (
            ["evaluate", "missing.parquet", "events.csv"],
            "rankings file missing.parquet does not exist",
            2,
        ),
        (  # an NDJSON export (UBI, Segment) is a file too, not a table name
            ["evaluate", "missing.ndjson", "events.csv"],
            "rankings file missing.ndjson does not exist",
            2,
        ),
        (
            ["evaluate", "a.parquet", "events.csv", "--query-col", "qid"],
            "rankings a.parquet has no column 'qid' (--query-col)",
            1,
        ),
        (
            ["evaluate", "a.parquet", "events.csv", "--event-col", "kind"],
            "events events.csv has no column 'kind' (--event-col)",
            1,
        ),
        (
            ["evaluate", "demo_rankings", "demo_events", "--db", "demo.duckdb"],
            "rankings table demo_rankings shows item_id",
            1,
        ),
        (
            ["evaluate", "nope", "demo_events", "--db", "demo.duckdb"],
            "rankings table 'nope' does not exist",
            2,
        ),
        (
            ["evaluate", "a.parquet", "events.csv", "--output", "x.xlsx"],
            "use a .csv, .json or .parquet",
            2,
        ),
        (["sql", "no_such_macro"], "no macro named 'no_such_macro'", 2),
    ],
)
def test_errors_are_one_line(demo_db: Path, args: list[str], message: str, exit_code: int) -> None:
    done = _cli(*args, cwd=demo_db)
    assert done.returncode == exit_code
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_install_and_sql(tmp_path: Path) -> None:
    done = _cli("install", "m.duckdb", "--storage-compatibility-version", "v1.4.0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(tmp_path / "m.duckdb")) as con:  # no register(): persisted macros
        assert con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2])").fetchone()[0] == pytest.approx(
            0.9608081943360617, abs=1e-12
        )
    text = _cli("sql", "ndcg_report", cwd=tmp_path)
    assert text.returncode == 0 and "CREATE OR REPLACE MACRO ndcg_report(" in text.stdout


@pytest.mark.parametrize("script", ["quickstart.py", "event_demo.py", "sqlalchemy_bi.py"])
def test_python_examples_run(tmp_path: Path, script: str) -> None:
    done = _run(
        sys.executable,
        str(ROOT / "examples" / script),
        str(tmp_path / "out.html") if script == "event_demo.py" else str(tmp_path / "m.duckdb"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    expected = {
        "quickstart.py": "('socks', 3, 1.0, 2.0, 2.0, 2, 1, 1)",
        "event_demo.py": "chart:",
        "sqlalchemy_bi.py": "NDCG@2: 0.8155 over 2 queries",
    }
    assert expected[script] in done.stdout


@pytest.mark.skipif(
    shutil.which("duckdb", path=str(BIN)) is None and shutil.which("duckdb") is None,
    reason="the duckdb CLI (pip install duckdb-cli) is not installed",
)
def test_duckdb_cli_example(tmp_path: Path) -> None:
    done = _run("sh", str(ROOT / "examples" / "duckdb_cli.sh"), str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "q1,2,0.63093" in done.stdout


def test_sql_dialect_prints_the_portable_statement(tmp_path: Path) -> None:
    """`sql --dialect` prints to_sql's statement; run on DuckDB it gives the macros' numbers."""
    import duckdb_ndcg

    args = ["--k", "2,3", "--ties", "key", "--tie-key", "item_id", "--gain", "exponential"]
    done = _cli("sql", "ndcg", "--dialect", "duckdb", "--table", "run", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = duckdb_ndcg.to_sql(
        "ndcg", "duckdb", table="run", k=[2, 3], ties="key", tie_key="item_id", gain="exponential"
    )
    assert done.stdout.strip() == expected
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            "CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'a', 2, 1.0), ('q', 'b', 0, 1.0),"
            " ('q', 'c', 3, 2.0), ('q', 'd', 1, NULL)) AS t(query_id, item_id, rel, rnk)"
        )
        got = con.execute(done.stdout).fetchall()
        want = con.execute(
            "SELECT query_id,"
            " ndcg(rel, rnk, 2, gain := 'exponential', ties := 'key', tie_key := item_id),"
            " ndcg(rel, rnk, 3, gain := 'exponential', ties := 'key', tie_key := item_id)"
            " FROM run GROUP BY query_id"
        ).fetchall()
    assert got[0][0] == want[0][0] == "q"
    assert got[0][1:] == pytest.approx(want[0][1:], abs=1e-12)
    report = _cli("sql", "events", "--dialect", "postgres", "--rankings", "shown", cwd=tmp_path)
    assert report.returncode == 0 and '"shown"' in report.stdout
    # the portable pipeline is not printed under the macro's name: it lacks slice_by, score_col
    # and the collapse rules, so `sql ndcg_report --dialect` says where it is and what it has
    named = _cli("sql", "ndcg_report", "--dialect", "postgres", cwd=tmp_path)
    assert named.returncode == 2 and "'sql events --dialect ...'" in named.stderr
    assert "--score-col or collapse rules" in named.stderr
