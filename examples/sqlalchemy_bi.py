"""What a BI tool does through SQLAlchemy (duckdb-engine): plain SQL against a file with the macros.

The macros are installed once into the file (``duckdb-ndcg install metrics.duckdb``); the BI tool
then needs no Python package of ours, only a DuckDB connection string.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import duckdb
import sqlalchemy

import duckdb_ndcg

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "metrics.duckdb"
with duckdb.connect(str(path)) as con:
    duckdb_ndcg.install(con)
    con.execute("CREATE OR REPLACE TABLE shown AS SELECT * FROM (VALUES ('q1', 'a', 1), "
                "('q1', 'b', 2), ('q2', 'c', 1)) t(query_id, item_id, position)")
    con.execute("CREATE OR REPLACE TABLE events AS SELECT * FROM (VALUES ('q1', 'b', 'purchase'), "
                "('q2', 'c', 'click')) t(query_id, item_id, event_type)")

engine = sqlalchemy.create_engine(f"duckdb:///{path}")
with engine.connect() as conn:
    rows = conn.execute(sqlalchemy.text(
        "SELECT k, queries, round(mean_ndcg, 4) AS mean_ndcg "
        "FROM ndcg_summary('shown', 'events', k := [1, 2])")).fetchall()
for k, queries, mean in rows:
    print(f"NDCG@{k}: {mean} over {queries} queries")
