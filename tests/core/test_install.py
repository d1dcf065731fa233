"""``install()`` persists the macros: a fresh process that never imports duckdb_ndcg, and the
DuckDB 1.5 CLI (pip package ``duckdb-cli==1.5.6``) on a ``v1.5.0``-compatible file, get the same
numbers as the registered macros."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg

TABLE = """
CREATE TABLE judged AS SELECT * FROM (VALUES
    ('q1', 'a', 3, 1), ('q1', 'b', 2, 2), ('q1', 'c', 3, 2), ('q1', 'd', 0, 4), ('q1', 'e', 1, NULL),
    ('q1', 'f', NULL, 5), ('q2', 'a', 0.5, 1), ('q2', 'b', 0.1, 3), ('q2', 'c', 0.7, NULL),
    ('q3', 'a', 0, 1), ('q3', 'b', 0, 2)
) AS v(query_id, item_id, rel, rnk)
"""

QUERIES = [
    (
        "SELECT list_cg([3, 2, 3, 0, 1, 2]), list_dcg([3, 2, 3, 0, 1, 2]), list_idcg([3, 2, 2, 1], 4),"
        " list_ndcg([3, 2, 3, 0, 1, 2]),"
        " list_ndcg([0.1, 0.5, 0.7], ideal := [0.1, 0.5, 0.7, 0.5, 0.1]),"
        " list_dcg([3, 2, 3], gain := 'exponential', log_base := 10),"
        " list_ndcg([2, 1, 0], gain := '{0=0, 1=1, 2=3}', k := 5, clamp_k := true)"
    ),
    (
        "SELECT query_id, ndcg(rel, rnk), ndcg(rel, rnk, 2, gain := 'exponential'),"
        " ndcg(rel, rnk, full_ideal := true), ndcg(rel, rnk, empty_ideal := NULL),"
        " ndcg(rel, rnk, 3, ties := 'key', tie_key := item_id), dcg(rel, rnk, log_base := 10),"
        " cg(rel, rnk, 2), idcg(rel, 2), precision_at_k(rel, rnk, 2), recall_at_k(rel, rnk, 3),"
        " reciprocal_rank(rel, rnk, ties := 'key', tie_key := item_id),"
        " average_precision(rel, rnk, ties := 'key', tie_key := item_id),"
        " hit_rate(rel, rnk, 1, ties := 'key', tie_key := item_id)"
        " FROM judged GROUP BY query_id ORDER BY query_id"
    ),
    "SELECT * FROM ndcg_curve('judged', max_k := 4) ORDER BY query_id, k",
    (
        "SELECT query_id, item_id, sum(discounted_gain(rel, rnk)) OVER"
        " (PARTITION BY query_id ORDER BY rnk) FROM judged WHERE rnk IS NOT NULL AND query_id <> 'q1'"
        " ORDER BY query_id, rnk"
    ),
]

# Runs in a fresh interpreter: only duckdb is imported, and we check duckdb_ndcg never was.
CHILD = """
import json, sys
import duckdb
queries = json.loads(sys.argv[2])
with duckdb.connect(sys.argv[1], read_only=True) as con:
    results = [[list(row) for row in con.execute(q).fetchall()] for q in queries]
assert "duckdb_ndcg" not in sys.modules, "the child imported duckdb_ndcg"
print(json.dumps(results))
"""


def reference(con: duckdb.DuckDBPyConnection) -> list[list[list]]:
    con.execute(TABLE)
    return [[list(row) for row in con.execute(q).fetchall()] for q in QUERIES]


def installed_file(tmp_path: Path, version: str | None) -> Path:
    path = tmp_path / "metrics.duckdb"
    duckdb_ndcg.install(path, storage_compatibility_version=version)
    with duckdb.connect(str(path)) as con:
        con.execute(TABLE)
    return path


def same_rows(ours: list[list], theirs: list[list]) -> bool:
    """Equal up to 1e-12 on numbers, exactly on everything else."""
    assert len(ours) == len(theirs)
    for our_row, their_row in zip(ours, theirs, strict=True):
        for a, b in zip(our_row, their_row, strict=True):
            if isinstance(a, float) and b is not None:
                assert a == pytest.approx(float(b), abs=1e-12)
            else:
                assert a == b
    return True


@pytest.mark.parametrize("version", [None, "v1.5.0"])
def test_fresh_process_without_the_package(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, version: str | None
) -> None:
    path = installed_file(tmp_path, version)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), json.dumps(QUERIES)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert json.loads(child.stdout) == json.loads(json.dumps(reference(con)))


def test_macros_are_persistent_not_temporary(tmp_path: Path) -> None:
    path = installed_file(tmp_path, None)
    with duckdb.connect(str(path), read_only=True) as con:
        found = con.execute(
            "SELECT list_sort(list(DISTINCT function_name)) FROM duckdb_functions() "
            "WHERE database_name = 'metrics' AND schema_name = 'main' "
            "AND function_name IN ('ndcg', 'list_ndcg', 'read_qrels', '_ndcg_gain', 'ndcg_curve')"
        ).fetchone()[0]
    assert found == ["_ndcg_gain", "list_ndcg", "ndcg", "ndcg_curve", "read_qrels"]


def test_install_twice_and_into_a_connection(tmp_path: Path) -> None:
    path = tmp_path / "twice.duckdb"
    duckdb_ndcg.install(path)
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path)) as con:
        duckdb_ndcg.install(con)
        assert con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2], 6)").fetchone()[0] == (
            pytest.approx(0.9608081943360616, abs=1e-15)
        )
        with pytest.raises(ValueError, match="storage_compatibility_version"):
            duckdb_ndcg.install(con, storage_compatibility_version="v1.5.0")


def duckdb_15_cli() -> Path | None:
    """The ``duckdb`` executable of the pip package duckdb-cli: next to this interpreter (a
    venv's bin/), else on PATH. None when missing or not a 1.5 CLI."""
    here = Path(sys.executable).parent
    candidates = [here / "duckdb", here / "duckdb.exe"]
    on_path = shutil.which("duckdb")
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            version = subprocess.run(
                [str(candidate), "--version"], capture_output=True, text=True, check=False
            ).stdout
            if version.startswith("v1.5."):
                return candidate
    return None


@pytest.fixture
def cli() -> Path:
    found = duckdb_15_cli()
    if found is None:
        reason = "no DuckDB 1.5 CLI: pip install duckdb-cli==1.5.6 (gives <venv>/bin/duckdb)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def run_cli(cli: Path, path: Path, sql: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cli), "-readonly", "-json", str(path), "-c", sql],
        capture_output=True,
        text=True,
        check=False,
    )


def test_duckdb_15_cli_reads_a_v150_file(
    cli: Path, con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = installed_file(tmp_path, "v1.5.0")
    expected = reference(con)
    for query, rows in zip(QUERIES, expected, strict=True):
        result = run_cli(cli, path, query)
        assert result.returncode == 0, result.stderr
        records = json.loads(result.stdout) if result.stdout.strip() else []
        assert same_rows(rows, [list(record.values()) for record in records])


def test_duckdb_15_cli_cannot_read_a_default_file(cli: Path, tmp_path: Path) -> None:
    """Why the option exists: a file DuckDB 2.0 writes by default is refused by 1.5."""
    result = run_cli(cli, installed_file(tmp_path, None), "SELECT list_ndcg([1, 0])")
    assert result.returncode != 0
    assert "newer version of DuckDB" in result.stderr
