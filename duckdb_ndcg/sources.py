"""Vendors' exports as the report's two inputs: ``evaluate(..., source='ga4')`` and the CLI's
``--source``, over the SQL adapters of ``sql/sources/`` (``ga4_rankings``/``ga4_events``, ...).

Example::

    rel = duckdb_ndcg.evaluate("ga4_export.parquet", source="ga4", k=[5, 10],
                               slice_by=["device"], source_options={"attribution": "first"})
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import duckdb

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.inputs import Source, open_source
from duckdb_ndcg.macros import literal, quoted

# each source's inputs, in the order its macros take them
SOURCES: dict[str, tuple[str, ...]] = {
    "ga4": ("export",),
    "ubi": ("queries", "events"),
    "algolia": ("responses", "events"),
    "snowplow": ("events",),
    "segment": ("tracks",),
}
# warn when more than this share of the interactions a source names could not be attributed
MAX_UNATTRIBUTED = 0.1
_tables = itertools.count(1)


def _value_sql(value: object) -> str:
    """A Python value as a SQL literal: text quoted (quotes doubled), finite numbers, NULL, and a
    dict as a MAP of such literals: the adapters' options are written into the SQL this way
    (escaped, never as raw text), as their table macros need constants."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"source option values must be finite numbers, got {value!r}")
        return repr(value)
    if isinstance(value, str):
        return literal(value)
    if isinstance(value, Mapping) and value:
        keys = ", ".join(_value_sql(str(k)) for k in value)
        values = ", ".join(_value_sql(v) for v in value.values())
        return f"MAP([{keys}], [{values}])"
    raise ValueError(f"a source option must be text, a number or a non-empty dict, got {value!r}")


def _calls(source: str, opened: Sequence[Source], options: Mapping[str, object]) -> dict[str, str]:
    """The SQL calls of the source's rankings, events and unattributed macros, each with the
    inputs and the options it takes."""
    calls = {}
    for part in ("rankings", "events", "unattributed"):
        macro = MACROS[f"{source}_{part}"]
        positional = [p for p in macro.params if p.default is None]
        named = {p.name for p in macro.params if p.default is not None}
        arguments = [_value_sql(s.name) for s in opened[: len(positional)]]
        arguments += [f"{name} := {_value_sql(v)}" for name, v in options.items() if name in named]
        calls[part] = f"{source}_{part}({', '.join(arguments)})"
    return calls


class Adapted(NamedTuple):
    """What ``adapted`` made: the rankings and events (temporary tables or views: the report's
    inputs), the table of every interaction with its reason (NULL: attributed, in ``events``),
    and the public call that lists the interactions not attributed (for the user to run)."""

    rankings: Source
    events: Source
    interactions: str
    unattributed: str


def _table(con: duckdb.DuckDBPyConnection, kind: str, select: str) -> str:
    """A new temporary table of ``con`` holding ``select``; its name."""
    name = f"_ndcg_{kind}_{next(_tables)}"
    con.execute(f"CREATE TEMP TABLE {quoted(name)} AS {select}")
    return name


def _ga4_shown(
    con: duckdb.DuckDBPyConnection, export: str, given: Mapping[str, str]
) -> tuple[str, str, str]:
    """GA4's shown lists (the rows of ``ga4_rankings`` with ``given``'s options) as a temporary
    view of ``con``: its name, then the names of the two tables it joins. The searches (one row
    each, with their query_id, user, session and slices) and what each showed (search number,
    item, position, time): the 4,000,000 rows of 1,000,000 events are written with 4 columns
    instead of 9, and the attribution reads the two tables (by search number) instead of the
    view."""
    searches = _table(
        con, "ga4_searches", f"SELECT * FROM _ndcg_ga4_searches({_value_sql(export)})"
    )
    placed = _table(
        con,
        "ga4_placed",
        f"SELECT * FROM _ndcg_ga4_placed({_value_sql(export)}, {given['position_base']}, "
        f"{given['list_name']}, {_value_sql(searches)})",
    )
    name = f"_ndcg_ga4_rankings_{next(_tables)}"
    con.execute(
        f"CREATE TEMP VIEW {quoted(name)} AS SELECT s.query_id, p.item_id, p.position, "
        "s.search_term, s.device, s.event_date, s.user_id, s.session_id, p.shown_at "
        f"FROM {quoted(placed)} p JOIN {quoted(searches)} s USING (_search)"
    )
    return name, searches, placed


def adapted(
    con: duckdb.DuckDBPyConnection,
    source: str,
    inputs: Sequence[object],
    options: Mapping[str, object] | None = None,
) -> Adapted:
    """The source's shown lists and attributed interactions in the report's contract, as
    temporary tables of ``con`` (the report reads its inputs several times, which would run a
    view's adapter each time). The adapter's work is done once: the shown lists
    (``<source>_rankings``; GA4's as a view over two narrow tables, ``_ga4_shown``), then every
    interaction with its reason, attributed to those shown
    lists read by name (``_ndcg_<source>_interactions(..., shown := ...)``; GA4's ``searches :=
    ..., placed := ...``, the view's two tables), not computed again, into a table of which
    the events are a view (reason NULL) and whose counts ``unattributed_warning`` reads; the same
    rows as ``<source>_events`` and ``<source>_unattributed``. ``inputs`` are the source's
    tables, files or data frames (``SOURCES``: GA4 one export; UBI queries and events; Algolia
    responses and events); ``options`` the adapters' named options (``attribution``,
    ``attribution_window``, ``position_base``, ``event_types``, ``list_name``, as the source's
    macros take them)."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    roles = SOURCES[source]
    if len(inputs) != len(roles):
        raise ValueError(
            f"source {source!r} reads {len(roles)} input{'s' * (len(roles) > 1)} "
            f"({', '.join(roles)}), got {len(inputs)}"
        )
    options = dict(options or {})
    named = [p for p in MACROS[f"{source}_events"].params if p.default is not None]
    unknown = [name for name in options if name not in {p.name for p in named}]
    if unknown:
        raise ValueError(
            f"source {source!r} takes the options {', '.join(p.name for p in named) or 'none'}; "
            f"got {', '.join(map(repr, unknown))}"
        )
    opened = [open_source(con, x, f"{source} {role}") for x, role in zip(inputs, roles)]
    calls = _calls(source, opened, options)
    given = {p.name: _value_sql(options[p.name]) if p.name in options else p.default for p in named}
    # the checks of the source's events macro (the internal macro below reads its options
    # unchecked): the options the adapters share where it takes them, then its event types
    checks = [f"_ndcg_{source}_types({given['event_types']})"]
    if "position_base" in given:
        shared = [given.get("attribution", "'last'"), given.get("attribution_window", "NULL")]
        checks.insert(0, f"_ndcg_source_options({', '.join(shared)}, {given['position_base']})")
    con.execute(f"SELECT {', '.join(checks)}")
    if source == "ga4":
        shown, searches, placed = _ga4_shown(con, opened[0].name, given)
    else:
        shown = _table(con, f"{source}_rankings", f"SELECT * FROM {calls['rankings']}")
    # the internal macro takes the inputs, then the events macro's options by name
    arguments = [_value_sql(s.name) for s in opened]
    arguments += [f"{name} := {value}" for name, value in given.items()]
    if source == "ga4":  # attributed by search number: the two tables the view joins
        arguments += [f"searches := {_value_sql(searches)}", f"placed := {_value_sql(placed)}"]
    else:
        arguments.append(f"shown := {_value_sql(shown)}")
    interactions = _table(
        con,
        f"{source}_interactions",
        f"SELECT * FROM _ndcg_{source}_interactions({', '.join(arguments)})",
    )
    # a view (a copy of the attributed rows cost a table's memory, which the report spills)
    events = f"_ndcg_{source}_events_{next(_tables)}"
    con.execute(
        f"CREATE TEMP VIEW {quoted(events)} AS "
        f"SELECT * EXCLUDE (reason) FROM {quoted(interactions)} WHERE reason IS NULL"
    )
    tables = []
    for part, name in (("rankings", shown), ("events", events)):
        columns = con.sql("SELECT * FROM query_table(?) LIMIT 0", params=[name]).columns
        label = f"{source}_{part}({', '.join(s.label for s in opened)})"
        tables.append(Source(label, name, tuple(columns)))
    return Adapted(tables[0], tables[1], interactions, calls["unattributed"])


# the interactions a source names (its event types) that no shown list got, from the table of
# every interaction with its reason (NULL: attributed; 'unknown event': a type the source does
# not read, left out): a scalar query
UNATTRIBUTED_SQL = (
    "SELECT count(*) FILTER (WHERE reason IS NOT NULL AND reason <> 'unknown event') "
    "FROM query_table(?)"
)


def unattributed_warning(con: duckdb.DuckDBPyConnection, source: str, made: Adapted) -> str | None:
    """One line when more than ``MAX_UNATTRIBUTED`` of the interactions the source names (its
    event_types) could not be attributed to a search, with the count of each reason and the call
    that lists them; None otherwise. Interactions of event types the source does not read
    ('unknown event': GA4's view_item, begin_checkout, ...) are left out of the share."""
    counts = con.execute(
        "SELECT reason, count(*) FROM query_table(?) GROUP BY reason ORDER BY 2 DESC, 1",
        [made.interactions],
    ).fetchall()
    named = [(reason, n) for reason, n in counts if reason not in (None, "unknown event")]
    missed = sum(n for _, n in named)
    attributed = sum(n for reason, n in counts if reason is None)
    total = missed + attributed
    if total == 0 or missed <= MAX_UNATTRIBUTED * total:
        return None
    share = f"{math.floor(100 * missed / total):.0f} %"
    listed = ", ".join(f"{reason} {n:,}" for reason, n in named)
    return (
        f"{source}: {missed:,} of {total:,} interactions ({share}) could not be attributed to a "
        f"search and are not graded ({listed}); list them: SELECT * FROM {made.unattributed}"
    )
