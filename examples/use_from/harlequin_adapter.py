"""Harlequin (the terminal SQL IDE) with the macros, two ways:

    duckdb-ndcg install metrics.duckdb
    harlequin metrics.duckdb                  # the macros are in the file
    duckdb-ndcg script > ndcg_macros.sql
    harlequin --init-path ndcg_macros.sql     # or created at start-up, in any database

Here both run through Harlequin's own DuckDB adapter (what the harlequin command opens, without the
terminal UI), so this file runs as a plain script:
    python harlequin_adapter.py <folder for metrics.duckdb and ndcg_macros.sql>
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from harlequin_duckdb.adapter import DuckDbAdapter

import duckdb_ndcg

folder = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
folder.mkdir(parents=True, exist_ok=True)
duckdb_ndcg.install(folder / "metrics.duckdb")
(folder / "ndcg_macros.sql").write_text(duckdb_ndcg.script(), encoding="utf-8")

SQL = "SELECT list_ndcg([3, 2, 3, 0, 1, 2]) AS ndcg"
from_file = DuckDbAdapter((str(folder / "metrics.duckdb"),), read_only=True).connect()
from_init = DuckDbAdapter((":memory:",), init_path=folder / "ndcg_macros.sql").connect()
results = {
    "file": from_file.execute(SQL).fetchall().to_pylist(),
    "init_path": from_init.execute(SQL).fetchall().to_pylist(),
}
print(results)
