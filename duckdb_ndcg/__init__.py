"""Ranking-quality metrics (CG, DCG, IDCG, NDCG and their family) as DuckDB SQL macros.

Example::

    import duckdb, duckdb_ndcg
    con = duckdb_ndcg.register(duckdb.connect())
    con.sql("SELECT query_id, ndcg(rel, rnk, 10) FROM judged_run GROUP BY query_id")
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from duckdb_ndcg.clicks import click_grades, position_bias
from duckdb_ndcg.compare import compare, verdict
from duckdb_ndcg.estimates import ips_estimate, ips_ndcg, slate_estimate
from duckdb_ndcg.evaluate import evaluate
from duckdb_ndcg.macros import install, register, script

_PORTABLE = (
    "click_grades_to_sql",
    "compare_to_sql",
    "events_to_sql",
    "ips_estimate_to_sql",
    "ips_ndcg_to_sql",
    "slate_estimate_to_sql",
    "to_sql",
)


def __getattr__(name: str) -> object:
    """The portable SQL's functions, imported on first use: sqlglot takes 0.7 s to import, which
    every CLI call and every ``import duckdb_ndcg`` would pay otherwise."""
    if name in _PORTABLE:
        from duckdb_ndcg import portable

        return getattr(portable, name)
    raise AttributeError(f"module 'duckdb_ndcg' has no attribute {name!r}")


try:
    __version__ = version("duckdb_ndcg")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "click_grades",
    "click_grades_to_sql",
    "compare",
    "compare_to_sql",
    "evaluate",
    "events_to_sql",
    "install",
    "ips_estimate",
    "ips_estimate_to_sql",
    "ips_ndcg",
    "ips_ndcg_to_sql",
    "position_bias",
    "register",
    "script",
    "slate_estimate",
    "slate_estimate_to_sql",
    "to_sql",
    "verdict",
]
