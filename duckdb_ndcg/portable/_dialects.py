"""What each target engine can express: the dialect table and the in-query error of each engine."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from duckdb_ndcg.portable._sql import cast, string


def _function(name: str) -> Callable[[exp.Expression, exp.Expression, str], exp.Expression]:
    """An engine function that raises its text argument: error(), raise_error(), fail(), ..."""

    def build(cond: exp.Expression, message: exp.Expression, type_: str) -> exp.Expression:
        return exp.Anonymous(this=name, expressions=[message])

    return build


def _bad_cast(cond: exp.Expression, message: exp.Expression, type_: str) -> exp.Expression:
    """Engines without an error function: casting the (non-constant) message text to a number fails
    with the message quoted in the engine's error; non-constant so the planner cannot fold it."""
    return cast(message, type_)


def _sqlite_json(cond: exp.Expression, message: exp.Expression, type_: str) -> exp.Expression:
    """SQLite has no error function outside triggers; json() of non-JSON text raises
    'malformed JSON' (JSON1 is built in since SQLite 3.38). The message is not shown."""
    return exp.Anonymous(this="json", expressions=[message])


def _clickhouse_throw(cond: exp.Expression, message: exp.Expression, type_: str) -> exp.Expression:
    """ClickHouse's throwIf(cond, 'constant message'); it may run eagerly, hence the condition."""
    text = message.this if isinstance(message, exp.Literal) else _message_head(message)
    return exp.Anonymous(this="throwIf", expressions=[cond, string(text)])


def _message_head(message: exp.Expression) -> str:
    """The constant text at the start of a `'text' || detail` concatenation."""
    node = message
    while isinstance(node, (exp.DPipe, exp.Concat)):
        node = node.this if isinstance(node, exp.DPipe) else node.expressions[0]
    return node.this if isinstance(node, exp.Literal) else "duckdb_ndcg: invalid input"


# dialect -> how a query raises an error with a message (every supported dialect has one).
RAISERS: dict[str, Callable[[exp.Expression, exp.Expression, str], exp.Expression]] = {
    "duckdb": _function("error"),
    "sqlite": _sqlite_json,
    "postgres": _bad_cast,
    "redshift": _bad_cast,
    "snowflake": _bad_cast,
    "spark": _function("raise_error"),
    "databricks": _function("raise_error"),
    "clickhouse": _clickhouse_throw,
    "trino": _function("fail"),
    "presto": _function("fail"),
    "bigquery": _function("ERROR"),
}

DIALECTS: tuple[str, ...] = tuple(RAISERS)

_ALIASES = {"postgresql": "postgres", "sparksql": "spark", "spark2": "spark"}

# Functions sqlglot prints as written (exp.Anonymous) that each dialect really has: anything else
# in a generated tree would be passed through silently, so it is an error.
ALLOWED_ANONYMOUS: dict[str, frozenset[str]] = {
    d: frozenset({getattr(RAISERS[d](exp.true(), string(""), "DOUBLE"), "name", "").lower()} - {""})
    for d in RAISERS
}


def normalize(dialect: str) -> str:
    """The canonical dialect name, or ValueError naming the accepted ones."""
    if not isinstance(dialect, str):
        # ValueError for every bad argument, as the rest of the API (STYLE.md).
        raise ValueError(f"dialect must be a string, one of {', '.join(DIALECTS)}, got {dialect!r}")  # noqa: TRY004
    name = _ALIASES.get(dialect.lower(), dialect.lower())
    if name not in RAISERS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, got {dialect!r}")
    return name


def raiser(
    dialect: str, cond: exp.Expression, message: exp.Expression, type_: str = "DOUBLE"
) -> exp.Expression:
    """An expression that raises an engine error carrying `message`, for the branch of a CASE
    taken when `cond` holds (typed `type_` where the engine needs a type)."""
    return RAISERS[dialect](cond, message, type_)


def raise_if(
    dialect: str,
    cond: exp.Expression,
    message: exp.Expression,
    value: exp.Expression,
    type_: str = "DOUBLE",
) -> exp.Expression:
    """`value`, or an engine error carrying `message` when `cond` holds (value typed `type_`)."""
    return exp.Case(
        ifs=[exp.If(this=cond, true=raiser(dialect, cond.copy(), message, type_))], default=value
    )


def default_nulls_first(dialect: str, desc: bool) -> bool:
    """Where the dialect puts NULLs by default for this sort direction (so none is printed)."""
    ordering = Dialect.get_or_raise(dialect).NULL_ORDERING
    if ordering == "nulls_are_small":
        return not desc
    if ordering == "nulls_are_large":
        return desc
    return False
