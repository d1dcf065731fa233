"""Grades and position bias from an impression/click log: the Python faces of the
``click_grades`` and ``position_bias`` macros."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import duckdb

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.inputs import Source, bad_choice, open_source
from duckdb_ndcg.macros import own_connection, register

_MODEL = MACROS["click_grades"].param("model")
_METHOD = MACROS["position_bias"].param("method")


def click_grades(
    events: object,
    model: str = "coec",
    *,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    session_col: str | None = None,
    click_col: str = "click",
    action_col: str | None = None,
    time_col: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    max_rank: int = 20,
    bins: Sequence[float] | None = None,
    min_impressions: int = 0,
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyRelation:
    """``click_grades`` over ``events`` (a table of ``con``, a .parquet/.csv path or a data
    frame): one row per (query, item) with its grade ``rel``, ``rnk`` (its lowest logged
    position), ``impressions`` and ``clicks`` — a judged run. Every option is the macro's.

    Example::

        rel = duckdb_ndcg.click_grades("log.parquet", "pbm", session_col="session_id")
    """
    if model not in _MODEL.choices:
        raise bad_choice(_MODEL, model)
    con = register(con) if con is not None else own_connection()
    source = open_source(con, events, "events")
    options = {
        "model": model, "query_col": query_col, "item_col": item_col,
        "position_col": position_col, "session_col": session_col, "click_col": click_col,
        "action_col": action_col, "time_col": time_col, "start_date": start_date,
        "end_date": end_date, "max_rank": max_rank, "min_impressions": min_impressions,
    }  # fmt: skip
    arguments = ", ".join(f"{name} := ?" for name in options)
    params: list[object] = [source.name, *options.values()]
    if bins is not None:
        arguments += ", bins := ?::DOUBLE[]"
        params.append([float(b) for b in bins])
    relation = con.sql(f"SELECT * FROM click_grades(?, {arguments})", params=params)
    _warn_excluded(con, source, relation, options)
    return relation


def _warn_excluded(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    relation: duckdb.DuckDBPyRelation,
    options: dict[str, object],
) -> None:
    """Warn of the rows the grades leave out or grade 0 by rule, counted: the rows at a position
    above max_rank (one scan of the log), and COEC's (query, item) pairs with clicks but no
    impression (SRW grades them 0; the other models raise instead)."""
    try:
        beyond, total = con.sql(
            "SELECT count(*) FILTER (WHERE TRY_CAST(p AS BIGINT) > TRY_CAST(? AS BIGINT)), "
            "count(*) FROM (SELECT COLUMNS(lambda c: c = ?) AS p FROM query_table(?))",
            params=[options["max_rank"], options["position_col"], source.name],
        ).fetchall()[0]
        unseen = 0
        if options["model"] == "coec":
            unseen = relation.filter("impressions = 0 AND clicks > 0").count("*").fetchall()[0][0]
    except duckdb.InterruptException:  # Ctrl-C: not a message of ours
        raise
    except duckdb.Error:
        return  # the grades themselves raise the clearer error (a missing column, NULL keys, ...)
    if beyond:
        warnings.warn(
            f"events {source.label}: left out {beyond} of {total} rows whose "
            f"{options['position_col']} is above max_rank {options['max_rank']}",
            UserWarning,
            stacklevel=3,
        )
    if unseen:
        warnings.warn(
            f"events {source.label}: {unseen} ({options['query_col']}, {options['item_col']}) "
            "pairs have clicks but no impression: graded 0 by model := 'coec' (SRW's rule); "
            "min_impressions := 1 leaves them out",
            UserWarning,
            stacklevel=3,
        )


def position_bias(
    events: object,
    method: str = "ctr_ratio",
    *,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    session_col: str | None = None,
    click_col: str = "click",
    action_col: str | None = None,
    time_col: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    max_rank: int = 20,
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyRelation:
    """``position_bias`` over ``events`` (a table of ``con``, a .parquet/.csv path or a data
    frame): one row per position with its ``propensity`` (1 at the top position), support
    (``impressions``, ``clicks``, ``pairs``) and a ``note`` where the propensity is NULL. Every
    option is the macro's.

    Example::

        bias = duckdb_ndcg.position_bias("log.parquet", "pivot")
    """
    if method not in _METHOD.choices:
        raise bad_choice(_METHOD, method)
    con = register(con) if con is not None else own_connection()
    source = open_source(con, events, "events")
    options = {
        "method": method, "query_col": query_col, "item_col": item_col,
        "position_col": position_col, "session_col": session_col, "click_col": click_col,
        "action_col": action_col, "time_col": time_col, "start_date": start_date,
        "end_date": end_date, "max_rank": max_rank,
    }  # fmt: skip
    arguments = ", ".join(f"{name} := ?" for name in options)
    return con.sql(f"SELECT * FROM position_bias(?, {arguments})",
                   params=[source.name, *options.values()])
