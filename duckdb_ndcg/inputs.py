"""What a user hands the Python API and the CLI, checked once: tables, files and data frames,
their columns, event mappings, enumerated options and cutoffs; and the named macro arguments built
from them (``evaluate``, ``compare``, ``click_grades`` and the CLI share these).

Example::

    from duckdb_ndcg.inputs import open_source, require_columns
    shown = open_source(con, "shown.parquet", "rankings")
    require_columns(shown, "rankings", {"query_col": "query_id"})
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from duckdb_ndcg.conventions import (
    COLLAPSE,
    DUPLICATES,
    GAIN,
    MACROS,
    REPORT_METRICS,
    TIES,
    UNKNOWN,
    Param,
)
from duckdb_ndcg.measures import parse_measures

_TIES = TIES.choices
_COLLAPSE = COLLAPSE.choices
_UNKNOWN = UNKNOWN.choices
_DUPLICATES = DUPLICATES.choices
# files read by path; JSON: the vendors' exports (UBI indexes, Segment calls, Algolia events) are
# NDJSON, read by DuckDB's read_json as they are
_FILE_SUFFIXES = (".parquet", ".csv", ".tsv", ".json", ".ndjson", ".jsonl")
_FRAME_MODULES = ("pandas", "polars", "pyarrow")
_frames = itertools.count(1)
_NO_CUT = 2**62  # a cutoff beyond any ranking; the SQL keeps larger ones as this too
# warn when a ranking's mean judged@k (the share of its first k items that an event of the log
# grades) is below this: more than 10 % of what it ranks would be scored 0 without evidence
MIN_JUDGED = 0.9


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


class OptionError(ValueError):
    """A bad value of one option, the option named as data: ``option`` is its name in the
    conventions table, ``message`` the whole sentence as the Python API says it (it starts with
    that name). The CLI says the same with the option's flag (``--threshold must be ...``),
    looked up by ``option``, not found in the text. Example: ``OptionError("threshold",
    "threshold must be a positive number, got -1")``."""

    def __init__(self, option: str, message: str) -> None:
        if not message.startswith(option):
            raise AssertionError(f"an OptionError's message starts with its option: {message!r}")
        super().__init__(message)
        self.option = option


def bad_choice(param: Param, value: object) -> OptionError:
    """The error of an enumerated option's value, in the macros' words (``Param.error``)."""
    return OptionError(param.name, param.error(repr(value)))


def choice(name: str, value: str, accepted: Sequence[str]) -> None:
    """``OptionError`` in the macros' words (conventions.Param.error) unless ``value`` is
    accepted."""
    if value not in accepted:
        raise bad_choice(Param(name, choices=tuple(accepted)), value)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_frame(source: object) -> bool:
    return type(source).__module__.split(".")[0] in _FRAME_MODULES


def open_source(con: duckdb.DuckDBPyConnection, source: object, role: str) -> Source:
    """A table of ``con``, a Parquet/CSV/JSON file or a pandas/polars/Arrow data frame, checked to
    exist.

    ``ValueError`` naming it when it does not.
    """
    if _is_frame(source):
        name = f"{role}_frame_{next(_frames)}"
        con.register(name, source)
        return Source(f"{role} data frame", name, tuple(_columns(con, name)))
    if not isinstance(source, (str, Path)):
        raise TypeError(
            f"{role} must be a table name, a .parquet/.csv/.json path or a data frame, "
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
            f"{role} table {text!r} does not exist (give a table name, a .parquet/.csv/.json path "
            "or a data frame)"
        ) from None


def _columns(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    return con.sql("SELECT * FROM query_table(?) LIMIT 0", params=[name]).columns


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def require_columns(source: Source, role: str, columns: Mapping[str, str | None]) -> None:
    for option, column in columns.items():
        if column is not None and column not in source.columns:
            raise ValueError(
                f"{role} {source.label} has no column {column!r} ({option}); "
                f"its columns are: {', '.join(source.columns)}"
            )


def read_mapping(
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
        raise bad_choice(REPORT_METRICS, metrics)
    if len(set(names)) < len(names):
        raise OptionError("metrics", f"metrics lists a metric more than once: {names!r}")
    if not is_number(threshold) or not (math.isfinite(threshold) and threshold > 0):
        raise OptionError("threshold", f"threshold must be a positive number, got {threshold!r}")
    if max_grade != "mapping" and (
        not is_number(max_grade) or not (math.isfinite(max_grade) and max_grade > 0)
    ):
        raise OptionError(
            "max_grade", f"max_grade must be 'mapping' or a positive number, got {max_grade!r}"
        )
    return names


def checked_report_options(
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
    choice("ties", ties, _TIES)
    choice("collapse", collapse, _COLLAPSE)
    choice("unknown", unknown, _UNKNOWN)
    choice("duplicates", duplicates, _DUPLICATES)
    if gain != "value":  # the report family's gain: each event's value (value_col) as its grade
        choice("gain", gain, GAIN.choices)
    if not is_number(log_base) or not (math.isfinite(log_base) and log_base > 1):
        raise OptionError(
            "log_base", f"log_base must be a finite number greater than 1, got {log_base!r}"
        )
    if collapse == "last" and time_col is None:
        raise ValueError("collapse='last' needs time_col, the name of the events' timestamp column")
    cuts = list(k) if isinstance(k, Sequence) and not isinstance(k, str) else [k]
    if not cuts:
        raise OptionError("k", "k must be a cutoff or a non-empty list of cutoffs")
    for cut in cuts:
        if cut is not None and (isinstance(cut, bool) or not isinstance(cut, int) or cut < 1):
            raise OptionError("k", f"k must be a positive whole number or None, got {cut!r}")
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


def checked_value_grades(
    value_grades: Mapping[float, float] | str | None,
) -> dict[float, float] | str | None:
    """``value_grades`` (value threshold to grade) as numbers, or its SQL text form as given
    (``'{30=1, 120=2}'``); the macros check order, signs and finiteness, in one error."""
    if value_grades is None or isinstance(value_grades, str):
        return value_grades
    if isinstance(value_grades, Mapping):
        try:
            return {float(t): float(g) for t, g in value_grades.items()}
        except (TypeError, ValueError):
            pass
    raise OptionError(
        "value_grades",
        "value_grades must be a MAP from value threshold to grade, e.g. {30: 1, 120: 2}, "
        f"got {value_grades!r}",
    )


def macro_arguments(macro: str, values: Mapping[str, object]) -> tuple[str, list[object]]:
    """``macro``'s named options as ``report_arguments`` writes them, in the conventions table's
    order, each with its value in ``values`` (the caller's checked arguments, by name); an option
    ``values`` lacks is left to the macro's default. ``measures`` or ``preset`` given (not None)
    takes the macro's signature with it (``ndcg_report(..., measures := ?)``). Example:
    ``macro_arguments("ab_summary", {"k": [10], "baseline": "A", "test": "t"})`` gives
    ``("k := ?::BIGINT[], baseline := ?", [[10], "A"])`` (ab_summary takes no test)."""
    table = MACROS[macro]
    params = (table.overload if values.get("measures") is not None
              else table.preset_overload if table.preset and values.get("preset") is not None
              else table.params)
    return report_arguments({p.name: values[p.name] for p in params
                             if p.default is None and p.name in ("measures", "preset")
                             or p.default is not None and p.name in values})


def report_arguments(options: Mapping[str, object]) -> tuple[str, list[object]]:
    """Named macro arguments as ``name := ?`` placeholders, and their values in order.

    ``mapping`` (event type to grade, or None) becomes ``map(?, ?)`` or NULL, and so does
    ``value_grades`` (value threshold to grade; its text form binds as text). Example:
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
        if name == "value_grades" and isinstance(value, Mapping):
            parts.append("value_grades := map(?::DOUBLE[], ?::DOUBLE[])")
            params += [list(value), list(value.values())]
            continue
        if name == "value_grades" and value is None:
            parts.append("value_grades := NULL")
            continue
        if name == "metrics":
            # written into the SQL, each name one of a fixed list: a literal list lets DuckDB
            # drop the family's branch when only ndcg is asked for
            names = [value] if isinstance(value, str) else list(value)  # type: ignore[call-overload]
            if not names or any(name not in REPORT_METRICS.choices for name in names):
                raise bad_choice(REPORT_METRICS, value)
            parts.append(f"metrics := [{', '.join(repr(n) for n in names)}]")
            continue
        cast = _CASTS.get(name)
        parts.append(f"{name} := ?" + (f"::{cast}" if cast else ""))
        params.append(value)
    return ", ".join(parts), params


def checked_measures(measures: object, **given: object) -> None:
    """evaluate(measures=...) and compare(measures=...): the string read by parse_measures (a
    ValueError naming the closest names), and no report setting that measures do not read given
    otherwise than its default (each measure names its own cutoff, level and gains).
    ``checked_measures("nDCG@10", k=5)`` raises ``k=5 is not read with measures: ...``."""
    if not isinstance(measures, str):
        raise TypeError(f"measures must be a string ('nDCG@10 P@5'), got {measures!r}")
    parse_measures(measures)
    defaults = {"k": 10, "threshold": 1, "max_grade": "mapping", "log_base": 2,
                "empty_ideal": 0.0, "duplicates": "error", "preset": None, "query_set": "both",
                "missing": "zero", "unpaired": False}
    for name, value in given.items():
        if name == "gain":
            if value not in ("linear", "value"):
                raise ValueError(f"gain={value!r} is not read with measures (each measure names "
                                 "its gains: nDCG(dcg='exp-log2')@10); only 'linear' or 'value' "
                                 "(the events' value as the grade)")
            continue
        if name == "metrics":
            value = [value] if isinstance(value, str) else list(value)  # type: ignore[call-overload]
            same = value == ["ndcg"]
        else:
            same = value == defaults[name] or (name == "k" and value == [10])
        if not same:
            raise ValueError(f"{name}={value!r} is not read with measures: each measure names "
                             "its own cutoff, relevance level and gains (nDCG@5, P(rel=2)@5, "
                             "nDCG(dcg='exp-log2')@10)")
