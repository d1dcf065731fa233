"""From raw event logs to an NDCG report: the Python face of the ``ndcg_report`` macro family."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from duckdb_ndcg.macros import register

_FILE_SUFFIXES = (".parquet", ".csv", ".tsv")
_TIES = ("average", "key")
_COLLAPSE = ("max", "sum", "last")
_UNKNOWN = ("error", "ignore")
_DUPLICATES = ("error", "allow")
_SHAPES = ("report", "summary")


@dataclass(frozen=True)
class Source:
    """One input: its label for messages (table name or file path) and its DuckDB relation."""

    label: str
    relation: duckdb.DuckDBPyRelation


def _choice(name: str, value: str, accepted: Sequence[str]) -> None:
    if value not in accepted:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, accepted))}, got {value!r}")


def open_source(con: duckdb.DuckDBPyConnection, source: str | Path, role: str) -> Source:
    """A table of ``con`` or a Parquet/CSV file as a relation; ``ValueError`` naming it if absent."""
    text = str(source)
    suffix = Path(text).suffix.lower()
    if suffix in _FILE_SUFFIXES:
        if not Path(text).is_file():
            raise ValueError(f"{role} file {text} does not exist")
        try:
            reader = con.read_parquet if suffix == ".parquet" else con.read_csv
            return Source(text, reader(text))
        except duckdb.Error as error:
            raise ValueError(f"{role} file {text} cannot be read: {_first_line(error)}") from None
    try:
        return Source(text, con.table(text))
    except duckdb.Error:
        raise ValueError(
            f"{role} table {text!r} does not exist (give a table name, or a .parquet/.csv path)"
        ) from None


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


def _require(source: Source, role: str, columns: Mapping[str, str | None]) -> None:
    have = set(source.relation.columns)
    for option, column in columns.items():
        if column is not None and column not in have:
            raise ValueError(
                f"{role} {source.label} has no column {column!r} ({option}); "
                f"its columns are: {', '.join(source.relation.columns)}"
            )


def _read_mapping(
    con: duckdb.DuckDBPyConnection, mapping: Mapping[str, float] | str | Path | None
) -> dict[str, float] | None:
    if mapping is None or isinstance(mapping, Mapping):
        return None if mapping is None else {str(k): float(v) for k, v in mapping.items()}
    source = open_source(con, mapping, "mapping")
    names = source.relation.columns
    if len(names) != 2:
        raise ValueError(
            f"mapping {source.label} must have two columns (event type, grade), has {len(names)}"
        )
    rows = source.relation.fetchall()
    try:
        return {str(event): float(grade) for event, grade in rows}
    except (TypeError, ValueError):
        raise ValueError(f"mapping {source.label}: grades must be numbers") from None


def evaluate(
    rankings: str | Path,
    events: str | Path,
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
    empty_ideal: float | None = 0.0,
    duplicates: str = "error",
    event_col: str = "event_type",
    mapping: Mapping[str, float] | str | Path | None = None,
    collapse: str = "max",
    time_col: str | None = None,
    unknown: str = "error",
    shape: str = "report",
) -> duckdb.DuckDBPyRelation:
    """NDCG@k per query (``shape='report'``) or its mean per slice (``'summary'``) from event logs.

    ``rankings`` and ``events`` are table names of ``con`` or Parquet/CSV paths; columns are
    checked before any SQL runs. ``mapping`` (event type to grade) is a dict, a table or a file
    with two columns. Returns a DuckDB relation (``.df()``, ``.pl()``, ``.to_arrow_table()``).
    With ``unknown='ignore'``, a ``UserWarning`` says how many event rows were dropped.

    Example::

        rel = duckdb_ndcg.evaluate("shown.parquet", "events.parquet", k=[5, 10])
        rel.df()  # query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant
    """
    _choice("ties", ties, _TIES)
    _choice("collapse", collapse, _COLLAPSE)
    _choice("unknown", unknown, _UNKNOWN)
    _choice("duplicates", duplicates, _DUPLICATES)
    _choice("shape", shape, _SHAPES)
    if gain not in ("linear", "exponential"):
        raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")
    if collapse == "last" and time_col is None:
        raise ValueError("collapse='last' needs time_col, the name of the events' timestamp column")
    cuts = list(k) if isinstance(k, Sequence) and not isinstance(k, str) else [k]
    if not cuts:
        raise ValueError("k must be a cutoff or a non-empty list of cutoffs")
    for cut in cuts:
        if cut is not None and (isinstance(cut, bool) or not isinstance(cut, int) or cut < 1):
            raise ValueError(f"k must be positive whole numbers (or None), got {cut!r}")
    if isinstance(slice_by, str):
        slice_by = [slice_by]
    con = con if con is not None else duckdb.connect()
    register(con)
    ranked = open_source(con, rankings, "rankings")
    logged = open_source(con, events, "events")
    rank_col = {"score_col": score_col} if score_col else {"position_col": position_col}
    _require(ranked, "rankings", {"query_col": query_col, "item_col": item_col, **rank_col})
    _require(ranked, "rankings", {f"slice_by[{i}]": name for i, name in enumerate(slice_by)})
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
    grades = _read_mapping(con, mapping)
    ranked.relation.to_view("_ndcg_input_rankings", replace=True)
    logged.relation.to_view("_ndcg_input_events", replace=True)
    if unknown == "ignore":
        _warn_dropped(con, event_col, grades, logged.label)
    macro = "ndcg_report" if shape == "report" else "ndcg_summary"
    sql = (
        f"SELECT * FROM {macro}('_ndcg_input_rankings', '_ndcg_input_events', k := ?::BIGINT[], "
        "slice_by := ?::VARCHAR[], query_col := ?, item_col := ?, position_col := ?, "
        "score_col := ?::VARCHAR, ties := ?, gain := ?, empty_ideal := ?::DOUBLE, "
        "duplicates := ?, event_col := ?, "
        + ("mapping := map(?::VARCHAR[], ?::DOUBLE[]), " if grades is not None else "")
        + "collapse := ?, time_col := ?::VARCHAR, unknown := ?)"
    )
    params: list[object] = [
        cuts,
        list(slice_by),
        query_col,
        item_col,
        position_col,
        score_col,
        ties,
        gain,
        empty_ideal,
        duplicates,
        event_col,
    ]
    if grades is not None:
        params += [list(grades), list(grades.values())]
    params += [collapse, time_col, unknown]
    return con.sql(sql, params=params)


def _warn_dropped(
    con: duckdb.DuckDBPyConnection, event_col: str, grades: dict[str, float] | None, label: str
) -> None:
    mapping_sql = "map(?::VARCHAR[], ?::DOUBLE[])" if grades is not None else "NULL"
    params: list[object] = [event_col]
    if grades is not None:
        params += [list(grades), list(grades.values())]
    dropped, types = con.execute(
        "SELECT count(*), list_sort(list_distinct(list(coalesce(e::VARCHAR, 'NULL')))) FROM ("
        "SELECT COLUMNS(lambda c: c = ?) AS e FROM _ndcg_input_events) "
        f"WHERE _ndcg_event_grade(e, {mapping_sql}) IS NULL",
        params,
    ).fetchone()
    if dropped:
        warnings.warn(
            f"events {label}: ignored {dropped} rows whose event type is not in the mapping "
            f"({', '.join(types)})",
            UserWarning,
            stacklevel=3,
        )
