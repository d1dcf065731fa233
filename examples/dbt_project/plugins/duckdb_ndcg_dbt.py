"""A dbt-duckdb plugin that installs the duckdb_ndcg macros into the database dbt connects to.

Enable it in profiles.yml (``module_paths: ["plugins"]`` and ``plugins: [{module: duckdb_ndcg_dbt}]``).
"""

from __future__ import annotations

import duckdb
from dbt.adapters.duckdb.plugins import BasePlugin

import duckdb_ndcg


class Plugin(BasePlugin):
    """Persist every macro (CREATE OR REPLACE MACRO) once per dbt connection."""

    def configure_connection(self, conn: duckdb.DuckDBPyConnection) -> None:
        duckdb_ndcg.install(conn)
