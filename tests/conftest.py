"""Shared fixtures: a fresh in-memory connection with every macro registered; the DuckDB CLIs."""

from __future__ import annotations

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


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        yield connection


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
