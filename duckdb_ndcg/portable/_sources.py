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
from duckdb_ndcg.portable._sql import cast, concat, string

# The engines whose nested arrays the adapters are written for: run on DuckDB, ClickHouse and
# Spark in the tests (tests/portable/test_sources_spark.py), BigQuery pinned by a golden statement.
SOURCE_DIALECTS = ("duckdb", "bigquery", "clickhouse", "spark")
# the functions the adapters' text calls that sqlglot keeps as written, per dialect
FUNCTIONS = {
    "clickhouse": ("arrayEnumerate", "arrayFirst", "arrayStringConcat", "match"),
    "spark": ("try_element_at",),
}
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
# whether text {x} matches the regular expression {p}, per dialect
_MATCHES = {
    "bigquery": "REGEXP_CONTAINS({x}, {p})",
    "clickhouse": "match({x}, {p})",
    "duckdb": "REGEXP_MATCHES({x}, {p})",
    "spark": "{x} RLIKE {p}",
}


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
    # spark: POSEXPLODE numbers from 0
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

    def number(self, expression: str) -> str:
        """CAST(<expression> AS BIGINT), NULL for NULL (ClickHouse: a Nullable(Int64))."""
        if self.dialect == "clickhouse":
            return f"CAST({expression} AS Nullable(Int64))"
        return f"CAST({expression} AS BIGINT)"

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
    if isinstance(position_base, (bool, float)) or position_base not in ("auto", 0, 1):
        raise ValueError(f"source_options position_base must be 'auto', 0 or 1, got {position_base!r}")
    return str(position_base)


def _ordinal(t: _Text, raw: str, field: str, context: str) -> str:
    """A whole number >= 0 read from the text `raw` (NULL stays NULL), else an error naming
    `field`."""
    pattern = t.sql(string("^[0-9]{1,18}$"))
    trimmed = f"TRIM({raw})"
    matches = _MATCHES[t.dialect].format(x=trimmed, p=pattern)
    error = t.fail(f"NOT {matches}", f"duckdb_ndcg: {field} must be a whole number >= 0, got ", context)
    return (
        f"CASE WHEN {raw} IS NULL THEN NULL WHEN NOT {matches} THEN {error} "
        f"ELSE {t.number(trimmed)} END"
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


def _param(t: _Text, name: str) -> str:
    """The GA4 event parameter `name` as text: the first of its string_value, int_value,
    double_value, float_value that is set (NULL when the event lacks it)."""
    key = t.sql(string(name))
    fields = ("string_value", "int_value", "double_value", "float_value")
    if t.dialect == "clickhouse":
        first = f"arrayFirst(_p -> _p.key = {key}, _r.event_params)"
        values = ", ".join(t.text(f"{first}.value.{f}") for f in fields)
        return f"COALESCE({values})"
    if t.dialect == "spark":
        first = f"TRY_ELEMENT_AT(FILTER(_r.event_params, _p -> _p.key = {key}), 1)"
        values = ", ".join(t.text(f"{first}.value.{f}") for f in fields)
        return f"COALESCE({values})"
    values = ", ".join(t.text(f"_p.value.{f}") for f in fields)
    unnest = {
        "bigquery": "UNNEST(_r.event_params) AS _p",
        "duckdb": "UNNEST(_r.event_params) AS _e(_p)",
    }[t.dialect]
    return f"(SELECT COALESCE({values}) FROM {unnest} WHERE _p.key = {key} LIMIT 1)"


def _signature(t: _Text) -> str:
    """A GA4 list view's items and indexes in order as one text (equal for two list views
    exactly when their items and indexes are: each value length-prefixed, NULL apart)."""
    code = "CASE WHEN {0} IS NULL THEN 'N' ELSE 'V' || " + t.text("LENGTH({0})") + " || ':' || {0} END"
    element = code.format(t.text("_h.item_id")) + " || " + code.format(t.text("_h.item_list_index"))
    if t.dialect == "clickhouse":
        return f"arrayStringConcat(arrayMap(_h -> {element}, _r.items), '')"
    if t.dialect == "spark":
        return f"ARRAY_JOIN(TRANSFORM(_r.items, _h -> {element}), '')"
    unnest = {
        "bigquery": "UNNEST(_r.items) AS _h WITH OFFSET AS _n",
        "duckdb": "UNNEST(_r.items) WITH ORDINALITY AS _t(_h, _n)",
    }[t.dialect]
    return f"(SELECT STRING_AGG({element}, '' ORDER BY _n) FROM {unnest})"


def _window(options: Mapping[str, Any], types: Mapping[str, str], t: _Text) -> str:
    """Each event's attribution window in microseconds: attribution_window None (1 day), a
    timedelta for every event, or a dict from GA4 event name to timedelta (1 day for the rest)."""
    window = options["attribution_window"]

    def micros(value: object) -> int:
        if not isinstance(value, timedelta) or value < timedelta(0):
            raise ValueError(
                "source_options attribution_window must be a timedelta >= 0 or a dict from GA4 "
                f"event name to timedelta (portable mode), got {window!r}"
            )
        return value // timedelta(microseconds=1)

    if window is None:
        return str(_DAY_US)
    if isinstance(window, Mapping):
        if not window or not all(isinstance(k, str) for k in window):
            micros(None)
        whens = " ".join(
            f"WHEN _name = {t.sql(string(k))} THEN {micros(v)}" for k, v in window.items()
        )
        return f"CASE {whens} ELSE {_DAY_US} END"
    return str(micros(window))


def _ga4(t: _Text, tables: tuple[str, ...], options: Mapping[str, Any]) -> list[tuple[str, str]]:
    (export,) = tables
    types = _types("ga4", options["event_types"])
    base = _base(options["position_base"])
    attribution = options["attribution"]
    if attribution not in ("last", "first"):
        raise ValueError(f"source_options attribution must be 'last' or 'first', got {attribution!r}")
    window = _window(options, types, t)
    stamp = t.text("_r.event_timestamp")
    digits = _ordinal(t, stamp, "event_timestamp", stamp)
    seconds = t.fail(
        "_us0 < 100000000000000",
        "duckdb_ndcg: event_timestamp must be microseconds since 1970, got ",
        t.text("_us0") + " || "
        + t.sql(string(", a time before 1973: seconds or milliseconds? "
                       "(multiply by 1000000 or 1000)")),
    )
    rows = (
        "SELECT _name, _u, _s, CASE WHEN _us0 < 100000000000000 THEN " + seconds
        + " ELSE _us0 END AS _us, items FROM ("
        f"SELECT {t.text('_r.event_name')} AS _name, {digits} AS _us0, "
        f"{t.text('_r.user_pseudo_id')} AS _u, {_param(t, 'ga_session_id')} AS _s, "
        f"_r.items AS items FROM {export} AS _r) AS _v"
    )
    searches = (
        "SELECT _u, _s, _us, _u || '/' || _s || '/' || " + t.text("_us") + " AS _sq "
        "FROM _src_rows WHERE _name = 'view_search_results' AND _u IS NOT NULL "
        "AND _s IS NOT NULL GROUP BY _u, _s, _us"
    )
    lists = (
        "SELECT " + t.number("ROW_NUMBER() OVER (ORDER BY _u, _s, _us)")
        + " AS _l, _u, _s, _us, items, "
        f"{_signature(t)} AS _sig FROM _src_rows AS _r "
        "WHERE _name = 'view_item_list' AND _u IS NOT NULL AND _s IS NOT NULL"
    )
    # each list view belongs to the latest search of its session at or before it: the time of
    # that search is a running MAX over the session's searches and list views in time order
    # (no ASOF JOIN, and no join of each list view with every earlier search of its session,
    # whose cost grows with their product); one whose items and indexes equal an earlier one's
    # of the search counts once, at the earlier time
    session_timeline = (
        f"SELECT _u, _s, _us, 0 AS _kind, {t.number('NULL')} AS _l, {t.text('NULL')} AS _sig, "
        "_us AS _st FROM _src_searches UNION ALL SELECT _u, _s, _us, 1 AS _kind, _l, _sig, "
        f"{t.number('NULL')} AS _st FROM _src_lists"
    )
    list_search = (
        "SELECT _l, _sq FROM (SELECT f._l, s._sq, ROW_NUMBER() OVER (PARTITION BY s._sq, f._sig "
        "ORDER BY f._us, f._l) AS _once FROM (SELECT * FROM (SELECT _l, _u, _s, _us, _sig, "
        "MAX(_st) OVER (PARTITION BY _u, _s ORDER BY _us, _kind ROWS BETWEEN UNBOUNDED "
        f"PRECEDING AND CURRENT ROW) AS _at FROM ({session_timeline}) AS _t) AS _w "
        "WHERE _l IS NOT NULL AND _at IS NOT NULL) AS f JOIN _src_searches AS s "
        "ON s._u = f._u AND s._s = f._s AND s._us = f._at) AS _o WHERE _once = 1"
    )
    raw_items = _indexed(t.dialect, "_src_lists", "items", "_r._l AS _l, _r._us AS _us")
    items = (
        "SELECT x._l, x._us, m._sq, CAST(x._n AS BIGINT) AS _n, " + t.text("x._h.item_id")
        + " AS _si, " + t.text("x._h.item_list_index") + " AS _raw FROM (" + raw_items
        + ") AS x JOIN _src_list_search AS m ON m._l = x._l"
    )
    index = t.number("TRIM(_raw)")
    pattern = t.sql(string("^[0-9]{1,18}$"))
    matches = _MATCHES[t.dialect].format(x="TRIM(_raw)", p=pattern)
    pages = (
        "SELECT _l, _sq, MIN(_us) AS _us, CAST(COUNT(*) AS BIGINT) AS _size, "
        "MAX(CASE WHEN _raw IS NULL OR TRIM(_raw) IN ('(not set)', '') THEN 1 ELSE 0 END) "
        "AS _unindexed, "
        f"MIN(CASE WHEN {matches} THEN {index} END) AS _min_index, "
        f"MAX(CASE WHEN {matches} THEN {index} END) AS _max_index "
        "FROM _src_items GROUP BY _l, _sq"
    )
    chosen = {
        "0": "0",
        "1": "1",
    }.get(base, "CASE WHEN MIN(CASE WHEN _unindexed = 0 THEN _min_index END) OVER "
                "(PARTITION BY _sq) = 0 THEN 0 ELSE 1 END")
    based = (
        "SELECT *, CASE WHEN _unindexed = 1 THEN 1 ELSE _min_index + 1 - _base END AS _lo, "
        "CASE WHEN _unindexed = 1 THEN _size ELSE _max_index + 1 - _base END AS _hi FROM ("
        "SELECT *, ROW_NUMBER() OVER (PARTITION BY _sq ORDER BY _us, _l) AS _page, "
        f"{chosen} AS _base FROM _src_pages) AS _b"
    )
    frame = "OVER (PARTITION BY _sq ORDER BY _page ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
    # a page starting past every earlier position keeps its indexes (absolute), one starting
    # again continues after the earlier pages; a search whose pages do both is refused
    spans = (
        "SELECT *, MIN(_keep) OVER (PARTITION BY _sq) AS _all_keep, "
        "MIN(CASE WHEN _page = 1 THEN 1 ELSE _restart END) OVER (PARTITION BY _sq) AS _all_restart "
        "FROM (SELECT *, CASE WHEN _lo > _max_before THEN 1 ELSE 0 END AS _keep, "
        "CASE WHEN _lo <= _sum_before THEN 1 ELSE 0 END AS _restart FROM ("
        f"SELECT *, COALESCE(MAX(_hi) {frame}, 0) AS _max_before, "
        f"COALESCE(SUM(_hi) {frame}, 0) AS _sum_before FROM _src_based) AS _f) AS _g"
    )
    mixed = t.fail(
        "_all_keep = 0 AND _all_restart = 0",
        "duckdb_ndcg: a GA4 search mixes pages with absolute item_list_index and pages starting "
        "again (not in portable SQL; ga4_rankings in DuckDB reads it): ",
        t.text("p._sq"),
    )
    bad = t.fail(
        f"NOT {matches}",
        "duckdb_ndcg: item_list_index must be a whole number >= 0 or '(not set)', got ",
        t.text("_raw") + " || ' (item ' || COALESCE(" + t.text("i._si") + ", 'NULL') || ')'",
    )
    zero = t.fail(
        f"{index} = 0 AND p._base = 1",
        "duckdb_ndcg: item_list_index 0 in a search read as 1-based (position_base := 1): item ",
        "COALESCE(" + t.text("i._si") + ", 'NULL') || "
        + t.sql(string(" (use position_base := 0 or 'auto')")),
    )
    listed = (
        "SELECT i._sq AS _sq, i._si AS _si, CASE WHEN p._all_keep = 0 AND p._all_restart = 0 "
        f"THEN {mixed} ELSE 0 END + CASE WHEN p._unindexed = 1 THEN i._n WHEN NOT {matches} "
        f"THEN {bad} WHEN {index} = 0 AND p._base = 1 THEN {zero} "
        f"ELSE {index} + 1 - p._base END + CASE WHEN p._all_keep = 1 THEN 0 "
        "ELSE p._sum_before END AS _sp, p._us AS _shown_us, s._u AS _u "
        "FROM _src_items AS i JOIN _src_spans AS p ON p._l = i._l "
        "JOIN _src_searches AS s ON s._sq = i._sq"
    )
    acts_raw = _indexed(t.dialect, "_src_rows", "items", "_r._name AS _name, _r._u AS _u, "
                        "_r._us AS _us")
    acts = (
        f"SELECT _name, _u, _us, NULLIF({t.text('_h.item_id')}, '') AS _i, "
        f"{t.case_map('_name', types)} AS _type, {window} AS _win FROM ({acts_raw}) AS _a "
        "WHERE _name NOT IN ('view_search_results', 'view_item_list')"
    )
    # Attribution in time order, as _ndcg_attributed does it in DuckDB: the showings of each
    # (user, item) and its interactions ('last'), or a probe at the start of each interaction's
    # window ('first'), in one window over time; a running MAX (MIN) gives the time of the last
    # showing at or before the interaction (the first one at or after the window's start). The
    # cost grows with the rows, not with showings x interactions of a (user, item), as a join on
    # (user, item) would. Then the showings at that exact time, the search and position breaking
    # ties as before (descending for 'last', ascending for 'first').
    nothing = t.number("NULL")
    if attribution == "last":
        mark, frame, pick, order = "a._us", "UNBOUNDED PRECEDING AND CURRENT ROW", "MAX", "DESC"
        showing_first, keep = 0, "_f._at >= a._us - a._win"
    else:
        mark, frame, pick, order = ("a._us - a._win", "CURRENT ROW AND UNBOUNDED FOLLOWING",
                                    "MIN", "ASC")
        showing_first, keep = 1, "_f._at <= a._us"
    numbered = (
        "SELECT *, " + t.number("ROW_NUMBER() OVER (ORDER BY _u, _us, _name, _i)")
        + " AS _a FROM _src_acts WHERE _type IS NOT NULL AND _i IS NOT NULL AND _u IS NOT NULL"
    )
    timeline = (
        f"SELECT _u, _si AS _i, _shown_us AS _t, {showing_first} AS _kind, {nothing} AS _a, "
        "_shown_us AS _s FROM _src_listed "
        f"UNION ALL SELECT a._u, a._i, {mark} AS _t, {1 - showing_first} AS _kind, a._a, "
        f"{nothing} AS _s FROM _src_acts_n AS a"
    )
    found = (
        f"SELECT _a, _at FROM (SELECT _a, {pick}(_s) OVER (PARTITION BY _u, _i ORDER BY _t, "
        f"_kind ROWS BETWEEN {frame}) AS _at FROM ({timeline}) AS _l) AS _w "
        "WHERE _a IS NOT NULL AND _at IS NOT NULL"
    )
    matched = (
        "SELECT _q, _i, _type FROM (SELECT a._a, s._sq AS _q, a._i, a._type, ROW_NUMBER() "
        f"OVER (PARTITION BY a._a ORDER BY s._sq {order}, s._sp {order}) AS _k "
        "FROM _src_found AS _f JOIN _src_acts_n AS a ON a._a = _f._a "
        "JOIN _src_listed AS s ON s._u = a._u AND s._si = a._i AND s._shown_us = _f._at "
        f"WHERE {keep}) AS _m WHERE _k = 1"
    )
    return [
        ("_src_rows", rows),
        ("_src_searches", searches),
        ("_src_lists", lists),
        ("_src_list_search", list_search),
        ("_src_items", items),
        ("_src_pages", pages),
        ("_src_based", based),
        ("_src_spans", spans),
        ("_src_listed", listed),
        ("_src_listed_all", "SELECT _sq, _si, _sp FROM _src_listed"),
        ("_src_acts", acts),
        ("_src_acts_n", numbered),
        ("_src_found", found),
        ("_src_shown_checked", _once(t, "search")),
        ("_src_shown",
         "SELECT _sq AS query_id, _si AS item_id, _sp AS position FROM _src_shown_checked"),
        # each attributed interaction was shown (the join above): no join with the lists again
        ("_src_events", "SELECT _q AS query_id, _i AS item_id, _type AS event_type FROM (" + matched + ") AS _e"),
    ]
