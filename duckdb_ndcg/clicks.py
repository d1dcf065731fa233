"""Grades from an impression/click log: the Python face of the ``click_grades`` macro."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.inputs import open_source
from duckdb_ndcg.macros import own_connection, register

_MODEL = MACROS["click_grades"].param("model")


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
        raise ValueError(_MODEL.error(repr(model)))
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
    return con.sql(f"SELECT * FROM click_grades(?, {arguments})", params=params)
