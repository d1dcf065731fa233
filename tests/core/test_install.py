"""``install()`` persists the macros: a fresh process that never imports duckdb_ndcg, and the
DuckDB 1.4 and 1.5 CLIs (pip packages ``duckdb-cli``) on the default file, get the same numbers as
the registered macros; paths that are not databases, storage the file cannot have and functions of
the user's with our names are errors that leave everything as it was."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg.macros import macros

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


def writable(version: str | None) -> None:
    """Skip a storage version newer than the running DuckDB can write (1.4 cannot write v1.5.0)."""
    ours = tuple(int(p) for p in duckdb.__version__.split(".")[:2])
    if version is not None and tuple(int(p) for p in version[1:].split(".")[:2]) > ours:
        pytest.skip(f"DuckDB {duckdb.__version__} cannot write storage {version}")


@pytest.mark.versions
@pytest.mark.parametrize("version", [None, "v1.4.0", "v1.5.0"])
def test_fresh_process_without_the_package(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, version: str | None
) -> None:
    writable(version)
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



EVENTS = """
CREATE TABLE shown AS SELECT * FROM (VALUES
    ('q1', 'a', 1, 'web'), ('q1', 'b', 2, 'web'), ('q1', 'c', 3, 'web'), ('q1', 'd', 4, 'web'),
    ('q2', 'a', 1, 'app'), ('q2', 'c', 2, 'app'), ('q2', 'e', 3, 'app'),
    ('q3', 'b', 1, 'app'), ('q3', 'f', 2, 'app')
) AS v(query_id, item_id, position, device);
CREATE TABLE events AS SELECT * FROM (VALUES
    ('q1', 'b', 'click'), ('q1', 'c', 'purchase'), ('q1', 'x', 'add_to_cart'),
    ('q1', 'a', 'impression'), ('q2', 'a', 'click'), ('q2', 'e', 'click'),
    ('q2', 'e', 'add_to_cart'), ('q3', 'b', 'impression')
) AS v(query_id, item_id, event_type)
"""

# The report macros and the core ones on real tables, as a BI tool or a CLI user calls them.
EVENT_QUERIES = [
    "SELECT * FROM ndcg_summary('shown', 'events', k := [1, 3]) ORDER BY ALL",
    "SELECT * FROM ndcg_summary('shown', 'events', k := 3, slice_by := ['device']) ORDER BY ALL",
    "SELECT * FROM ndcg_report('shown', 'events', k := [1, 3, NULL]) ORDER BY ALL",
    "SELECT * FROM compare_rankers('shown', 'shown', 'events', k := 2) ORDER BY ALL",
    "SELECT list_ndcg([3, 2, 3, 0, 1, 2]), list_ndcg([3, 2, 3, 0, 1, 2], 3)",
    "SELECT query_id, ndcg(rel, rnk, 3), ndcg(rel, rnk) FROM judged GROUP BY query_id ORDER BY ALL",
]


def event_file(tmp_path: Path) -> Path:
    path = installed_file(tmp_path, None)
    with duckdb.connect(str(path)) as con:
        con.execute(EVENTS)
    return path


def run_cli(cli: Path, path: Path, sql: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cli), "-readonly", "-json", str(path), "-c", sql],
        capture_output=True,
        text=True,
        check=False,
    )


def cli_rows(cli: Path, path: Path, sql: str) -> list[list]:
    result = run_cli(cli, path, sql)
    assert result.returncode == 0, f"{sql}: {result.stderr}"
    records = json.loads(result.stdout) if result.stdout.strip() else []
    return [list(record.values()) for record in records]


def test_default_file_has_the_oldest_supported_storage(tmp_path: Path) -> None:
    path = installed_file(tmp_path, None)
    with duckdb.connect(str(path), read_only=True) as con:
        storage = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() "
            "WHERE database_name = current_database()"
        ).fetchone()[0]
    assert storage == "v1.4.0+"


def test_cli_reads_the_default_file(
    duckdb_cli: Path, con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """The DuckDB 1.4 and 1.5 CLIs open the file install() writes by default, no flags, and every
    macro gives the registered macros' numbers, report macros included."""
    path = event_file(tmp_path)
    expected = reference(con)
    con.execute(EVENTS)
    for query, rows in zip(QUERIES, expected, strict=True):
        assert same_rows(rows, cli_rows(duckdb_cli, path, query))
    for query in EVENT_QUERIES:
        rows = [list(row) for row in con.execute(query).fetchall()]
        assert rows, query
        assert same_rows(rows, cli_rows(duckdb_cli, path, query))


def test_cli_refuses_storage_newer_than_it_knows(duckdb_cli: Path, tmp_path: Path) -> None:
    """Why the default is the oldest storage: a CLI older than the writer cannot open 'latest'."""
    cli_minor = subprocess.run(
        [str(duckdb_cli), "--version"], capture_output=True, text=True, check=True
    ).stdout[1:4]
    if duckdb.__version__[:3] <= cli_minor:
        pytest.skip(f"DuckDB {duckdb.__version__} writes nothing the {cli_minor} CLI cannot read")
    result = run_cli(duckdb_cli, installed_file(tmp_path, "latest"), "SELECT list_ndcg([1, 0])")
    assert result.returncode != 0
    assert "newer version of DuckDB" in result.stderr


def no_macros(path: Path) -> bool:
    with duckdb.connect(str(path), read_only=True) as con:
        return not con.execute(
            "SELECT count(*) FROM duckdb_functions() WHERE database_name = current_database() "
            "AND function_name IN ('ndcg', 'list_ndcg')"
        ).fetchone()[0]


@pytest.mark.parametrize("target", [None, "", ":memory:", 42])
def test_install_needs_a_path(target: object) -> None:
    with pytest.raises(ValueError, match=r"install\(\) takes the path of a DuckDB database file"):
        duckdb_ndcg.install(target)  # type: ignore[arg-type]


def test_install_refuses_data_files_and_folders(tmp_path: Path) -> None:
    csv = tmp_path / "events.csv"
    csv.write_text("query_id,item_id,event_type\nq1,a,click\n")
    parquet = tmp_path / "shown.parquet"
    duckdb.sql("SELECT 'q1' AS query_id, 'a' AS item_id, 1 AS position").write_parquet(
        str(parquet)
    )
    before = {p: p.read_bytes() for p in (csv, parquet)}
    with pytest.raises(ValueError, match=r"events\.csv is not a DuckDB database, so nothing was"):
        duckdb_ndcg.install(csv)
    with pytest.raises(ValueError, match=r"shown\.parquet is a Parquet file, not a DuckDB"):
        duckdb_ndcg.install(str(parquet))
    assert {p: p.read_bytes() for p in (csv, parquet)} == before
    with pytest.raises(ValueError, match=r"new\.csv names a \.csv data file.*metrics\.duckdb"):
        duckdb_ndcg.install(tmp_path / "new.csv")
    assert not (tmp_path / "new.csv").exists()
    with pytest.raises(ValueError, match="is a folder"):
        duckdb_ndcg.install(tmp_path)
    empty = tmp_path / "empty.duckdb"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.duckdb is an empty file"):
        duckdb_ndcg.install(empty)


@pytest.mark.parametrize("asked", ["v1.4.0", "v1.5.0"])
def test_existing_file_with_newer_storage_is_an_error(tmp_path: Path, asked: str) -> None:
    """install(existing_v2_file, storage_compatibility_version='v1.5.0') cannot make the file
    readable by 1.5: say so, write nothing."""
    path = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(path), config={"storage_compatibility_version": "latest"}) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
        has = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() "
            "WHERE database_name = current_database()"
        ).fetchone()[0]
    if has.rstrip("+") <= asked:
        pytest.skip(f"DuckDB {duckdb.__version__} writes {has}, not newer than {asked}")
    message = rf"already has storage {re.escape(has)}, newer than.*{asked}"
    with pytest.raises(ValueError, match=message):
        duckdb_ndcg.install(path, storage_compatibility_version=asked)
    assert no_macros(path)


def test_existing_file_keeps_its_storage_and_gets_the_macros(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with duckdb.connect(str(path), config={"storage_compatibility_version": "v1.4.0"}) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
    duckdb_ndcg.install(path, storage_compatibility_version="latest")
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([1, 0]), max(x) FROM t").fetchone() == (1.0, 1)


def test_malformed_storage_version_writes_nothing(tmp_path: Path) -> None:
    for bad in ("1.5", "1.5.0"):
        with pytest.raises(ValueError, match=rf"must look like 'v1.4.0'.*got '{bad}'"):
            duckdb_ndcg.install(tmp_path / "m.duckdb", storage_compatibility_version=bad)
    assert not (tmp_path / "m.duckdb").exists()


def test_register_keeps_a_users_macro_of_the_same_name() -> None:
    with duckdb.connect() as con:
        con.execute("CREATE MACRO ndcg(a, b, c) AS 42")
        con.execute("CREATE MACRO dcg(a, b) AS TABLE SELECT 7 AS x")
        message = r"memory\.main already has 2 .*\(dcg, ndcg\).*replace="
        with pytest.raises(ValueError, match=message):
            duckdb_ndcg.register(con)
        assert con.execute("SELECT ndcg(1, 2, 3)").fetchone()[0] == 42
        assert con.execute(
            "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'list_ndcg'"
        ).fetchone()[0] == 0
        duckdb_ndcg.register(con, replace=True)
        assert con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2])").fetchone()[0] == (
            pytest.approx(0.9608081943360616, abs=1e-15)
        )
        duckdb_ndcg.register(con)  # ours now: replaced without asking


def test_register_temporary_keeps_a_users_temp_macro() -> None:
    with duckdb.connect() as con:
        con.execute("CREATE TEMP MACRO list_dcg(x) AS 'mine'")
        with pytest.raises(ValueError, match=r"temp\.main already has 1 .*list_dcg"):
            duckdb_ndcg.register(con, temporary=True)
        assert con.execute("SELECT list_dcg(1)").fetchone()[0] == "mine"


def test_install_keeps_a_users_macro_of_the_same_name(tmp_path: Path) -> None:
    path = tmp_path / "user.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE MACRO precision_at_k(a) AS a * 2")
    with pytest.raises(ValueError, match=r"user\.main already has 1 .*precision_at_k.*--replace"):
        duckdb_ndcg.install(path)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT precision_at_k(21)").fetchone()[0] == 42
    assert no_macros(path)
    duckdb_ndcg.install(path, replace=True)
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0


def test_cursors_see_the_macros_of_an_in_memory_connection() -> None:
    """jupysql runs %sql through con.cursor(): TEMP macros would be invisible there."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        cursor = con.cursor()
        assert cursor.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0
        cursor.execute("CREATE TABLE judged AS SELECT 'q' AS query_id, 1 AS rel, 1 AS rnk")
        assert cursor.execute("SELECT ndcg(rel, rnk, 10) FROM judged").fetchone()[0] == 1.0


def test_register_never_writes_into_a_database_file(tmp_path: Path) -> None:
    path = tmp_path / "user.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
        duckdb_ndcg.register(con)
        assert con.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0
    assert no_macros(path)


def test_attached_metrics_file_through_search_path(tmp_path: Path) -> None:
    """The supported way to call the macros of a file attached under another name (the README):
    put its schema on the search path. Calls qualified with the file's name alone do not find the
    helpers the macros call, which DuckDB looks up on the search path."""
    path = tmp_path / "metrics.duckdb"
    duckdb_ndcg.install(path)
    with duckdb.connect() as con:
        literal = "'" + str(path).replace("'", "''") + "'"  # DuckDB 1.x: ATTACH takes no ?
        con.execute(f"ATTACH {literal} AS m (READ_ONLY)")
        con.execute("SET search_path = 'memory.main,m.main'")
        con.execute(EVENTS)
        assert con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2])").fetchone()[0] == (
            pytest.approx(0.9608081943360616, abs=1e-15)
        )
        summary = con.execute(
            "SELECT k, queries FROM ndcg_summary('shown', 'events', k := [1, 3]) ORDER BY k"
        ).fetchall()
    assert summary == [(1, 3), (3, 3)]


def test_cli_install_refuses_and_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from duckdb_ndcg import cli

    parquet = tmp_path / "shown.parquet"
    duckdb.sql("SELECT 1 AS position").write_parquet(str(parquet))
    assert cli.main(["install", str(parquet)]) == 2
    err = capsys.readouterr().err
    assert "shown.parquet is a Parquet file, not a DuckDB database" in err
    assert len(err.strip().splitlines()) == 1
    path = tmp_path / "user.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE MACRO hit_rate(a) AS a")
    assert cli.main(["install", str(path)]) == 1  # the database's content: exit code 1
    assert "hit_rate" in capsys.readouterr().err
    assert cli.main(["install", str(path), "--replace"]) == 0
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0


ROOT = Path(__file__).resolve().parents[2]

# Runs a file of statements in a fresh interpreter that imports only duckdb: a load by a tool that
# has no duckdb_ndcg (the DuckDB CLI's .read, Evidence, dbt's on-run-start hook).
LOADER = """
import sys
import threading
import duckdb
with duckdb.connect(sys.argv[1]) as con:
    for statement in open(sys.argv[2], encoding="utf-8").read().split("\\n;;\\n"):
        con.execute(statement)
assert "duckdb_ndcg" not in sys.modules, "the loader imported duckdb_ndcg"
"""


def dbt_statements() -> list[str]:
    """The statements the dbt package's on-run-start hook runs, as dbt renders them."""
    spec = importlib.util.spec_from_file_location(
        "build_package", ROOT / "dbt" / "build_package.py"
    )
    build_package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_package)
    return re.findall(r"\{% raw %\}\n(.*?)\{% endraw %\}", build_package.render(), re.DOTALL)


@pytest.mark.parametrize("loader", ["script", "dbt"])
def test_install_recognises_macros_loaded_by_another_process(tmp_path: Path, loader: str) -> None:
    """script() or the dbt package loaded into a file, reopened by install() in a new process:
    DuckDB reorders the EXCLUDE (...) lists of compare_summary and p_adjust when it reads the file
    back, so our macros must be known by something that survives the reload."""
    path, statements = tmp_path / "loaded.duckdb", tmp_path / "statements.sql"
    if loader == "script":
        text = "\n;;\n".join(s for s in duckdb_ndcg.script().split(";\n") if s.strip())
    else:
        text = "\n;;\n".join(dbt_statements())
    statements.write_text(text, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-c", LOADER, str(path), str(statements)], check=True, cwd=tmp_path
    )
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2])").fetchone()[0] == (
            pytest.approx(0.9608081943360616, abs=1e-15)
        )


def test_install_recognises_macros_the_cli_loaded(duckdb_cli: Path, tmp_path: Path) -> None:
    """The DuckDB 1.4 or 1.5 CLI ran script() into a file; install() (this DuckDB) accepts it."""
    path, script = tmp_path / "cli.duckdb", tmp_path / "ndcg_macros.sql"
    script.write_text(duckdb_ndcg.script(), encoding="utf-8")
    subprocess.run([str(duckdb_cli), str(path), "-c", f".read {script}"], check=True)
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0


def test_macro_kinds_are_read_from_the_sql() -> None:
    """Macro.table (from the file's ') AS TABLE') is what DuckDB makes of each statement."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        kinds = dict(
            con.execute(
                "SELECT function_name, function_type FROM duckdb_functions() "
                "WHERE database_name = 'memory' AND schema_name = 'main'"
            ).fetchall()
        )
    assert {m.name: m.table for m in macros()} == {
        m.name: kinds[m.name] == "table_macro" for m in macros()
    }
    assert sum(m.table for m in macros()) >= 18


# install() in a fresh interpreter whose connection dies (SIGKILL) or raises on its Nth
# CREATE MACRO: an install cut short, as by a kill, a full disk or a Ctrl-C.
INTERRUPTED = """
import os, signal, sys
import duckdb
import duckdb_ndcg

path, fatal, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
real_connect = duckdb.connect


class Dying:
    def __init__(self, con):
        self.con, self.created = con, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.con.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self.con, name)

    def execute(self, sql, *args):
        if "CREATE OR REPLACE MACRO" in sql:
            self.created += 1
            if self.created == fatal:
                if how == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                raise RuntimeError("interrupted")
        return self.con.execute(sql, *args)


duckdb.connect = lambda *args, **kwargs: Dying(real_connect(*args, **kwargs))
duckdb_ndcg.install(path)
"""


def our_functions(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(
            "SELECT count(DISTINCT function_name) FROM duckdb_functions() "
            "WHERE database_name = current_database() AND list_contains(?, function_name)",
            [[m.name for m in macros()]],
        ).fetchone()[0]


@pytest.mark.parametrize(("fatal", "how"), [(24, "kill"), (107, "kill"), (60, "raise")])
def test_interrupted_install_leaves_all_or_nothing(tmp_path: Path, fatal: int, how: str) -> None:
    """Killed (or failing) at its Nth macro, install() leaves none of them, the user's tables
    intact, and a plain install() afterwards succeeds."""
    path = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(path), config={"storage_compatibility_version": "v1.4.0"}) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
    child = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(path), str(fatal), how],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert child.returncode != 0
    assert ("interrupted" in child.stderr) == (how == "raise"), child.stderr
    assert our_functions(path) == 0
    duckdb_ndcg.install(path)
    assert our_functions(path) == len(macros())
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT list_ndcg([1, 0]), max(x) FROM t").fetchone() == (1.0, 1)


def test_register_inside_a_callers_transaction_follows_it(tmp_path: Path) -> None:
    """register() in a transaction the caller opened joins it: the caller's ROLLBACK undoes it."""
    with duckdb.connect(str(tmp_path / "t.duckdb")) as con:
        con.execute("BEGIN TRANSACTION")
        duckdb_ndcg.register(con, temporary=False)
        assert con.execute("SELECT list_ndcg([1, 0])").fetchone()[0] == 1.0
        con.execute("ROLLBACK")
    assert our_functions(tmp_path / "t.duckdb") == 0


@pytest.mark.parametrize("share", ["cursors", "connections"])
def test_concurrent_registers_on_one_database(tmp_path: Path, share: str) -> None:
    """Eight threads register(temporary=False) into one database file at once, each with its own
    cursor of one connection or its own connection: all succeed (no write-write conflict)."""
    path = tmp_path / "shared.duckdb"
    errors: list[BaseException] = []
    with duckdb.connect(str(path)) as main:
        cons = [
            main.cursor() if share == "cursors" else duckdb.connect(str(path)) for _ in range(8)
        ]
        start = threading.Barrier(len(cons))

        def work(con: duckdb.DuckDBPyConnection) -> None:
            start.wait()
            try:
                duckdb_ndcg.register(con, temporary=False)
            except Exception as error:  # noqa: BLE001 -- collected and reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(con,)) for con in cons]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for con in cons:
            con.close()
    assert [str(e).splitlines()[0] for e in errors] == []
    assert our_functions(path) == len(macros())


# A user's function named like one of the macros ours call, in a schema the search path puts
# before the metrics file's: DuckDB binds the calls inside a macro's body on the caller's search
# path, so without a guard the second list_ndcg below gives 1.0 (the user's _ndcg_weighted_list).
SHADOWS = [
    ("CREATE MACRO _ndcg_weighted_list(items, m, weight, param) AS 1.0",
     "SELECT list_ndcg([0, 3, 2])"),
    (("CREATE MACRO list_dcg(rels, k := NULL, gain := 'linear', log_base := 2, "
     "negative := 'error') AS 1.0"), "SELECT list_ndcg([0, 3, 2])"),
    ("CREATE MACRO ndcg(rel, rnk, k := NULL) AS 0.5",
     "SELECT mean_ndcg(query_id, rel, rnk) FROM judged"),
    ("CREATE TEMP MACRO _ndcg_weighted_list(items, m, weight, param) AS 1.0",
     "SELECT list_ndcg([0, 3, 2])"),
]


@pytest.mark.parametrize(("shadow", "query"), SHADOWS)
def test_a_users_function_never_silently_replaces_one_our_macros_call(
    tmp_path: Path, shadow: str, query: str
) -> None:
    """An attached metrics file (search path memory.main, m.main) with a user's macro of the same
    name as one our macros call: an error, never the user's number. Fresh process, no Python
    package, as a BI tool would be."""
    path = installed_file(tmp_path, None)
    script = (
        "import sys, duckdb\n"
        "con = duckdb.connect()\n"
        "con.execute(\"ATTACH '\" + sys.argv[1] + \"' AS m (READ_ONLY)\")\n"
        "con.execute(\"SET search_path = 'memory.main,m.main'\")\n"
        "con.execute('CREATE TABLE judged AS SELECT * FROM m.main.judged')\n"
        "before = con.execute(sys.argv[3]).fetchone()[0]\n"
        "con.execute(sys.argv[2])\n"
        "try:\n"
        "    print(before, con.execute(sys.argv[3]).fetchone()[0])\n"
        "except duckdb.BinderException as error:\n"
        "    print(before, 'error', str(error).splitlines()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path), shadow, query],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.split(" ", 1)
    assert float(before) not in (0.5, 1.0)
    assert after.startswith("error Binder Error: Macro "), after
    assert "does not support the supplied arguments" in after
