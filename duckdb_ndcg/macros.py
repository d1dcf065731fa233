"""The SQL macros under ``sql/``: finding them, ordering them, installing them into DuckDB."""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

_HEAD = "CREATE OR REPLACE MACRO "
_NAME = re.compile(r"CREATE OR REPLACE MACRO (\w+)\(")
# The end of a macro's signature: ``) AS TABLE`` makes a table macro, ``) AS`` a scalar one.
_WORD = re.compile(r"[A-Za-z_]\w*")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")  # the names a text calls: `name(` or `name (`
# Where _guard_calls has something to look at: a comment, a string literal or quoted identifier,
# or a word's start (not after a letter, digit, _ or ., as in `x.ndcg(`); the rest is copied
_BRACKET = re.compile(r"--|/\*|['\"()]")  # what _closing looks at: a bracket, or what _skip skips
_NEXT = re.compile(r"--|/\*|['\"]|(?<![\w.])[A-Za-z_]")
_KIND = re.compile(r"\)\s+AS\s+(TABLE\b)?", re.IGNORECASE)


@dataclass(frozen=True)
class Macro:
    """One ``CREATE OR REPLACE MACRO`` statement with its header comment, and the file holding it
    (a file holds one concept: a public macro or a family of them with their helpers)."""

    name: str
    sql: str
    public: bool
    table: bool
    path: Path


def sql_dir() -> Path:
    """The folder holding the macros: inside the wheel, or the checkout's ``sql/`` when editable."""
    packaged = Path(__file__).parent / "sql"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "sql"


def statements(path: Path) -> list[tuple[str, str]]:
    """(macro name, its text) of each statement of a ``.sql`` file, in file order.

    A statement's text runs from its header comment (the ``--`` lines directly above its
    ``CREATE OR REPLACE MACRO`` line) to the next statement's header comment; a blank line
    separates statements. Above the first header, the file may open with a comment of its own
    (what the file holds), separated from it by a blank line."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    heads = [i for i, line in enumerate(lines) if line.startswith(_HEAD)]
    if not heads:
        raise RuntimeError(f"{path} holds no 'CREATE OR REPLACE MACRO name(' statement")
    starts = []
    for head in heads:
        start = head
        while start > 0 and lines[start - 1].startswith("--"):
            start -= 1
        starts.append(start)
    if any(line.strip() and not line.startswith("--") for line in lines[: starts[0]]):
        raise RuntimeError(f"{path}: only a comment may come before the first macro's header")
    found = []
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        text = "".join(lines[start:end]).rstrip() + "\n"
        match = _NAME.match(text, text.index(_HEAD))
        if match is None or text.count(_HEAD) != 1:
            raise RuntimeError(f"{path}: a statement must start 'CREATE OR REPLACE MACRO name('")
        found.append((match.group(1), text))
    return found


@cache
def macros() -> tuple[Macro, ...]:
    """Every macro, each after the macros it calls (DuckDB binds a macro's calls when creating it)."""
    found: dict[str, Macro] = {}
    for path in sorted(sql_dir().rglob("*.sql")):
        for name, sql in statements(path):
            if name in found:
                raise RuntimeError(f"macro {name} is created in {found[name].path} and {path}")
            kind = _KIND.search(sql, sql.index(_HEAD) + len(_HEAD))
            table = kind is not None and kind.group(1) is not None
            found[name] = Macro(name, sql, public=not name.startswith("_"), table=table, path=path)
    ordered: dict[str, Macro] = {}

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in ordered:
            return
        if name in trail:
            raise RuntimeError(f"macros call each other in a cycle: {' -> '.join(trail + (name,))}")
        body = found[name].sql.split(_HEAD, 1)[1]
        for callee in sorted(found.keys() & set(_CALLED.findall(body)) - {name}):
            visit(callee, trail + (name,))
        ordered[name] = found[name]

    for name in sorted(found):
        visit(name, ())
    return tuple(ordered.values())


# Every macro we create takes one more parameter, named after a hash of all the macros' SQL
# (``_duckdb_ndcg_<hash> := true``), and every call of one of our macros inside another passes it.
# DuckDB binds the calls inside a macro's body on the CALLER's search path, not in the macro's own
# schema, so a user's function of the same name earlier on that path (memory.main before an
# attached metrics file, any TEMP macro, another version of our macros) would otherwise be called
# silently. Not knowing the parameter, such a function fails to bind: an error, never its number.
# (Qualifying the calls instead cannot work: the file may be attached under any name.)


@cache
def guard() -> str:
    """The name of the parameter that every macro of this version takes and passes on."""
    digest = hashlib.sha256("\0".join(m.sql for m in macros()).encode("utf-8"))
    return f"_duckdb_ndcg_{digest.hexdigest()[:10]}"


def _skip(sql: str, i: int) -> int:
    """The index after the comment, string literal or quoted identifier starting at ``i``, or
    ``i`` when none starts there."""
    if sql.startswith("--", i):
        end = sql.find("\n", i)
        return len(sql) if end < 0 else end
    if sql.startswith("/*", i):
        end = sql.find("*/", i + 2)
        return len(sql) if end < 0 else end + 2
    if sql[i] in "'\"":
        j = i + 1
        while j < len(sql) and not (sql[j] == sql[i] and not sql.startswith(sql[i] * 2, j)):
            j += 2 if sql.startswith(sql[i] * 2, j) else 1
        return j + 1
    return i


def _closing(sql: str, start: int) -> int:
    """The index of the ``)`` closing the ``(`` at ``start``."""
    depth, i = 0, start
    while (found := _BRACKET.search(sql, i)) is not None:
        i = found.start()
        after = _skip(sql, i)
        if after != i:
            i = after
            continue
        depth += 1 if sql[i] == "(" else -1
        if depth == 0:
            return i
        i += 1
    raise RuntimeError(f"unbalanced parentheses: {sql[start : start + 80]}...")


def _with_guard(inner: str) -> str:
    return f"{inner}{', ' if inner.strip() else ''}{guard()} := true"


def _guard_calls(sql: str, names: frozenset[str]) -> str:
    """``sql`` with the guard passed to every call of one of ``names`` (comments, string literals
    and quoted identifiers left as they are)."""
    out: list[str] = []
    i = 0
    while i < len(sql):
        found = _NEXT.search(sql, i)
        if found is None:
            out.append(sql[i:])
            break
        out.append(sql[i : found.start()])
        i = found.start()
        after = _skip(sql, i)
        if after != i:
            out.append(sql[i:after])
            i = after
            continue
        word = _WORD.match(sql, i)
        call = re.compile(r"\s*\(").match(sql, word.end())
        if word.group() not in names or call is None:
            out.append(word.group())
            i = word.end()
            continue
        close = _closing(sql, call.end() - 1)
        inner = _guard_calls(sql[call.end() : close], names)
        out.append(sql[i : call.end()] + _with_guard(inner) + ")")
        i = close + 1
    return "".join(out)


@cache
def _names() -> frozenset[str]:
    """The names of all our macros: the calls the guard is passed to."""
    return frozenset(m.name for m in macros())


# After a signature: its body, in parentheses when another signature follows (an overload)
_BODY = re.compile(r"\s*AS\s+(?:TABLE\s+)?\(", re.IGNORECASE)
_OVERLOAD = re.compile(r"\s*,(?:\s|--[^\n]*\n)*\(")


def signatures(sql: str) -> list[tuple[int, int]]:
    """The ``(`` and ``)`` of each parameter list of a ``CREATE OR REPLACE MACRO`` statement: one,
    or one per overload (``name(a, b := 1) AS TABLE (...), (a, measures, b := 1) AS TABLE (...)``:
    DuckDB picks the overload whose parameters the call names; each body in parentheses)."""
    opening = sql.index("(", sql.index(_HEAD) + len(_HEAD))
    found = [(opening, _closing(sql, opening))]
    while (body := _BODY.match(sql, found[-1][1] + 1)) is not None:
        after = _OVERLOAD.match(sql, _closing(sql, body.end() - 1) + 1)
        if after is None:
            break
        found.append((after.end() - 1, _closing(sql, after.end() - 1)))
    return found


@cache  # register() runs per connection; the rewrite of a macro's text is the same every time
def _guarded(m: Macro) -> str:
    """``m``'s statement as we create it: the guard added to its parameters (every overload's)
    and to its calls."""
    names = _names()
    out, done = [], 0
    for opening, close in signatures(m.sql):
        text = m.sql[done : opening + 1]
        out.append(text if done == 0 else _guard_calls(text, names))
        out.append(_with_guard(m.sql[opening + 1 : close]) + ")")
        done = close + 1
    return "".join(out) + _guard_calls(m.sql[done:], names)


def macro(name: str) -> Macro:
    """The macro called ``name``; ``ValueError`` listing the public ones when there is none."""
    for m in macros():
        if m.name == name:
            return m
    public = ", ".join(m.name for m in macros() if m.public)
    raise ValueError(f"no macro named {name!r}; the macros are: {public}")


# Every macro we create carries this comment (COMMENT ON MACRO): how register() and install()
# tell their own macros from a user's macro of the same name, which they never replace silently.
_MARK = "duckdb_ndcg: "

# The default storage of a new file: the oldest DuckDB we support (1.4 LTS) opens it.
OLDEST_STORAGE = "v1.4.0"

# The oldest DuckDB the macros work on. 1.4.0 and 1.4.1 cannot read the report and comparison
# macros from a file a newer DuckDB wrote ("Table with name _ndcg_only does not exist": the CTEs
# they read through query_table), and 1.4.2 rejects an aggregate inside a lambda (r_precision,
# bpref, hence ndcg_report and ndcg_summary, which bind the family's CTE on 1.4: "Aggregate
# functions are not supported here"). register() refuses an older DuckDB; script() and the dbt
# package start with _too_old_sql(), which fails there with the same sentence.
OLDEST_DUCKDB = (1, 4, 3)
_TOO_OLD = (
    "duckdb_ndcg needs DuckDB {oldest} or newer, this is {this}: on 1.4.0 to 1.4.2 the report "
    "and comparison macros fail (upgrade DuckDB, e.g. pip install 'duckdb>={oldest}')"
)


def _version(text: str) -> tuple[int, ...]:
    """``'v1.4.2'`` or ``'1.4.2'`` (DuckDB's version) as ``(1, 4, 2)``."""
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _too_old_sql(version: str = "version()") -> str:
    """A statement that fails, with _TOO_OLD's sentence, on a DuckDB older than OLDEST_DUCKDB (the
    DuckDB running it; ``version`` is that SQL expression, replaceable in tests), and does nothing
    and prints nothing elsewhere."""
    oldest = ".".join(map(str, OLDEST_DUCKDB))
    head, tail = _TOO_OLD.split("{this}")
    message = (
        f"{literal(head.format(oldest=oldest))} || {version} || "
        f"{literal(tail.format(oldest=oldest))}"
    )
    parts = f"string_split(regexp_extract({version}, '[0-9.]+'), '.')[1:3]::INTEGER[]"
    return (
        f"SET VARIABLE duckdb_ndcg_version = CASE WHEN {parts} < {list(OLDEST_DUCKDB)} "
        f"THEN error({message}) ELSE {version} END"
    )

# Files that are data, not databases: DuckDB would open such a path as an empty in-memory database
# (so install() would write nothing) or turn it into a database file next to the user's data.
_DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".json", ".jsonl", ".ndjson", ".xlsx")


def quoted(name: str) -> str:
    """``name`` as one SQL identifier: in double quotes, each double quote in it doubled
    (``quoted("events")`` gives ``"events"``)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as a SQL string literal, quotes doubled, for the statements that take no bound
    parameter (COMMENT ON, ATTACH on DuckDB 1.4/1.5, a view's body): ``literal("it's")`` is
    ``'it''s'``."""
    return "'" + text.replace("'", "''") + "'"


def _summary(m: Macro) -> str:
    """The first line of the header comment: the signature, stored as the macro's comment."""
    first = m.sql.split(_HEAD, 1)[0].strip().splitlines()
    return first[0].lstrip("- ").strip() if first else m.name


def _comment(m: Macro, target: str) -> str:
    """The statement marking ``target`` (the macro's name, qualified or not) as ours: its comment,
    which a database file keeps as written, while DuckDB may print a reloaded macro's definition
    differently (EXCLUDE lists reordered, another version's spelling). No ``;`` in it, for the
    splitters ``script()`` serves."""
    kind = "MACRO TABLE" if m.table else "MACRO"
    return f"COMMENT ON {kind} {target} IS {literal(_MARK + _summary(m).replace(';', ','))}"


def _where(con: duckdb.DuckDBPyConnection, temporary: bool) -> tuple[str, str]:
    if temporary:
        return "temp", "main"
    database, schema = con.execute("SELECT current_database(), current_schema()").fetchone()
    return database, schema


@cache
def _rendered() -> frozenset[tuple[str, str]]:
    """Our macros as this DuckDB prints them in ``duckdb_functions().macro_definition``, both as
    ``register`` creates them and as ``script()`` spells them."""
    found: set[tuple[str, str]] = set()
    guarded = [_guarded(m) for m in macros()]
    for statements in (guarded, [_plain(sql) for sql in guarded]):
        with duckdb.connect() as scratch:
            for statement in statements:
                scratch.execute(statement)
            found.update(
                scratch.execute(
                    "SELECT function_name, macro_definition FROM duckdb_functions() "
                    "WHERE database_name = 'memory' AND schema_name = 'main'"
                ).fetchall()
            )
    return frozenset(found)


def _refuse_foreign(con: duckdb.DuckDBPyConnection, database: str, schema: str) -> None:
    """``ValueError`` when ``database.schema`` holds a function named like one of ours that we did
    not make (no mark of ours, and not our definition either, as a loaded ``script()`` gives)."""
    names = [m.name for m in macros()]
    found = con.execute(
        "SELECT function_name, any_value(comment), any_value(macro_definition) "
        "FROM duckdb_functions() WHERE database_name = ? AND schema_name = ? "
        "AND list_contains(?, function_name) GROUP BY function_name ORDER BY function_name",
        [database, schema, names],
    ).fetchall()
    foreign = [
        name
        for name, comment, definition in found
        if not (comment or "").startswith(_MARK) and (name, definition) not in _rendered()
    ]
    if foreign:
        raise ValueError(
            f"{database}.{schema} already has {len(foreign)} function(s) of the same name as "
            f"duckdb_ndcg macros that duckdb_ndcg did not create ({', '.join(foreign)}); nothing "
            "was replaced. Drop or rename them, create ours in another schema or database, or "
            "pass replace=True (CLI: --replace) to overwrite them."
        )


def _in_memory(con: duckdb.DuckDBPyConnection) -> bool:
    row = con.execute(
        "SELECT path IS NULL FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchone()
    return bool(row and row[0])


def register(
    con: duckdb.DuckDBPyConnection, *, temporary: bool | None = None, replace: bool = False
) -> duckdb.DuckDBPyConnection:
    """Create every macro in ``con`` and return ``con``.

    ``temporary=None`` (the default) creates them in the in-memory database when ``con`` works in
    one, where every cursor of ``con`` sees them (``con.cursor()``, as jupysql uses) and they go
    with the database; when ``con`` works in a database file, they are TEMP macros (this
    connection only), so registering never writes into your file. ``temporary=True`` / ``False``
    chooses. A function of the same name that duckdb_ndcg did not create is an error, unless
    ``replace=True``; calling ``register`` again replaces our own macros.

    Example::

        con = duckdb_ndcg.register(duckdb.connect())
        con.sql("SELECT list_ndcg([3, 2, 3, 0, 1, 2])")
    """
    this = con.execute("SELECT version()").fetchone()[0]
    if _version(this) < OLDEST_DUCKDB:
        raise ValueError(_TOO_OLD.format(oldest=".".join(map(str, OLDEST_DUCKDB)), this=this))
    if temporary is None:
        temporary = not _in_memory(con)
    database, schema = _where(con, temporary)
    head = "CREATE OR REPLACE TEMP MACRO " if temporary else _HEAD
    # All the macros or none, even when the process is killed midway; one register at a time,
    # since two transactions creating the same macros at once conflict (only one commits).
    with _WRITING, _transaction(con):
        if not replace:
            _refuse_foreign(con, database, schema)
        for m in macros():
            con.execute(_guarded(m).replace(_HEAD, head, 1))
            con.execute(_comment(m, ".".join(quoted(p) for p in (database, schema, m.name))))
    return con


_SHARED: list[duckdb.DuckDBPyConnection] = []


def own_connection() -> duckdb.DuckDBPyConnection:
    """The connection ``evaluate()`` and ``compare()`` use when called without ``con=``: a new
    in-memory one with the macros. A DuckDB 1.4 relation does not keep its connection alive (the
    result of a call failed with 'Connection has already been closed' once the call returned), so
    on 1.4 such calls share one connection, kept for the life of the process; pass ``con=`` to
    choose. Example: ``own_connection().sql("SELECT list_ndcg([3, 2, 0])")``."""
    if _version(duckdb.__version__) >= (1, 5):
        return register(duckdb.connect())
    if not _SHARED:
        _SHARED.append(register(duckdb.connect()))
    return _SHARED[0]


# Held while register() writes. A database file has one writing process, so this lock is all the
# serialising it needs: threads of this process with their own cursors or connections.
_WRITING = threading.Lock()


@contextlib.contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The block in one transaction of ``con``: committed at its end, rolled back on any error
    or interrupt. Inside a transaction the caller already opened, the block joins it (the
    caller's COMMIT makes it all or nothing)."""
    # Outside a transaction each statement runs in its own, with a new id; a failed BEGIN
    # would abort the caller's transaction, so it is not how we find out.
    ids = [con.execute("SELECT txid_current()").fetchone()[0] for _ in range(2)]
    if ids[0] == ids[1]:
        yield
        return
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        with contextlib.suppress(duckdb.Error):  # the block's own error is the one to report
            con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _storage(text: str) -> tuple[int, ...]:
    """``'v1.5.0'`` or ``'v1.5.0+'`` as ``(1, 5, 0)``; ``'latest'`` as the largest."""
    if text.strip().lower() == "latest":
        return (10**9,)
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\+?", text.strip())
    if match is None:
        raise ValueError(
            f"storage_compatibility_version must look like 'v1.4.0' or 'v1.5.0', got {text!r}"
        )
    return tuple(int(part) for part in match.groups())


def _database_kind(path: Path) -> str | None:
    """None when ``path`` starts like a DuckDB database file, else what it looks like ('' when
    nothing more is known)."""
    with path.open("rb") as file:
        head = file.read(16)
    if head[8:12] == b"DUCK":
        return None
    if head[:4] == b"PAR1":
        return "a Parquet file"
    if head[:16] == b"SQLite format 3\x00":
        return "a SQLite database"
    if not head:
        return "an empty file"
    return ""


def install(
    target: str | Path | duckdb.DuckDBPyConnection,
    *,
    storage_compatibility_version: str | None = None,
    replace: bool = False,
) -> None:
    """Persist every macro into a database file, so any DuckDB client can call them without Python.

    ``target`` is a path (created when missing) or an open connection to the database to write.
    A new file is written in the storage of DuckDB 1.4 (``storage_compatibility_version``
    ``'v1.4.0'``), which DuckDB 1.4, 1.5 and 2.x clients all open; pass ``'v1.5.0'``,
    ``'v2.0.0'`` or ``'latest'`` for newer storage. An existing file keeps its storage: asking
    for an older one than it has is an error, since the file would stay unreadable there. A path
    that is not a DuckDB database (a CSV or Parquet file, a folder) is an error, and so is a
    function of the same name that duckdb_ndcg did not create, unless ``replace=True``.

    Example::

        duckdb_ndcg.install("metrics.duckdb")
        # then, in the DuckDB CLI (1.4 or newer): SELECT list_ndcg([3, 2, 3, 0, 1, 2]);
    """
    if isinstance(target, duckdb.DuckDBPyConnection):
        if storage_compatibility_version is not None:
            raise ValueError(
                "storage_compatibility_version applies to a path, not to an open connection"
            )
        register(target, temporary=False, replace=replace)
        return
    if not isinstance(target, (str, Path)) or str(target) in ("", ":memory:"):
        raise ValueError(
            "install() takes the path of a DuckDB database file (or an open connection), got "
            f"{target!r}; for an in-memory database use register(con)"
        )
    path = Path(target)
    wanted = storage_compatibility_version
    if wanted is not None:
        _storage(wanted)  # a malformed version is an error before anything is written
    if path.is_dir():
        raise ValueError(f"install(): {path} is a folder; give the path of a .duckdb file")
    if path.exists():
        kind = _database_kind(path)
        if kind is not None:
            what = f"{kind}, not" if kind else "not"
            raise ValueError(
                f"install(): {path} is {what} a DuckDB database, so nothing was written; "
                "give the path of a new or existing .duckdb file"
            )
        if wanted is not None:
            with duckdb.connect(str(path), read_only=True) as con:
                has = con.execute(
                    "SELECT tags['storage_version'] FROM duckdb_databases() "
                    "WHERE database_name = current_database()"
                ).fetchone()[0]
            if has and _storage(has) > _storage(wanted):
                raise ValueError(
                    f"install(): {path} already has storage {has}, newer than "
                    f"storage_compatibility_version={wanted!r} asks for, and an existing file "
                    "keeps its storage, so nothing was written; install into a new file "
                    f"for {wanted} clients"
                )
        config = {}
    else:
        if path.suffix.lower() in _DATA_SUFFIXES:
            raise ValueError(
                f"install(): {path} names a {path.suffix} data file, not a DuckDB database, so "
                "nothing was written; give a path such as metrics.duckdb"
            )
        config = {"storage_compatibility_version": wanted or OLDEST_STORAGE}
    with duckdb.connect(str(path), config=config) as con:
        if _in_memory(con):  # DuckDB opened the path as something else: refuse, write nothing
            raise ValueError(
                f"install(): DuckDB did not open {path} as a database file, so nothing was "
                "written; give the path of a .duckdb file"
            )
        register(con, temporary=False, replace=replace)


def _plain(sql: str) -> str:
    """One macro's statement with its comments dropped and every ``;`` inside a string literal
    spelled ``chr(59)``, so a splitter that cuts at each ``;`` (Harlequin, Evidence) finds exactly
    one statement."""
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in "'\"":
            j = i + 1
            while j < n and not (sql[j] == c and not sql.startswith(c * 2, j)):
                j += 2 if sql.startswith(c * 2, j) else 1
            token = sql[i : j + 1]
            if c == "'" and ";" in token:
                parts = token[1:-1].split(";")
                token = "(" + " || chr(59) || ".join(f"'{part}'" for part in parts) + ")"
            elif ";" in token:
                raise RuntimeError(f"a quoted identifier holds ';': {token}")
            out.append(token)
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = [line.rstrip() for line in "".join(out).splitlines()]
    body = "\n".join(line for line in lines if line.strip())
    if body.count(";") != 1 or not body.endswith(";"):
        raise RuntimeError(f"expected one statement ending in ';', got: {body[:80]}...")
    return body


def created_sql(name: str) -> str:
    """The macro ``name`` as ``register()`` creates it: its source with the guard parameter added
    (every macro that calls it passes that parameter), then the ``COMMENT ON MACRO`` that marks it
    as ours. Run as is, it replaces the macro with itself. Example: ``print(created_sql("ndcg"))``."""
    m = macro(name)
    return f"{_guarded(m).rstrip()}\n{_comment(m, m.name)};"


def script() -> str:
    """Every macro as a plain ``CREATE OR REPLACE MACRO ...;`` statement, callees first, each
    followed by the ``COMMENT ON MACRO`` that marks it as ours (so ``install()`` and ``register()``
    replace it later without asking), with no SQL comments and no ``;`` but the one ending each
    statement: SQL for tools that run a file at start-up (the DuckDB CLI's ``.read`` and
    ``-init``, Harlequin's ``--init-path``, Evidence's ``initialize.sql``), on DuckDB 1.4, 1.5
    and 2.x.

    Example::

        Path("ndcg_macros.sql").write_text(duckdb_ndcg.script())
        # duckdb -init ndcg_macros.sql my.duckdb
    """
    statements = [f"{_plain(_guarded(m))}\n{_comment(m, m.name)};" for m in macros()]
    return "\n\n".join([_too_old_sql() + ";", *statements]) + "\n"
