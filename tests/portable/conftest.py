"""Engines for the portable-SQL tests: DuckDB, SQLite, a throwaway PostgreSQL cluster, local Spark
and embedded ClickHouse (chdb), each loaded once per session with the golden tables.

An engine that cannot start is a skip locally and a failure in CI (env CI=true): a skipped engine
proves nothing."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import duckdb
import pytest
from portable_golden import TABLES
from sqlglot import exp

import duckdb_ndcg

Row = tuple[Any, ...]


@dataclass
class Engine:
    """A running engine: the sqlglot dialect it speaks and how to run one statement."""

    dialect: str
    run: Callable[[str], list[Row]]


def unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"engine unavailable in CI: {reason}")
    pytest.skip(reason)


def _ddl(dialect: str, name: str, columns: list[tuple[str, str]], rows: list[Row]) -> list[str]:
    """CREATE TABLE + INSERT for one golden table, printed by sqlglot for the dialect."""
    table = exp.to_table(exp.to_identifier(name, quoted=True))
    schema = exp.Schema(
        this=table,
        expressions=[
            exp.ColumnDef(this=exp.to_identifier(c, quoted=True), kind=exp.DataType.build(t))
            for c, t in columns
        ],
    )
    props = (
        exp.Properties(expressions=[exp.EngineProperty(this=exp.var("Memory"))])
        if dialect == "clickhouse"
        else None
    )
    create = exp.Create(this=schema, kind="TABLE", properties=props)
    insert = exp.insert(exp.values(rows), table.copy())
    return [create.sql(dialect), insert.sql(dialect)]


def _load(execute: Callable[[str], object], dialect: str) -> None:
    for name, (columns, rows) in TABLES.items():
        for statement in _ddl(dialect, name, columns, rows):
            execute(statement)


@pytest.fixture(scope="session")
def reference() -> Iterator[duckdb.DuckDBPyConnection]:
    """DuckDB with the macros and the golden tables: the truth every engine must match."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        _load(con.execute, "duckdb")
        yield con


@pytest.fixture(scope="session")
def duckdb_engine() -> Iterator[Engine]:
    with duckdb.connect() as con:
        _load(con.execute, "duckdb")
        yield Engine("duckdb", lambda sql: con.execute(sql).fetchall())


@pytest.fixture(scope="session")
def sqlite_engine() -> Iterator[Engine]:
    con = sqlite3.connect(":memory:")
    try:
        con.execute("SELECT ln(2.0), power(2.0, 3.0), json('1')")
    except sqlite3.OperationalError as error:
        unavailable(f"SQLite {sqlite3.sqlite_version} lacks math/JSON functions: {error}")
    _load(con.execute, "sqlite")
    yield Engine("sqlite", lambda sql: con.execute(sql).fetchall())
    con.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[Engine]:
    """A fresh cluster (initdb) in a temp dir on a free port, run as the `postgres` OS user when
    we are root (initdb refuses root), reached over its Unix socket; removed afterwards."""
    psycopg = pytest.importorskip("psycopg")
    initdbs = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3])
    )
    if not initdbs:
        unavailable("no PostgreSQL server: apt-get install postgresql (/usr/lib/postgresql/*/bin)")
    bindir = os.path.dirname(initdbs[-1])
    prefix: list[str] = []
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            unavailable("running as root and there is no 'postgres' OS user to run initdb as")
        prefix = ["runuser", "-u", "postgres", "--"]
    root = tempfile.mkdtemp(prefix="ndcg_pg_")
    if prefix:
        os.chown(root, user.pw_uid, user.pw_gid)
    data, port = os.path.join(root, "data"), _free_port()
    pg_ctl = [*prefix, os.path.join(bindir, "pg_ctl"), "-D", data]
    try:
        subprocess.run(
            [
                *prefix,
                os.path.join(bindir, "initdb"),
                "-D",
                data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [
                *pg_ctl,
                "-w",
                "-l",
                os.path.join(root, "log"),
                "-o",
                f"-p {port} -k {root} -c listen_addresses='' -c fsync=off",
                "start",
            ],
            check=True,
            capture_output=True,
        )
    except subprocess.CalledProcessError as error:
        shutil.rmtree(root, ignore_errors=True)
        unavailable(f"PostgreSQL failed to start: {error.stderr.decode(errors='replace')}")
    try:
        with psycopg.connect(
            host=root, port=port, user="postgres", dbname="postgres", autocommit=True
        ) as con:
            _load(con.execute, "postgres")
            yield Engine("postgres", lambda sql: con.execute(sql).fetchall())
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


# The test JVMs' options: see spark_engine's docstring (tests/examples' Spark example uses them too)
SPARK_TEST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
_SPARK_TYPES = {"TEXT": "STRING", "DOUBLE": "DOUBLE", "BIGINT": "BIGINT"}


@pytest.fixture(scope="session")
def spark_engine() -> Iterator[Engine]:
    """One local[1] SparkSession for the whole session (UI off, one shuffle partition).

    Code generation off: Spark compiles Java for each query's stages (whole-stage codegen, and
    the expression factories) before running it, most of a test's time on tables of a few rows;
    interpreted, the same plans give the same rows (Spark falls back to them itself whenever
    codegen fails), and what the tests prove is what Spark's parser, analyser and functions make
    of the SQL. Measured on 10 statements of to_sql, machine busy (load about 5): 1.56 -> 1.05 s
    a statement warm, 43 -> 29 s cold (the first run of each); the same rows.

    The JVM's options (``SPARK_TEST_JVM``): the quick (C1) compiler only and the serial garbage
    collector. On two shared cores, the optimising compiler's and the parallel collector's threads
    compete with the one task thread for a JVM that lives a few minutes; 30 to_sql statements took
    21.5-32.9 s instead of 58.7-85.5 s (two interleaved runs, load about 4)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as error:
        unavailable(f"pyspark is not installed: {error}")
    try:
        spark = (
            SparkSession.builder.master("local[1]")
            .appName("duckdb_ndcg-portable")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.default.parallelism", "1")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.codegen.wholeStage", "false")
            .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
            .config("spark.driver.extraJavaOptions", SPARK_TEST_JVM)
            .getOrCreate()
        )
    except Exception as error:  # noqa: BLE001 -- any JVM start-up failure
        unavailable(f"Spark failed to start (Java 17 needed): {error}")
    for name, (columns, rows) in TABLES.items():
        schema = ", ".join(f"`{c}` {_SPARK_TYPES[t]}" for c, t in columns)
        spark.createDataFrame(rows, schema).createOrReplaceTempView(name)
    yield Engine("spark", lambda sql: [tuple(r) for r in spark.sql(sql).collect()])
    spark.stop()


@pytest.fixture(scope="session")
def clickhouse_engine() -> Iterator[Engine]:
    try:
        import chdb
    except ImportError as error:
        unavailable(f"chdb is not installed: {error}")
    con = chdb.connect(":memory:")

    def run(sql: str) -> list[Row]:
        # A fresh cursor per statement: after a failed query chdb's cursor returns header rows.
        cursor = con.cursor()
        try:
            cursor.execute(sql)
            return list(cursor.fetchall())
        finally:
            cursor.close()

    _load(run, "clickhouse")
    yield Engine("clickhouse", run)
    con.close()


ENGINES = ("duckdb", "sqlite", "postgres", "spark", "clickhouse")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    return request.getfixturevalue(f"{request.param}_engine")
