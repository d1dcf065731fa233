"""The SQL macros under ``sql/``: finding them, ordering them, installing them into DuckDB."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

_HEAD = "CREATE OR REPLACE MACRO "
_NAME = re.compile(r"CREATE OR REPLACE MACRO (\w+)\(")


@dataclass(frozen=True)
class Macro:
    """One ``.sql`` file: a single ``CREATE OR REPLACE MACRO`` statement and its header comment."""

    name: str
    sql: str
    public: bool


def sql_dir() -> Path:
    """The folder holding the macros: inside the wheel, or the checkout's ``sql/`` when editable."""
    packaged = Path(__file__).parent / "sql"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "sql"


@cache
def macros() -> tuple[Macro, ...]:
    """Every macro, each after the macros it calls (DuckDB binds a macro's calls when creating it)."""
    found = {}
    for path in sorted(sql_dir().rglob("*.sql")):
        sql = path.read_text(encoding="utf-8")
        match = _NAME.search(sql)
        if match is None or sql.count(_HEAD) != 1 or match.group(1) != path.stem:
            raise RuntimeError(
                f"{path} must hold one 'CREATE OR REPLACE MACRO {path.stem}(' statement"
            )
        found[path.stem] = Macro(path.stem, sql, public=path.parent.name != "internal")
    ordered: dict[str, Macro] = {}

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in ordered:
            return
        if name in trail:
            raise RuntimeError(f"macros call each other in a cycle: {' -> '.join(trail + (name,))}")
        body = found[name].sql.split(_HEAD, 1)[1]
        for callee in sorted(found):
            if callee != name and re.search(rf"\b{callee}\s*\(", body):
                visit(callee, trail + (name,))
        ordered[name] = found[name]

    for name in sorted(found):
        visit(name, ())
    return tuple(ordered.values())


def macro(name: str) -> Macro:
    """The macro called ``name``; ``ValueError`` listing the public ones when there is none."""
    for m in macros():
        if m.name == name:
            return m
    public = ", ".join(m.name for m in macros() if m.public)
    raise ValueError(f"no macro named {name!r}; the macros are: {public}")


def register(
    con: duckdb.DuckDBPyConnection, *, temporary: bool = True
) -> duckdb.DuckDBPyConnection:
    """Create every macro in ``con``: temporary (this connection only) unless ``temporary=False``.

    Calling it again replaces the macros. Returns ``con``.

    Example::

        con = duckdb_ndcg.register(duckdb.connect())
        con.sql("SELECT list_ndcg([3, 2, 3, 0, 1, 2])")
    """
    head = "CREATE OR REPLACE TEMP MACRO " if temporary else _HEAD
    for m in macros():
        con.execute(m.sql.replace(_HEAD, head, 1))
    return con


def install(
    target: str | Path | duckdb.DuckDBPyConnection,
    *,
    storage_compatibility_version: str | None = None,
) -> None:
    """Persist every macro into a database file so any DuckDB client can call them, no Python needed.

    ``target`` is a path (created when missing) or an open connection to the database to write.
    ``storage_compatibility_version`` (for a new file given by path), e.g. ``'v1.5.0'``, writes a
    file that DuckDB 1.5 clients can open.

    Example::

        duckdb_ndcg.install("metrics.duckdb", storage_compatibility_version="v1.5.0")
        # then, in the DuckDB CLI: SELECT list_ndcg([3, 2, 3, 0, 1, 2]);
    """
    if isinstance(target, duckdb.DuckDBPyConnection):
        if storage_compatibility_version is not None:
            raise ValueError(
                "storage_compatibility_version applies to a path, not to an open connection"
            )
        register(target, temporary=False)
        return
    config = {}
    if storage_compatibility_version is not None:
        config["storage_compatibility_version"] = storage_compatibility_version
    with duckdb.connect(str(target), config=config) as con:
        register(con, temporary=False)
