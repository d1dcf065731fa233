"""From raw event logs to an NDCG report: the Python face of the ``ndcg_report`` macro family."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from duckdb_ndcg.conventions import (
    COLLAPSE,
    DUPLICATES,
    GAIN,
    REPORT_METRICS,
    TIES,
    UNKNOWN,
    Param,
)
from duckdb_ndcg.macros import own_connection, register

_FILE_SUFFIXES = (".parquet", ".csv", ".tsv")
_TIES = TIES.choices
_COLLAPSE = COLLAPSE.choices
_UNKNOWN = UNKNOWN.choices
_DUPLICATES = DUPLICATES.choices
_SHAPES = ("report", "summary")
_NO_CUT = 2**62  # a cutoff beyond any ranking; the SQL keeps larger ones as this too
_MIN_MATCHED = 0.01  # warn when fewer graded events than this share match a shown item
# warn when a ranking's mean judged@k (the share of its first k items that an event of the log
# grades) is below this: more than 10 % of what it ranks would be scored 0 without evidence
MIN_JUDGED = 0.9


_FRAME_MODULES = ("pandas", "polars", "pyarrow")
_frames = itertools.count(1)


@dataclass(frozen=True)
class Source:
    """One input: its label for messages (table name or file path) and the name the SQL reads.

    ``name`` is what ``query_table()`` resolves: the table name or file path itself, or the name
    under which a data frame was registered. Nothing is copied into fixed-name views, so every
    relation ``evaluate`` returns keeps reading its own inputs.
    """

    label: str
    name: str
    columns: tuple[str, ...]


def _choice(name: str, value: str, accepted: Sequence[str]) -> None:
    """``ValueError`` in the macros' words (conventions.Param.error) unless ``value`` is accepted."""
    if value not in accepted:
        raise ValueError(Param(name, choices=tuple(accepted)).error(repr(value)))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_frame(source: object) -> bool:
    return type(source).__module__.split(".")[0] in _FRAME_MODULES


def open_source(con: duckdb.DuckDBPyConnection, source: object, role: str) -> Source:
    """A table of ``con``, a Parquet/CSV file or a pandas/polars/Arrow data frame, checked to exist.

    ``ValueError`` naming it when it does not.
    """
    if _is_frame(source):
        name = f"{role}_frame_{next(_frames)}"
        con.register(name, source)
        return Source(f"{role} data frame", name, tuple(_columns(con, name)))
    if not isinstance(source, (str, Path)):
        raise TypeError(
            f"{role} must be a table name, a .parquet/.csv path or a data frame, "
            f"got {type(source).__name__}"
        )
    text = str(source)
    if Path(text).suffix.lower() in _FILE_SUFFIXES:
        if not Path(text).is_file():
            raise ValueError(f"{role} file {text} does not exist")
        try:
            return Source(text, text, tuple(_columns(con, text)))
        except duckdb.InterruptException:  # Ctrl-C: not a message of ours
            raise
        except duckdb.Error as error:
            raise ValueError(f"{role} file {text} cannot be read: {_first_line(error)}") from None
    try:
        return Source(text, text, tuple(_columns(con, text)))
    except duckdb.InterruptException:  # Ctrl-C: not a message of ours
        raise
    except duckdb.Error:
        raise ValueError(
            f"{role} table {text!r} does not exist (give a table name, a .parquet/.csv path "
            "or a data frame)"
        ) from None


def _columns(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    return con.sql("SELECT * FROM query_table(?) LIMIT 0", params=[name]).columns


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def _require(source: Source, role: str, columns: Mapping[str, str | None]) -> None:
    for option, column in columns.items():
        if column is not None and column not in source.columns:
            raise ValueError(
                f"{role} {source.label} has no column {column!r} ({option}); "
                f"its columns are: {', '.join(source.columns)}"
            )


def _read_mapping(
    con: duckdb.DuckDBPyConnection, mapping: Mapping[str, float] | str | Path | None
) -> dict[str, float] | None:
    if mapping is None or isinstance(mapping, Mapping):
        return None if mapping is None else {str(k): float(v) for k, v in mapping.items()}
    source = open_source(con, mapping, "mapping")
    if len(source.columns) != 2:
        raise ValueError(
            f"mapping {source.label} must have two columns (event type, grade), "
            f"has {len(source.columns)}"
        )
    rows = con.sql("SELECT * FROM query_table(?)", params=[source.name]).fetchall()
    try:
        return {str(event): float(grade) for event, grade in rows}
    except (TypeError, ValueError):
        raise ValueError(f"mapping {source.label}: grades must be numbers") from None


def evaluate(
    rankings: str | Path | object,
    events: str | Path | object,
    *,
    k: int | Sequence[int | None] | None = 10,
    slice_by: Sequence[str] = (),
    con: duckdb.DuckDBPyConnection | None = None,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    score_col: str | None = None,
    ties: str = "average",
    gain: str = "linear",
    log_base: float = 2,
    empty_ideal: float | None = 0.0,
    duplicates: str = "error",
    event_col: str = "event_type",
    mapping: Mapping[str, float] | str | Path | None = None,
    collapse: str = "max",
    time_col: str | None = None,
    unknown: str = "error",
    metrics: str | Sequence[str] = ("ndcg",),
    threshold: float = 1,
    max_grade: str | float = "mapping",
    shape: str = "report",
) -> duckdb.DuckDBPyRelation:
    """NDCG@k per query (``shape='report'``) or its mean per slice (``'summary'``) from event logs.

    ``rankings`` and ``events`` are table names of ``con``, Parquet/CSV paths or pandas/polars/
    Arrow data frames; columns are checked before any SQL runs. ``mapping`` (event type to grade)
    is a dict, a table or a file with two columns. Returns a DuckDB relation (``.df()`` needs
    pandas, ``.pl()`` polars, ``.to_arrow_table()`` pyarrow) that reads its own inputs: later
    calls on the same connection do not change it. A ``UserWarning`` says how many event rows
    ``unknown='ignore'`` dropped, how many events without an item (graded 0 or ignored) were
    dropped, and when (almost) no graded event matches a shown item. The other
    options are ``ndcg_report``'s, with its defaults: ``log_base`` is the base of the discount
    ``log_base(position + 1)`` (2; any finite number above 1), ``gain`` 'linear' or 'exponential'.
    ``metrics`` adds family metrics (``'precision_at_k'``, ``'err'``, ...) as columns of the
    report, with ``threshold`` (relevant: grade >= threshold) and err's ``max_grade``
    (``'mapping'``: the mapping's largest grade); ``shape='summary'`` gives their means
    (``mean_precision_at_k``, ...). A ``slice_by`` column the rankings lack is taken from the
    events, one value per query (events of a query that disagree are an error; a query without
    events gets NULL; a column both tables have is the rankings'), by the macro itself. The summary always has ``mean_judged_at_k``, the share of each ranking's
    first k items that an event of the log grades (``'judged_at_k'`` in ``metrics`` gives it per
    query): an offline replay's items never shown to anyone are unjudged and score 0, and the CLI
    warns when the share is below ``MIN_JUDGED`` (0.9).

    Example::

        rel = duckdb_ndcg.evaluate("shown.parquet", "events.parquet", k=[5, 10])
        rel.df()  # query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant
        duckdb_ndcg.evaluate("shown.parquet", "events.parquet", metrics=["ndcg", "recall_at_k"])
    """
    _choice("shape", shape, _SHAPES)
    names = checked_metrics(metrics, threshold, max_grade)
    cuts = _checked_report_options(k, ties, gain, log_base, collapse, time_col, unknown, duplicates)
    if isinstance(slice_by, str):
        slice_by = [slice_by]
    con = register(con) if con is not None else own_connection()
    ranked = open_source(con, rankings, "rankings")
    logged = open_source(con, events, "events")
    rank_col = {"score_col": score_col} if score_col else {"position_col": position_col}
    _require(ranked, "rankings", {"query_col": query_col, "item_col": item_col, **rank_col})
    _require(
        logged,
        "events",
        {
            "query_col": query_col,
            "item_col": item_col,
            "event_col": event_col,
            "time_col": time_col,
        },
    )
    require_slices({"rankings": ranked}, logged, slice_by)
    grades = _read_mapping(con, mapping)
    mapping_sql = "map(?::VARCHAR[], ?::DOUBLE[])" if grades is not None else "NULL"
    mapping_params = [list(grades), list(grades.values())] if grades is not None else []
    _warn_dropped(
        con, logged, (query_col, item_col, event_col), unknown, mapping_sql, mapping_params
    )
    _warn_unmatched(
        con, ranked, logged, query_col, item_col, event_col, mapping_sql, mapping_params
    )
    macro = "ndcg_report" if shape == "report" else "ndcg_summary"
    arguments, params = report_arguments(
        {
            "k": cuts,
            "slice_by": list(slice_by),
            "query_col": query_col,
            "item_col": item_col,
            "position_col": position_col,
            "score_col": score_col,
            "ties": ties,
            "gain": gain,
            "log_base": log_base,
            "empty_ideal": empty_ideal,
            "duplicates": duplicates,
            "event_col": event_col,
            "mapping": grades,
            "collapse": collapse,
            "time_col": time_col,
            "unknown": unknown,
        }
    )
    # the names are checked against a fixed list, so they are written into the SQL: a literal
    # list lets DuckDB drop the family's branch when only ndcg is asked for
    listed = ", ".join(f"'{name}'" for name in names)
    arguments += f", metrics := [{listed}], threshold := ?, max_grade := ?"
    params += [threshold, max_grade]
    sql = f"SELECT * FROM {macro}(?, ?, {arguments})"
    return con.sql(sql, params=[ranked.name, logged.name, *params])


def require_slices(
    ranked: Mapping[str, Source], logged: Source, slice_by: Sequence[str]
) -> None:
    """``ValueError`` for a ``slice_by`` column that neither a rankings table (by role) nor the
    events has.

    The SQL takes a column the rankings lack from the events, one value per query (see
    ``ndcg_report``); this only names a missing column before any SQL runs.
    """
    for i, name in enumerate(slice_by):
        for role, source in ranked.items():
            if name not in source.columns and name not in logged.columns:
                raise ValueError(
                    f"neither {role} {source.label} nor events {logged.label} has a column "
                    f"{name!r} (slice_by[{i}]); rankings columns: {', '.join(source.columns)}"
                )


def judged_percent(share: float) -> str:
    """A judged share as a whole percentage rounded down, so that one below MIN_JUDGED never
    reads as 90 %: ``judged_percent(0.899)`` is ``'89 %'``."""
    return f"{math.floor(share * 100 + 1e-9):.0f} %"


def judged_warning(
    who: str, events: str, rows: Sequence[tuple[str, int | None, float | None]]
) -> str | None:
    """One line when some (slice, cutoff) row's mean judged@k is below MIN_JUDGED, naming the
    worst; None otherwise. ``rows`` are (slice as ``device=web`` text or '', k, share).

    Example: ``judged_warning("ranker B", "events.csv", [("", 10, 0.77)])`` is ``'ranker B: only
    77 % of its top 10 items are judged (an event in events.csv grades them); the other 23 % were
    never shown to anyone, or shown without an event logged, and score 0 as if seen and
    ignored'``.
    """
    low = sorted(
        (share, where, k) for where, k, share in rows if share is not None and share < MIN_JUDGED
    )
    if not low:
        return None
    share, where, k = low[0]
    top = "whole ranking" if k is None else f"top {k}"
    rest = 100 - int(judged_percent(share).split()[0])
    more = len(low) - 1
    more_rows = f"; {more} more (slice, k) row{'s' * (more > 1)} below {judged_percent(MIN_JUDGED)}"
    return (
        f"{who}: only {judged_percent(share)} of its {top} items are judged"
        f"{f' ({where})' if where else ''} (an event in {events} grades them); the other "
        f"{rest} % were never shown to anyone, or shown without an event logged, and score 0 as "
        f"if seen and ignored{more_rows if more else ''}"
    )


def checked_metrics(
    metrics: str | Sequence[str], threshold: float, max_grade: str | float
) -> list[str]:
    """``metrics`` as a list of names, checked with ``threshold`` and ``max_grade``: ValueError
    in the macro's words (an unknown name, an empty list or a name given twice)."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names or any(name not in REPORT_METRICS.choices for name in names):
        raise ValueError(REPORT_METRICS.error(repr(metrics)))
    if len(set(names)) < len(names):
        raise ValueError(f"metrics lists a metric more than once: {names!r}")
    if not _is_number(threshold) or not (math.isfinite(threshold) and threshold > 0):
        raise ValueError(f"threshold must be a positive number, got {threshold!r}")
    if max_grade != "mapping" and (
        not _is_number(max_grade) or not (math.isfinite(max_grade) and max_grade > 0)
    ):
        raise ValueError(f"max_grade must be 'mapping' or a positive number, got {max_grade!r}")
    return names


def _checked_report_options(
    k: int | Sequence[int | None] | None,
    ties: str,
    gain: str,
    log_base: float,
    collapse: str,
    time_col: str | None,
    unknown: str,
    duplicates: str,
) -> list[int | None]:
    """The report options every Python entry point shares, checked; returns the cutoffs."""
    _choice("ties", ties, _TIES)
    _choice("collapse", collapse, _COLLAPSE)
    _choice("unknown", unknown, _UNKNOWN)
    _choice("duplicates", duplicates, _DUPLICATES)
    _choice("gain", gain, GAIN.choices)
    if not _is_number(log_base) or not (math.isfinite(log_base) and log_base > 1):
        raise ValueError(f"log_base must be a finite number greater than 1, got {log_base!r}")
    if collapse == "last" and time_col is None:
        raise ValueError("collapse='last' needs time_col, the name of the events' timestamp column")
    cuts = list(k) if isinstance(k, Sequence) and not isinstance(k, str) else [k]
    if not cuts:
        raise ValueError("k must be a cutoff or a non-empty list of cutoffs")
    for cut in cuts:
        if cut is not None and (isinstance(cut, bool) or not isinstance(cut, int) or cut < 1):
            raise ValueError(f"k must be positive whole numbers (or None), got {cut!r}")
    return [None if cut is None else min(cut, _NO_CUT) for cut in cuts]


# SQL types of the macro parameters passed as typed placeholders (the rest bind as given)
_CASTS = {
    "k": "BIGINT[]",
    "slice_by": "VARCHAR[]",
    "score_col": "VARCHAR",
    "time_col": "VARCHAR",
    "log_base": "DOUBLE",
    "empty_ideal": "DOUBLE",
    "conf": "DOUBLE",
    "eps": "DOUBLE",
    "alpha": "DOUBLE",
    "resamples": "BIGINT",
}


def report_arguments(options: Mapping[str, object]) -> tuple[str, list[object]]:
    """Named macro arguments as ``name := ?`` placeholders, and their values in order.

    ``mapping`` (event type to grade, or None) becomes ``map(?, ?)`` or NULL. Example:
    ``report_arguments({"k": [5], "ties": "key"})`` gives ``("k := ?::BIGINT[], ties := ?",
    [[5], "key"])``.
    """
    parts: list[str] = []
    params: list[object] = []
    for name, value in options.items():
        if name == "mapping":
            grades = value if isinstance(value, Mapping) else None
            if grades is None:
                parts.append("mapping := NULL")
            else:
                parts.append("mapping := map(?::VARCHAR[], ?::DOUBLE[])")
                params += [list(grades), list(grades.values())]
            continue
        cast = _CASTS.get(name)
        parts.append(f"{name} := ?" + (f"::{cast}" if cast else ""))
        params.append(value)
    return ", ".join(parts), params


def _warn_dropped(
    con: duckdb.DuckDBPyConnection,
    logged: Source,
    columns: tuple[str, str, str],
    unknown: str,
    mapping_sql: str,
    mapping_params: list[object],
) -> None:
    """Warn of the event rows the report drops (one scan): those of types the mapping lacks
    (``unknown='ignore'``), and those without an item whose type is graded 0 or ignored."""
    query_col, item_col, event_col = columns
    ignore = unknown == "ignore"
    row = con.sql(
        "SELECT count(*) FILTER (WHERE g IS NULL), "
        "list_sort(list(DISTINCT coalesce(e, 'NULL')) FILTER (WHERE g IS NULL)), "
        "count(*) FILTER (WHERE _itemless), "
        "list_sort(list(DISTINCT coalesce(e, 'NULL')) FILTER (WHERE _itemless)) "
        "FROM (SELECT *, no_item AND NOT no_query AND (g = 0 OR (g IS NULL AND ?)) AS _itemless "
        f"FROM (SELECT *, _ndcg_event_grade(e, {mapping_sql}) AS g FROM ("
        "SELECT COLUMNS(lambda c: c = ?)::VARCHAR AS e, "
        "COLUMNS(lambda c: c = ?) IS NULL AS no_item, "
        "COLUMNS(lambda c: c = ?) IS NULL AS no_query FROM query_table(?))))",
        params=[ignore, *mapping_params, event_col, item_col, query_col, logged.name],
    ).fetchall()[0]
    ignored, ignored_types, itemless, itemless_types = row
    if ignore and ignored:
        warnings.warn(
            f"events {logged.label}: ignored {ignored} rows whose event type is not in the mapping "
            f"({', '.join(ignored_types)})",
            UserWarning,
            stacklevel=3,
        )
    if itemless:
        warnings.warn(
            f"events {logged.label}: dropped {itemless} rows without {item_col} (event types "
            f"graded 0 or ignored: {', '.join(itemless_types)})",
            UserWarning,
            stacklevel=3,
        )


def _warn_unmatched(
    con: duckdb.DuckDBPyConnection,
    ranked: Source,
    logged: Source,
    query_col: str,
    item_col: str,
    event_col: str,
    mapping_sql: str,
    mapping_params: list[object],
) -> None:
    """Warn when (almost) no graded event names a shown (query, item): ids written differently."""
    try:
        sampled, matched = con.sql(
            "SELECT sampled, matched FROM event_match(?, ?, query_col := ?, item_col := ?, "
            f"event_col := ?, mapping := {mapping_sql})",
            params=[ranked.name, logged.name, query_col, item_col, event_col, *mapping_params],
        ).fetchall()[0]
    except duckdb.InterruptException:  # Ctrl-C: not a message of ours
        raise
    except duckdb.Error:
        return  # the report itself raises the clearer error (key types, NULL keys, ...)
    if sampled and matched < math.ceil(sampled * _MIN_MATCHED):
        warnings.warn(
            f"only {matched} of {sampled} graded (query, item) pairs sampled from events "
            f"{logged.label} match a row of rankings {ranked.label}: NDCG will be near 0. "
            f"Check that {query_col} and {item_col} are written the same way in both "
            "(case, leading zeros, prefixes)",
            UserWarning,
            stacklevel=3,
        )
