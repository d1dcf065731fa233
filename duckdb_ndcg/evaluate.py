"""From raw event logs to an NDCG report: the Python face of the ``ndcg_report`` macro family."""

from __future__ import annotations

import datetime
import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from duckdb_ndcg.inputs import (
    Source,
    checked_measures,
    checked_metrics,
    checked_report_options,
    checked_value_grades,
    choice,
    macro_arguments,
    open_source,
    read_mapping,
    require_columns,
    require_slices,
)
from duckdb_ndcg.macros import own_connection, register
from duckdb_ndcg.presets import checked_evaluate_preset
from duckdb_ndcg.sources import SOURCES, UNATTRIBUTED_SQL, adapted, unattributed_warning

_SHAPES = ("report", "summary")
_MIN_MATCHED = 0.01  # warn when fewer graded events than this share match a shown item


def evaluate(
    rankings: str | Path | object,
    events: str | Path | object | None = None,
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
    value_col: str = "value",
    value_grades: Mapping[float, float] | str | None = None,
    bucket: str | datetime.timedelta | None = None,
    start: str | datetime.date | None = None,
    stop: str | datetime.date | None = None,
    rankings_time_col: str = "shown_at",
    shape: str = "report",
    source: str | None = None,
    source_options: Mapping[str, object] | None = None,
    preset: str | None = None,
    measures: str | None = None,
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

    ``value_grades`` (``{30: 1, 120: 2}``: value threshold to grade) grades each event of a type
    the mapping grades above 0 by its value in ``value_col`` (``'value'``, as the source adapters
    emit it): the grade of the largest threshold <= value, 0 below every threshold;
    ``gain='value'`` takes the value itself as the grade (linear gain; with ``collapse='sum'``
    an item's gain is its summed revenue). See ``ndcg_report``.

    ``bucket`` (``'day'``, ``'week'`` or a ``timedelta``/INTERVAL text such as ``'6 hours'``)
    adds the slice column ``bucket``, the start of the query's time bucket; ``start``/``stop``
    keep the queries whose time is in ``[start, stop)``. A query's time is the earliest
    ``rankings_time_col`` (``'shown_at'``, as the source adapters write it) of its rows.

    ``source`` reads a vendor's export through its adapter (``sql/sources/``): ``'ga4'`` takes
    the GA4 export as ``rankings`` (no ``events``), ``'ubi'`` the ubi_queries and ubi_events
    tables, ``'algolia'`` the search responses and the Insights events; ``source_options`` are
    the adapter's options (``{'attribution': 'first', 'position_base': 0}``). The slices the
    adapter carries (GA4: ``search_term``, ``device``, ``event_date``) work in ``slice_by``. A
    ``UserWarning`` says how many interactions could not be attributed to a search, by reason,
    when they are more than 10 % (``sources.MAX_UNATTRIBUTED``); the summary's last column
    ``unattributed`` counts them whatever their share (the interactions of the event types the
    source reads that no shown list got: they belong to no query, so the count is the same on
    every row; ``<source>_unattributed`` lists them).

    Example::

        rel = duckdb_ndcg.evaluate("shown.parquet", "events.parquet", k=[5, 10])
        rel.df()  # query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant
        duckdb_ndcg.evaluate("shown.parquet", "events.parquet", metrics=["ndcg", "recall_at_k"])
        duckdb_ndcg.evaluate("ga4_export.parquet", source="ga4", slice_by=["device"])

    ``preset`` (default None) sets NDCG's conventions as a tool does (``conventions.PRESETS``):
    ``'sklearn'`` (ties averaged, linear gain, the ideal from the shown items' grades only),
    ``'lightgbm'``, ``'xgboost'`` (exponential gain, a query without a relevant item 1, the rank
    as given), ``'opensearch_srw'`` (exponential gain, the rank as given, ndcg and dcg rounded to
    2 decimals, per query only); a preset's option given otherwise, or another metric than ndcg,
    is an error.

    ``measures`` (default None) scores measures as IR tools name them instead of NDCG@k and the
    family: ``'nDCG@10 P(rel=2)@5 RR Judged@10'``, ``'ndcg_cut.5,10'``, ``'map@100'``
    (``parse_measures`` reads them): ``ndcg_report(..., measures := ...)``, whose rows are
    ``event_measures``' long format (query, slices, measure, value), and the summary
    ``event_measures_summary``'s (slices, measure, value, queries); each measure names its own
    cutoff, relevance level and gains, so ``k``, ``metrics``, ``threshold``, ``max_grade``,
    ``log_base``, ``empty_ideal``, a gain other than 'linear' or 'value', ``duplicates='allow'``
    and ``preset`` given with it are an error. Example: ``evaluate("shown.parquet", "events.parquet", measures="nDCG@10 MAP")``.
    """
    choice("shape", shape, _SHAPES)
    if measures is not None:
        checked_measures(measures, k=k, metrics=metrics, threshold=threshold, max_grade=max_grade,
                        log_base=log_base, empty_ideal=empty_ideal, gain=gain,
                        duplicates=duplicates, preset=preset)
        metrics = ("ndcg",)
    names = checked_metrics(metrics, threshold, max_grade)
    if preset is not None:  # in Python's words, before any work; the macros apply it
        checked_evaluate_preset(preset, {"ties": ties, "gain": gain, "empty_ideal": empty_ideal},
                                score_col is not None, list(names), shape)
    cuts = checked_report_options(k, ties, gain, log_base, collapse, time_col, unknown, duplicates)
    value_grades = checked_value_grades(value_grades)
    by_value = value_grades is not None or gain == "value"
    if isinstance(slice_by, str):
        slice_by = [slice_by]
    con = register(con) if con is not None else own_connection()
    if source is not None:
        inputs = [rankings] if events is None else [rankings, events]
        made = adapted(con, source, inputs, source_options)
        ranked, logged = made.rankings, made.events
        warning = unattributed_warning(con, source, made)
        if warning is not None:
            warnings.warn(warning, stacklevel=2)
    elif source_options is not None:
        raise ValueError(f"source_options applies only with source ({', '.join(SOURCES)})")
    elif events is None:
        raise ValueError("evaluate needs events (or source=... for a vendor's export)")
    else:
        ranked = open_source(con, rankings, "rankings")
        logged = open_source(con, events, "events")
    rank_col = {"score_col": score_col} if score_col else {"position_col": position_col}
    require_columns(ranked, "rankings", {"query_col": query_col, "item_col": item_col, **rank_col})
    require_columns(
        logged,
        "events",
        {
            "query_col": query_col,
            "item_col": item_col,
            "event_col": event_col,
            "time_col": time_col,
            "value_col": value_col if by_value else None,
        },
    )
    timed = bucket is not None or start is not None or stop is not None
    require_columns(ranked, "rankings", {"rankings_time_col": rankings_time_col if timed else None})
    require_slices({"rankings": ranked}, logged, slice_by)
    grades = read_mapping(con, mapping)
    mapping_sql = "map(?::VARCHAR[], ?::DOUBLE[])" if grades is not None else "NULL"
    mapping_params = [list(grades), list(grades.values())] if grades is not None else []
    _warn_dropped(
        con, logged, (query_col, item_col, event_col), unknown, mapping_sql, mapping_params
    )
    _warn_unmatched(
        con, ranked, logged, query_col, item_col, event_col, mapping_sql, mapping_params
    )
    macro = "ndcg_report" if shape == "report" else "ndcg_summary"
    # every option of the macro by name, as the conventions table lists them, with this call's
    # checked values (measures or preset given: the macro's signature that takes it)
    arguments, params = macro_arguments(
        macro, {**locals(), "k": cuts, "slice_by": list(slice_by), "mapping": grades,
                "metrics": names})
    sql = f"SELECT * FROM {macro}(?, ?, {arguments})"
    params = [ranked.name, logged.name, *params]
    if source is not None and shape == "summary":
        # a column computed once (a scalar subquery), which keeps the summary's order
        params = [made.interactions, *params]
        sql = f"SELECT *, ({UNATTRIBUTED_SQL}) AS unattributed FROM ({sql})"
    return con.sql(sql, params=params)


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
