"""``duckdb-ndcg demo --keep file.duckdb``: the file opens in the DuckDB 1.4 and 1.5 CLIs and the
SQL the demo prints gives there what it gives in the demo's own DuckDB."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from duckdb_ndcg import cli


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A new demo.duckdb written by the demo, and the SQL the demo says to run on it."""
    work = tmp_path_factory.mktemp("keep")
    path = work / "demo.duckdb"
    out = subprocess.run(
        [
            sys.executable, "-m", "duckdb_ndcg.cli", "demo", "--queries", "60",
            "--keep", str(path), "--chart", str(work / "demo.html"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    sql = re.search(r"or in SQL on .*?:\s+(SELECT .*;)$", out, re.MULTILINE)
    assert sql is not None, out
    return path, sql.group(1)


def test_kept_file_has_the_oldest_supported_storage(kept: tuple[Path, str]) -> None:
    with duckdb.connect(str(kept[0]), read_only=True) as con:
        storage = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() "
            "WHERE database_name = current_database()"
        ).fetchone()[0]
    assert storage == "v1.4.0+"


def test_older_clis_run_the_printed_sql(duckdb_cli: Path, kept: tuple[Path, str]) -> None:
    path, sql = kept
    with duckdb.connect(str(path), read_only=True) as con:
        expected = [list(row) for row in con.execute(sql.rstrip(";") + " ORDER BY ALL").fetchall()]
    result = subprocess.run(
        [str(duckdb_cli), "-readonly", "-json", str(path), "-c", sql.rstrip(";") + " ORDER BY ALL"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    got = [list(record.values()) for record in json.loads(result.stdout)]
    assert len(got) == len(expected) == 8  # rankers A and B at k 1, 3, 5, 10
    for ours, theirs in zip(expected, got, strict=True):
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_keep_refuses_a_files_own_demo_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--keep into a file that already has demo_events / demo_rankings (the user's): one line
    naming them, the file untouched; --replace overwrites them."""
    path = tmp_path / "mine.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE demo_events AS SELECT 'mine' AS note")
        con.execute("CREATE VIEW demo_rankings AS SELECT 42 AS answer")
        con.execute("CREATE TABLE results AS SELECT 1 AS x")
    before = path.read_bytes()
    argv = ["demo", "--queries", "30", "--keep", str(path), "--chart", str(tmp_path / "d.html")]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "mine.duckdb already has demo_events, demo_rankings" in err[0]
    assert "--replace" in err[0]
    assert path.read_bytes() == before
    assert cli.main([*argv, "--replace"]) == 0
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(DISTINCT ranker) FROM demo_rankings").fetchone()[0] == 2
        assert con.execute("SELECT count(*) FROM demo_events").fetchone()[0] > 30
        assert con.execute("SELECT x FROM results").fetchone()[0] == 1


def test_keep_replaces_its_own_earlier_demo(tmp_path: Path) -> None:
    """Rerunning the demo into the file it kept before needs no --replace."""
    argv = ["demo", "--queries", "20", "--chart", str(tmp_path / "d.html")]
    assert cli.main([*argv, "--keep", str(tmp_path / "demo.duckdb")]) == 0
    assert cli.main([*argv, "--seed", "8", "--keep", str(tmp_path / "demo.duckdb")]) == 0
    with duckdb.connect(str(tmp_path / "demo.duckdb"), read_only=True) as con:
        assert con.execute(
            "SELECT comment FROM duckdb_tables() WHERE table_name = 'demo_events'"
        ).fetchone()[0] == "duckdb_ndcg demo (seed 8, 20 queries)"
