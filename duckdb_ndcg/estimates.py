"""Off-policy estimates from click logs: the Python faces of the ``ips_estimate``,
``slate_estimate`` and ``ips_ndcg`` macros (sql/clicks/). Each takes tables of ``con``,
.parquet/.csv paths or data frames, passes every option to its macro by name, and turns the
result's ``warning`` column into ``UserWarning``s.

Example::

    est = duckdb_ndcg.ips_estimate("logs.parquet", "policy.parquet", "snips")
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping

import duckdb

from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.inputs import bad_choice, open_source
from duckdb_ndcg.macros import own_connection, quoted, register

_tables = itertools.count(1)


def _estimate(
    con: duckdb.DuckDBPyConnection | None,
    macro: str,
    inputs: Mapping[str, object],
    options: Mapping[str, object],
) -> duckdb.DuckDBPyRelation:
    """``macro`` over ``inputs`` (role: table, path or frame) with ``options`` by name; its
    enumerated options checked in the macros' words first; the result is a table of ``con``, and
    each distinct warning of its rows a UserWarning."""
    for name, value in options.items():
        param = MACROS[macro].param(name)
        if param.choices and value not in param.choices:
            raise bad_choice(param, value)
    con = register(con) if con is not None else own_connection()
    names = [open_source(con, value, role).name for role, value in inputs.items()]
    arguments = ", ".join(["?"] * len(names) + [f"{name} := ?" for name in options])
    # computed once, here (a few rows: per position or per query), so that the warnings are
    # read from the rows the caller gets, not from a second run of the estimate
    result = f"_ndcg_{macro}_{next(_tables)}"
    con.sql(f"SELECT * FROM {macro}({arguments})", params=[*names, *options.values()]).to_table(
        result
    )
    relation = con.table(result)
    found = relation.filter("warning IS NOT NULL").select("warning").distinct().fetchall()
    for (text,) in sorted(found):
        warnings.warn(f"{macro}: {text}", UserWarning, stacklevel=3)
    return relation


def ips_estimate(
    logs: object,
    policy: object,
    estimator: str = "ips",
    *,
    clip: float | None = None,
    item_col: str = "item_id",
    position_col: str = "position",
    click_col: str = "click",
    propensity_col: str = "propensity_score",
    probability_col: str = "probability",
    query_col: str | None = None,
    ci: str = "none",
    conf: float = 0.95,
    resamples: int = 2000,
    seed: int = 42,
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyRelation:
    """``ips_estimate``: the click rate a new policy (``policy``: item, position, probability)
    would get, estimated from a logged one (``logs``: item, position, click, propensity), per
    position and overall, with coverage, effective sample size, largest weight and warnings.

    Example::

        duckdb_ndcg.ips_estimate("logs.parquet", "policy.parquet", "clipped", clip=10).df()
    """
    options = {
        "estimator": estimator, "clip": clip, "item_col": item_col, "position_col": position_col,
        "click_col": click_col, "propensity_col": propensity_col,
        "probability_col": probability_col, "query_col": query_col, "ci": ci, "conf": conf,
        "resamples": resamples, "seed": seed,
    }  # fmt: skip
    return _estimate(con, "ips_estimate", {"logs": logs, "policy": policy}, options)


def slate_estimate(
    logs: object,
    estimator: str = "sips",
    *,
    slate_col: str = "slate_id",
    position_col: str = "position",
    reward_col: str = "click",
    propensity_col: str = "propensity_score",
    evaluation_col: str = "evaluation_propensity",
    ci: str = "none",
    conf: float = 0.95,
    resamples: int = 2000,
    seed: int = 42,
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyRelation:
    """``slate_estimate``: SIPS, IIPS, RIPS (and their self-normalised forms ``'snsips'``,
    ``'sniips'``, ``'snrips'``) of a new slate policy from a slate log, one row per (slate,
    position), per position and overall.

    Example::

        duckdb_ndcg.slate_estimate("slates.parquet", "rips").df()
    """
    options = {
        "estimator": estimator, "slate_col": slate_col, "position_col": position_col,
        "reward_col": reward_col, "propensity_col": propensity_col,
        "evaluation_col": evaluation_col, "ci": ci, "conf": conf, "resamples": resamples,
        "seed": seed,
    }  # fmt: skip
    return _estimate(con, "slate_estimate", {"logs": logs}, options)


def ips_ndcg(
    logs: object,
    ranking: object,
    k: int = 10,
    *,
    propensity: object = "power",
    eta: float = 1.0,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    session_col: str = "session_id",
    click_col: str = "click",
    rnk_col: str = "rnk",
    con: duckdb.DuckDBPyConnection | None = None,
) -> duckdb.DuckDBPyRelation:
    """``ips_ndcg``: the propensity-weighted click DCG and NDCG@k of a new ``ranking`` (query,
    item, rnk) from a click log; ``propensity`` is ``'power'`` (1 / position^eta) or a table,
    path or frame of (position, propensity), such as ``position_bias``'s result.

    Example::

        bias = duckdb_ndcg.position_bias("log.parquet", "pivot")
        duckdb_ndcg.ips_ndcg("log.parquet", "new_run.parquet", 5, propensity=bias).df()
    """
    con = register(con) if con is not None else own_connection()
    if isinstance(propensity, duckdb.DuckDBPyRelation):  # position_bias's, maybe another con's
        rows = propensity.select("position, propensity").fetchall()
        name = f"_ndcg_propensity_{next(_tables)}"
        con.execute(f"CREATE TEMP TABLE {quoted(name)} (position BIGINT, propensity DOUBLE)")
        if rows:
            con.executemany(f"INSERT INTO {quoted(name)} VALUES (?, ?)", rows)
        propensity = name
    elif not (isinstance(propensity, str) and propensity == "power"):
        propensity = open_source(con, propensity, "propensity").name
    options = {
        "k": k, "propensity": propensity, "eta": eta, "query_col": query_col,
        "item_col": item_col, "position_col": position_col, "session_col": session_col,
        "click_col": click_col, "rnk_col": rnk_col,
    }  # fmt: skip
    return _estimate(con, "ips_ndcg", {"logs": logs, "ranking": ranking}, options)
