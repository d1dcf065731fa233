"""The UBI and GA4 adapters of ``sql/sources/`` as portable CTEs: the vendor's raw tables (nested
arrays and structs, as BigQuery, Spark, ClickHouse or DuckDB hold them) -> ``_src_shown``
(query_id, item_id, position) and ``_src_events`` (query_id, item_id, event_type), which
``events_to_sql`` then scores. The statement text of each step is fixed SQL written for the target
engine (its one nested-array idiom differs: BigQuery's ``UNNEST(x) AS e WITH OFFSET``, DuckDB's
``WITH ORDINALITY``, ClickHouse's ``ARRAY JOIN``, Spark's ``POSEXPLODE``); the only values in it
are sqlglot-printed identifiers and literals, and it is parsed back into the statement's tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import sqlglot
from sqlglot import exp

from duckdb_ndcg.portable import _dialects
from duckdb_ndcg.portable._metrics import table_expression
from duckdb_ndcg.portable._sql import cast, col, concat, string

# The engines whose nested arrays the adapters are written for (and checked on).
SOURCE_DIALECTS = ("duckdb", "bigquery", "clickhouse", "spark", "databricks")
# the functions the adapters' text calls that sqlglot keeps as written, per dialect
FUNCTIONS = {"clickhouse": ("arrayEnumerate", "match"), "duckdb": (), "bigquery": ()}
# each source's options in portable mode, with their defaults (the DuckDB macros' names)
SOURCE_OPTIONS: dict[str, dict[str, Any]] = {
    "ubi": {"position_base": "auto", "event_types": None},
    "ga4": {
        "attribution": "last",
        "attribution_window": None,
        "event_types": None,
        "position_base": "auto",
    },
}
UBI_TYPES = {
    "click": "click",
    "add_to_cart": "add_to_cart",
    "purchase": "purchase",
    "impression": "impression",
    "view": "view",
}
GA4_TYPES = {"select_item": "click", "add_to_cart": "add_to_cart", "purchase": "purchase"}
_DAY_US = 86_400_000_000


def _indexed(dialect: str, table: str, array: str, columns: str) -> str:
    """SELECT `columns`, each element of the array column `array` of `table` AS _h and its
    1-based place in the array AS _n (a row per element; an empty or NULL array gives none)."""
    if dialect == "bigquery":
        return (
            f"SELECT {columns}, _h, _o + 1 AS _n FROM {table} AS _r "
            f"CROSS JOIN UNNEST(_r.{array}) AS _h WITH OFFSET AS _o"
        )
    if dialect == "duckdb":
        return (
            f"SELECT {columns}, _h, _n FROM {table} AS _r "
            f"CROSS JOIN UNNEST(_r.{array}) WITH ORDINALITY AS _t(_h, _n)"
        )
    if dialect == "clickhouse":
        return (
            f"SELECT {columns}, _h, _n FROM {table} AS _r "
            f"ARRAY JOIN _r.{array} AS _h, arrayEnumerate(_r.{array}) AS _n"
        )
    # spark, databricks
    return (
        f"SELECT {columns}, _h, _o + 1 AS _n FROM {table} AS _r "
        f"LATERAL VIEW POSEXPLODE(_r.{array}) _t AS _o, _h"
    )


class _Text:
    """Prints the nodes a step's text needs for one dialect."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    def sql(self, node: exp.Expression) -> str:
        return node.sql(dialect=self.dialect)

    def text(self, expression: str) -> str:
        """CAST(<expression> AS the dialect's text type)."""
        return self.sql(cast(exp.column("_x"), "TEXT")).replace(
            self.sql(exp.column("_x")), expression, 1
        )

    def value(self, expression: str) -> str:
        """A scalar field as text; on DuckDB a JSON value (read_json's type for a field holding
        text in some documents and numbers in others) as its plain text, without the quotes
        its cast keeps."""
        if self.dialect != "duckdb":
            return self.text(expression)
        return (
            f"CASE WHEN TYPEOF({expression}) = 'JSON' THEN JSON_EXTRACT_STRING("
            f"{self.text(expression)}, '$') ELSE {self.text(expression)} END"
        )

    def fail(self, condition: str, message: str, detail: str, type_: str = "BIGINT") -> str:
        """An engine error with `message` || `detail` (a text expression), raised when
        `condition` holds (to be placed in the CASE branch taken then)."""
        node = _dialects.raiser(
            self.dialect,
            exp.column("_cond"),
            concat(message, exp.column("_detail")),
            type_,
        )
        text = self.sql(node)
        return text.replace(self.sql(exp.column("_detail")), f"({detail})").replace(
            self.sql(exp.column("_cond")), f"({condition})"
        )

    def case_map(self, value: str, mapping: Mapping[str, str]) -> str:
        """CASE value WHEN name THEN type ... END (NULL for a name the mapping lacks)."""
        whens = " ".join(
            f"WHEN {value} = {self.sql(string(k))} THEN {self.sql(string(v))}"
            for k, v in mapping.items()
        )
        return f"CASE {whens} END"


def _types(source: str, event_types: Mapping[str, str] | None) -> Mapping[str, str]:
    default = UBI_TYPES if source == "ubi" else GA4_TYPES
    if event_types is None:
        return default
    if (
        not isinstance(event_types, Mapping)
        or not event_types
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in event_types.items())
    ):
        raise ValueError(
            f"source_options event_types must be a non-empty dict from {source} event name to "
            f"event type, got {event_types!r}"
        )
    return event_types


def _base(position_base: object) -> str:
    if position_base not in ("auto", 0, 1) or isinstance(position_base, bool):
        raise ValueError(f"source_options position_base must be 'auto', 0 or 1, got {position_base!r}")
    return str(position_base)


def _ordinal(t: _Text, raw: str, field: str, context: str) -> str:
    """A whole number >= 0 read from the text `raw` (NULL stays NULL), else an error naming
    `field`."""
    pattern = t.sql(string("^[0-9]{1,18}$"))
    trimmed = f"TRIM({raw})"
    if t.dialect == "bigquery":
        matches = f"REGEXP_CONTAINS({trimmed}, {pattern})"
    elif t.dialect == "clickhouse":
        matches = f"match({trimmed}, {pattern})"
    elif t.dialect == "duckdb":
        matches = f"REGEXP_MATCHES({trimmed}, {pattern})"
    else:
        matches = f"{trimmed} RLIKE {pattern}"
    error = t.fail(f"NOT {matches}", f"duckdb_ndcg: {field} must be a whole number >= 0, got ", context)
    return (
        f"CASE WHEN {raw} IS NULL THEN NULL WHEN NOT {matches} THEN {error} "
        f"ELSE CAST({trimmed} AS BIGINT) END"
    )


def _once(t: _Text, what: str) -> str:
    """The shown list with an error where an item is shown twice in one query (ndcg_report's
    duplicates := 'error')."""
    error = t.fail(
        "_dup > 1",
        f"duckdb_ndcg: an item shown twice in one {what} (ndcg_report refuses duplicates): ",
        t.text("_sq") + " || ' ' || " + t.text("_si"),
    )
    return (
        "SELECT _sq, _si, CASE WHEN _dup > 1 THEN " + error + " ELSE _sp END AS _sp FROM "
        "(SELECT _sq, _si, _sp, COUNT(*) OVER (PARTITION BY _sq, _si) AS _dup FROM _src_listed_all)"
        " AS _d"
    )


def _ubi(t: _Text, tables: tuple[str, str], options: Mapping[str, Any]) -> list[tuple[str, str]]:
    queries, events = tables
    types = _types("ubi", options["event_types"])
    base = _base(options["position_base"])
    action = t.text("action_name")
    ordinal_raw = t.value("event_attributes.position.ordinal")
    context = (
        ordinal_raw + " || ' (query ' || COALESCE(" + t.text("query_id") + ", 'NULL') || ')'"
    )
    rows = (
        f"SELECT {action} AS _name, {t.case_map(action, types)} AS _type, "
        f"NULLIF({t.text('query_id')}, '') AS _q, "
        f"NULLIF({t.value('event_attributes.object.object_id')}, '') AS _i, "
        f"{t.text('application')} AS _app, "
        f"{_ordinal(t, ordinal_raw, 'event_attributes.position.ordinal', context)} AS _ord "
        f"FROM {events}"
    )
    listed = (
        "SELECT NULLIF(" + t.text("_q0") + ", '') AS _sq, " + t.value("_h") + " AS _si, "
        "_n AS _sp FROM (" + _indexed(t.dialect, queries, "query_response_hit_ids",
                                     "_r.query_id AS _q0") + ") AS _x"
    )
    shift = {"0": "0", "1": "1"}.get(base, "CASE WHEN _smallest = 0 THEN 0 ELSE 1 END")
    zero = t.fail(
        "_p < 1",
        "duckdb_ndcg: event_attributes.position.ordinal 0 read as 1-based (position_base := 1): "
        "query ",
        t.text("_sq") + " || ', item ' || " + t.text("_si") + " || "
        + t.sql(string(" (use position_base := 0 or 'auto')")),
    )
    impressions = (
        "SELECT _sq, _si, CASE WHEN _p < 1 THEN " + zero + " ELSE _p END AS _sp FROM ("
        f"SELECT _q AS _sq, _i AS _si, MIN(_ord + 1 - {shift}) AS _p FROM ("
        "SELECT _q, _i, _ord, MIN(_ord) OVER (PARTITION BY _app, _name) AS _smallest "
        "FROM _src_rows WHERE _type IN ('impression', 'view') AND _q IS NOT NULL "
        "AND _i IS NOT NULL AND _ord IS NOT NULL) AS _w "
        "WHERE _q NOT IN (SELECT _sq FROM _src_listed WHERE _sq IS NOT NULL) "
        "GROUP BY _q, _i) AS _g"
    )
    return [
        ("_src_rows", rows),
        ("_src_listed", listed),
        ("_src_listed_all", (
            "SELECT _sq, _si, _sp FROM _src_listed WHERE _sq IS NOT NULL "
            "UNION ALL SELECT _sq, _si, _sp FROM (" + impressions + ") AS _m"
        )),
        *_outputs(t, "query"),
    ]


def _outputs(t: _Text, what: str) -> list[tuple[str, str]]:
    """_src_shown from _src_listed_all (an item twice in one `what` is an error) and
    _src_events: the events of _src_rows (_q, _i, _type) on a shown item."""
    return [
        ("_src_shown_checked", _once(t, what)),
        ("_src_shown",
         "SELECT _sq AS query_id, _si AS item_id, _sp AS position FROM _src_shown_checked"),
        ("_src_events", (
            "SELECT e._q AS query_id, e._i AS item_id, e._type AS event_type "
            "FROM _src_rows AS e JOIN _src_shown_checked AS s ON s._sq = e._q AND s._si = e._i "
            "WHERE e._type IS NOT NULL"
        )),
    ]


def _options(source: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    known = SOURCE_OPTIONS[source]
    given = dict(given or {})
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(
            f"source_options {', '.join(unknown)}: not in portable mode for source={source!r} "
            f"(it takes {', '.join(known)})"
        )
    return {**known, **given}


def source_ctes(
    dialect: str, source: str, inputs: tuple[str, ...], options: Mapping[str, Any] | None
) -> list[tuple[str, exp.Select]]:
    """The adapter's CTEs for `dialect`, ending in ``_src_shown`` and ``_src_events``."""
    if dialect not in SOURCE_DIALECTS:
        raise ValueError(
            f"source={source!r} needs nested arrays and structs: dialect must be one of "
            f"{', '.join(SOURCE_DIALECTS)}, got {dialect!r}"
        )
    t = _Text(dialect)
    tables = tuple(t.sql(table_expression(name)) for name in inputs)
    opts = _options(source, options)
    steps = _ubi(t, tables, opts) if source == "ubi" else _ga4(t, tables, opts)
    return [(name, sqlglot.parse_one(text, read=dialect)) for name, text in steps]


def _ga4(t: _Text, tables: tuple[str, ...], options: Mapping[str, Any]) -> list[tuple[str, str]]:
    raise ValueError("source='ga4' is not available in portable mode yet")


_ = (col, timedelta, _DAY_US)
