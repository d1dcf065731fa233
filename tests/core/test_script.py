"""``duckdb_ndcg.script()`` / ``duckdb-ndcg script``: every macro as plain statements that load
with the DuckDB 1.4 and 1.5 CLIs (``.read``, ``-init``) and with a splitter that cuts at every
``;`` (Harlequin's ``--init-path``, Evidence's ``initialize.sql``), giving the registered
numbers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.macros import macros

QUERIES = [
    "SELECT list_ndcg([3, 2, 3, 0, 1, 2]) AS a, list_dcg([3, 2, 3], gain := 'exponential') AS b",
    "SELECT query_id, ndcg(rel, rnk, 2) AS n FROM judged GROUP BY query_id ORDER BY query_id",
    "SELECT * FROM ndcg_summary('shown', 'events', k := [1, 3]) ORDER BY ALL",
    "SELECT * FROM ndcg_report('shown', 'events', k := 2) ORDER BY ALL",
]

TABLES = """
CREATE TABLE judged AS SELECT * FROM (VALUES
    ('q1', 3, 1), ('q1', 2, 2), ('q1', 0, 3), ('q2', 0, 1), ('q2', 1, 2)) AS v(query_id, rel, rnk);
CREATE TABLE shown AS SELECT * FROM (VALUES
    ('q1', 'a', 1), ('q1', 'b', 2), ('q1', 'c', 3), ('q2', 'a', 1), ('q2', 'd', 2)
) AS v(query_id, item_id, position);
CREATE TABLE events AS SELECT * FROM (VALUES
    ('q1', 'b', 'click'), ('q1', 'c', 'purchase'), ('q2', 'd', 'add_to_cart')
) AS v(query_id, item_id, event_type);
"""


def naive_statements(text: str) -> list[str]:
    """What a splitter that knows nothing of comments and quotes makes of a script."""
    return [part.strip() for part in text.split(";") if part.strip()]


@pytest.fixture
def expected(con: duckdb.DuckDBPyConnection) -> list[list[list]]:
    for statement in naive_statements(TABLES):
        con.execute(statement)
    return [[list(row) for row in con.execute(q).fetchall()] for q in QUERIES]


def test_one_plain_statement_per_macro_in_order() -> None:
    """The DuckDB version check, then each macro's CREATE and the COMMENT that marks it ours."""
    text = duckdb_ndcg.script()
    check, *statements = naive_statements(text)
    assert check.startswith("SET VARIABLE duckdb_ndcg_version = ")
    assert len(statements) == 2 * len(macros())
    assert [s.split("(", 1)[0] for s in statements[::2]] == [
        f"CREATE OR REPLACE MACRO {m.name}" for m in macros()
    ]
    assert [s.split(" IS ", 1)[0] for s in statements[1::2]] == [
        f"COMMENT ON MACRO {'TABLE ' if m.table else ''}{m.name}" for m in macros()
    ]
    assert "--" not in text and "/*" not in text
    assert text.endswith(";\n")


def test_semicolons_in_string_literals_are_spelled_out() -> None:
    """event_relevance's error text holds '; collapse := ...': the script must keep it."""
    with duckdb.connect() as con:
        for statement in naive_statements(duckdb_ndcg.script()):
            con.execute(statement)
        con.execute("CREATE TABLE ev AS SELECT 'q' AS query_id, 'a' AS item_id, 'click' AS "
                    "event_type, 'x' AS ts")
        with pytest.raises(duckdb.Error, match=r"VARCHAR; collapse := 'last' needs a date"):
            con.execute(
                "SELECT * FROM event_relevance('ev', collapse := 'last', time_col := 'ts')"
            ).fetchall()


def test_naive_splitter_loads_it(expected: list[list[list]]) -> None:
    with duckdb.connect() as con:
        for statement in naive_statements(duckdb_ndcg.script() + TABLES):
            con.execute(statement)
        got = [[list(row) for row in con.execute(q).fetchall()] for q in QUERIES]
        assert got == expected
        duckdb_ndcg.register(con)  # the script's macros are recognised as ours: no refusal


def run(cli_path: Path, args: list[str], stdin: str, cwd: Path) -> list:
    result = subprocess.run(
        [str(cli_path), "-json", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Error" not in result.stderr, result.stderr
    out = result.stdout.strip()
    return [list(record.values()) for record in json.loads(out)] if out else []


@pytest.mark.parametrize("how", ["read", "init"])
def test_duckdb_cli_loads_it(
    duckdb_cli: Path, tmp_path: Path, how: str, expected: list[list[list]]
) -> None:
    path = tmp_path / "ndcg_macros.sql"
    path.write_text(duckdb_ndcg.script(), encoding="utf-8")
    for query, rows in zip(QUERIES, expected, strict=True):
        if how == "read":
            stdin = f".read {path.name}\n{TABLES}\n{query};\n"
            got = run(duckdb_cli, [":memory:"], stdin, tmp_path)
        else:
            stdin = f"{TABLES}\n{query};\n"
            got = run(duckdb_cli, ["-init", str(path), ":memory:"], stdin, tmp_path)
        assert len(got) == len(rows)
        for ours, theirs in zip(rows, got, strict=True):
            assert ours == pytest.approx(theirs, abs=1e-12)


def test_cli_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["script"]) == 0
    assert capsys.readouterr().out == duckdb_ndcg.script()
