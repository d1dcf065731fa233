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
