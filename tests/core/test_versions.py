"""What keeps every macro working, with the same numbers, on each supported DuckDB (1.4 LTS, 1.5,
2.x): checks of the SQL text for the constructs that differ between them. CI also runs the core
and event suites on 1.4 and 1.5 (``.ci/run``); these catch a new macro before that run does."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.macros import _plain, _too_old_sql, macros

pytestmark = pytest.mark.versions  # tests/core/test_versions_selection.py


def call_arguments(sql: str, function: str) -> list[list[str]]:
    """The top-level arguments of every call of ``function`` in ``sql`` (no comments in it)."""
    calls = []
    for match in re.finditer(rf"\b{function}\s*\(", sql):
        depth, start, args, quote = 1, match.end(), [], None
        i = start
        while depth:
            c = sql[i]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif c == "," and depth == 1:
                current = sql[start:i].strip()
                if not (current.startswith("lambda") and ":" not in current):  # lambda a, b: ...
                    args.append(current)
                    start = i + 1
            i += 1
        args.append(sql[start : i - 1].strip())
        calls.append(args)
    return calls


CODE = {m.name: _plain(m.sql) for m in macros()}


@pytest.mark.parametrize("name", sorted(CODE))
def test_no_function_newer_than_duckdb_14(name: str) -> None:
    """struct_keys arrived after 1.4: json_keys(to_json(x)) gives the same names."""
    assert not re.search(r"\bstruct_keys\s*\(", CODE[name])


@pytest.mark.parametrize("name", sorted(CODE))
def test_empty_list_defaults_are_typed(name: str) -> None:
    """A 1.5 engine binds an untyped [] default as INTEGER[] (then list_contains(slice_by, c)
    fails on text column names): write []::VARCHAR[]."""
    assert not re.search(r":=\s*\[\s*\](?!\s*::)", CODE[name])


@pytest.mark.parametrize("name", sorted(CODE))
def test_list_reduce_initial_values_are_typed(name: str) -> None:
    """In DuckDB 1.5 a literal initial value such as 0.0 is DECIMAL and silently changes the
    numbers: cast it (0.0::DOUBLE)."""
    for args in call_arguments(CODE[name], "list_reduce"):
        if len(args) == 3:
            assert "::" in args[2] or args[2].upper().startswith("CAST("), args[2]


def test_the_checks_see_what_they_look_for() -> None:
    sql = "list_reduce([1.0]::DOUBLE[], lambda a, x: a + x, 0.0) + list_reduce(l, lambda a, x: a)"
    assert call_arguments(sql, "list_reduce") == [
        ["[1.0]::DOUBLE[]", "lambda a, x: a + x", "0.0"],
        ["l", "lambda a, x: a"],
    ]
    # a struct built in the lambda holds commas that are not the call's
    sql = "list_reduce(l, lambda a, y: {p: a.p * y.p, x: a.x + y.x})"
    assert call_arguments(sql, "list_reduce") == [["l", "lambda a, y: {p: a.p * y.p, x: a.x + y.x}"]]
    assert re.search(r":=\s*\[\s*\](?!\s*::)", "m(a, slice_by := [], b)")
    assert not re.search(r":=\s*\[\s*\](?!\s*::)", "m(a, slice_by := []::VARCHAR[], b)")


def test_cli_db_path_with_a_quote(tmp_path: Path) -> None:
    """--db is attached without a ? parameter (DuckDB 1.4/1.5's ATTACH takes none), quoted."""
    folder = tmp_path / "it's here"
    folder.mkdir()
    db = folder / "logs.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE TABLE shown AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'b', 2)) "
            "AS v(query_id, item_id, position)"
        )
        con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, 'b' AS item_id, "
                    "'purchase' AS event_type")
    out = tmp_path / "report.csv"
    assert cli.main(["evaluate", "shown", "events", "--db", str(db), "--k", "2",
                     "--output", str(out)]) == 0
    with duckdb.connect() as con:
        ndcg = con.execute("SELECT ndcg FROM read_csv(?)", [str(out)]).fetchone()[0]
    assert ndcg == pytest.approx((3 / 1.5849625007211562) / (3 / 1.0), abs=1e-12)


def test_rows_of_different_depth_do_not_mix(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB 1.4/1.5's list_reduce with a start value mixes rows up when the lists' lengths
    differ (the continued fraction of _ndcg_betainc has a depth per row): sign_test over several
    groups at once must give each group's own p-value."""
    con.execute(
        "CREATE TABLE pairs AS SELECT g, CASE WHEN i < w THEN 1.0 ELSE 0.0 END AS b, 0.5 AS a "
        "FROM (VALUES (0, 127, 268), (1, 130, 322), (2, 174, 315), (3, 44, 75)) AS v(g, w, n), "
        "range(n) AS r(i)"
    )
    together = con.execute(
        "SELECT g, sign_test(b, a).p_value FROM pairs GROUP BY g ORDER BY g"
    ).fetchall()
    alone = [
        (g, con.execute("SELECT sign_test(b, a).p_value FROM pairs WHERE g = ?", [g]).fetchone()[0])
        for g in range(4)
    ]
    assert together == alone
    assert alone[1][1] == pytest.approx(0.0006524799822370038, rel=1e-9)  # scipy binomtest


@pytest.mark.parametrize(
    ("version", "too_old"),
    [("v1.4.0", True), ("v1.4.2", True), ("v1.3.2", True), ("v1.4.3", False), ("v1.4.5", False),
     ("v1.5.0-dev123", False), ("v1.10.0", False), ("v2.0.1", False)],
)
def test_script_refuses_duckdb_older_than_143(version: str, too_old: bool) -> None:
    """script()'s and the dbt package's first statement: one clear error on DuckDB 1.4.0-1.4.2
    (where the report macros fail), nothing at all on 1.4.3 and newer."""
    with duckdb.connect() as con:
        statement = _too_old_sql(f"'{version}'")
        if too_old:
            message = rf"needs DuckDB 1\.4\.3 or newer, this is {version}"
            with pytest.raises(duckdb.Error, match=message):
                con.execute(statement)
        else:
            con.execute(statement)
            got = con.execute("SELECT getvariable('duckdb_ndcg_version')").fetchone()[0]
            assert got == version
    assert duckdb_ndcg.script().startswith(_too_old_sql() + ";\n")


class _OldDuckDB:
    """A connection's stand-in that says it is DuckDB 1.4.2 (register() asks it first)."""

    def execute(self, sql: str, *args: object) -> _OldDuckDB:
        assert sql == "SELECT version()", sql
        return self

    def fetchone(self) -> tuple[str]:
        return ("v1.4.2",)


def test_register_refuses_duckdb_older_than_143() -> None:
    message = r"needs DuckDB 1\.4\.3 or newer, this is v1\.4\.2: on 1\.4\.0 to 1\.4\.2 the report"
    with pytest.raises(ValueError, match=message):
        duckdb_ndcg.register(_OldDuckDB())  # type: ignore[arg-type]
