"""Shared fixtures: an in-memory connection with every macro registered; the DuckDB CLIs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg

# The macros' in-memory database, shared by the tests of one worker process: creating the macros
# costs about 0.3 s of CPU, several hundred times a run. Each test gets a cursor of its own (a
# connection to the same database: its temporary objects and session settings go with it) and
# leaves the database as it found it: the tables and views it made are dropped; a test that
# changed anything else (a global setting such as memory_limit, a macro, an attached database, a
# schema, a sequence or a type) leaves a database that is set aside and made anew.
_STATE = """
SELECT (SELECT list((name, value) ORDER BY name) FROM duckdb_settings()),
       (SELECT list(database_name ORDER BY database_name) FROM duckdb_databases()),
       (SELECT list((schema_name, comment) ORDER BY schema_name) FROM duckdb_schemas()
        WHERE database_name = 'memory'),
       (SELECT list((schema_name, function_name, function_type, comment, macro_definition)
                    ORDER BY schema_name, function_name, macro_definition)
        FROM duckdb_functions() WHERE database_name = 'memory'),
       (SELECT list((schema_name, sequence_name) ORDER BY sequence_name) FROM duckdb_sequences()),
       (SELECT list((schema_name, type_name) ORDER BY type_name) FROM duckdb_types()
        WHERE database_name = 'memory' AND NOT internal)
"""
_SHARED: list[tuple[duckdb.DuckDBPyConnection, tuple]] = []  # (database, its _STATE when made)


def _macro_database() -> tuple[duckdb.DuckDBPyConnection, tuple]:
    if not _SHARED:
        database = duckdb_ndcg.register(duckdb.connect())
        _SHARED.append((database, database.execute(_STATE).fetchone()))
    return _SHARED[0]


def _drop_tables_and_views(database: duckdb.DuckDBPyConnection) -> None:
    views = (
        "SELECT schema_name, view_name FROM duckdb_views() "
        "WHERE database_name = 'memory' AND NOT internal AND NOT temporary"
    )
    tables = (
        "SELECT schema_name, table_name FROM duckdb_tables() "
        "WHERE database_name = 'memory' AND NOT temporary"
    )
    for kind, listing in (("VIEW", views), ("TABLE", tables)):
        for names in database.execute(listing).fetchall():
            quoted = ".".join('"' + n.replace('"', '""') + '"' for n in ("memory", *names))
            database.execute(f"DROP {kind} IF EXISTS {quoted} CASCADE")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m versions`` (the older DuckDBs' suites in .ci/run), a test module that marks no
    test ``versions`` is not imported: collecting every module costs about 20 s of each worker
    (sklearn, pandas, hypothesis...) for the 20 modules that hold the marked tests."""
    if config.getoption("markexpr", "") != "versions" or not collection_path.name.startswith(
        "test_"
    ) or collection_path.suffix != ".py":
        return None
    return "mark.versions" not in collection_path.read_text(encoding="utf-8") or None


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to an in-memory database holding every macro (as ``register`` makes them) and
    nothing else; shared with the worker's other tests (see ``_SHARED`` above)."""
    database, state = _macro_database()
    cursor = database.cursor()
    try:
        yield cursor
    finally:
        cursor.close()
        try:
            _drop_tables_and_views(database)
            clean = database.execute(_STATE).fetchone() == state
        except duckdb.Error:
            clean = False
        if not clean:
            _SHARED.clear()
            database.close()


Case = tuple[str, Callable[[], object]]


def check_cases(cases: Iterable[Case]) -> int:
    """Run every (id, check) of a table-driven test, each to its end, then fail naming every case
    that failed: one connection and one registration of the macros (0.2 s of CPU) for the table
    instead of one per case, and no failure hidden behind the first. Returns the number run."""
    failures, count = [], 0
    for case_id, check in cases:
        count += 1
        try:
            check()
        # an assertion, an engine error or pytest.raises' "DID NOT RAISE" (pytest.fail), per case
        except (Exception, pytest.fail.Exception) as error:  # noqa: BLE001
            failures.append(f"[{case_id}] {type(error).__name__}: {error}")
    assert count, "no case ran"
    assert not failures, f"{len(failures)} of {count} cases failed:\n" + "\n".join(failures)
    return count


@pytest.fixture(name="check_cases")
def check_cases_fixture() -> Callable[[Iterable[Case]], int]:
    """check_cases (above) for a test module: table-driven cases on one connection."""
    return check_cases


def readme_sql(title: str) -> list[tuple[str, list[str]]]:
    """The first ```sql block of the README section ``title`` as (statement, the ``-- `` comment
    lines after it, which say what it prints), in order: what a README recipe test runs."""
    text = (Path(__file__).parents[1] / "README.md").read_text()
    section = text[text.index(title):]
    sql = section[section.index("```sql\n") + 7:section.index("```\n", section.index("```sql"))]
    blocks: list[tuple[str, list[str]]] = []
    for line in sql.splitlines():
        if line.startswith("-- "):
            blocks[-1][1].append(line[3:])
        elif blocks and not blocks[-1][0].endswith(";"):
            blocks[-1] = (blocks[-1][0] + "\n" + line, blocks[-1][1])
        else:
            blocks.append((line, []))
    return blocks


@pytest.fixture(name="readme_sql")
def readme_sql_fixture() -> Callable[[str], list[tuple[str, list[str]]]]:
    """readme_sql (above) for a test: a README section's SQL recipe and what it prints."""
    return readme_sql


# ranx as an oracle: its values recorded once by tests/fixtures/ranx/record.py, since ranx compiles
# each metric with numba when first called in a new environment (94 s and 53 s of CPU for the two
# tests below in a fresh venv), and every CI run is one
RANX_RECORDED = Path(__file__).parent / "fixtures" / "ranx"


def ranx_inputs_digest(qrels: dict, run: dict) -> str:
    """The digest of a ranx qrels and run, stored beside the values recorded for them."""
    return hashlib.sha256(json.dumps([qrels, run], sort_keys=True).encode()).hexdigest()


@pytest.fixture(name="recorded_ranx")
def recorded_ranx_fixture() -> Callable[[str, dict, dict], dict[str, dict[str, float]]]:
    """``recorded_ranx(case, qrels, run)``: ranx's per-query values {metric: {query: value}}
    recorded for exactly this qrels and run (a failure when the test's inputs are not those)."""

    def recorded(case: str, qrels: dict, run: dict) -> dict[str, dict[str, float]]:
        data = json.loads((RANX_RECORDED / f"{case}.json").read_text(encoding="utf-8"))
        assert data["inputs_sha256"] == ranx_inputs_digest(qrels, run), (
            f"the inputs of {case} are not those ranx was run on: "
            "python tests/fixtures/ranx/record.py records them again"
        )
        return data["values"]

    return recorded


# The DuckDB CLIs the persisted file and the script are tested with: the oldest supported minor
# and the newest 1.x (pip packages duckdb-cli==1.4.4.post2 and duckdb-cli==1.5.6, each a
# <venv>/bin/duckdb executable). Found in DUCKDB_NDCG_CLIS (paths of executables or of folders
# holding one, separated by os.pathsep, as .ci/run sets it), next to this interpreter, or on PATH.
CLI_MINORS = ("1.4", "1.5")


def _cli_candidates() -> list[Path]:
    found: list[Path] = []
    for entry in filter(None, os.environ.get("DUCKDB_NDCG_CLIS", "").split(os.pathsep)):
        path = Path(entry)
        found.append(path / "duckdb" if path.is_dir() else path)
    found.append(Path(sys.executable).parent / "duckdb")
    on_path = shutil.which("duckdb")
    if on_path:
        found.append(Path(on_path))
    return found


@cache
def find_duckdb_cli(minor: str) -> Path | None:
    """The first DuckDB CLI of version ``minor`` (e.g. ``'1.4'``) among the candidates, or None."""
    for candidate in _cli_candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            version = subprocess.run(
                [str(candidate), "--version"], capture_output=True, text=True, check=False
            ).stdout
            if version.startswith(f"v{minor}."):
                return candidate
    return None


@pytest.fixture(params=CLI_MINORS, ids=[f"cli-{m}" for m in CLI_MINORS])
def duckdb_cli(request: pytest.FixtureRequest) -> Path:
    """Each DuckDB CLI in turn; a failure when missing in CI (env CI=true), else a skip."""
    found = find_duckdb_cli(request.param)
    if found is None:
        reason = (
            f"no DuckDB {request.param} CLI: pip install duckdb-cli=={request.param}.* into a "
            "venv and put its bin/duckdb in DUCKDB_NDCG_CLIS"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found
