"""The README's comparison loop (section Statistics), run on the demo log written as parquet files.

Usage: python examples/compare_verdicts.py [DIRECTORY]  (the files are written there; default .)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import duckdb

import duckdb_ndcg
from duckdb_ndcg import demo

folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
folder.mkdir(parents=True, exist_ok=True)
os.chdir(folder)
with duckdb.connect() as con:
    demo.generate(con, queries=300)
    for ranker in ("A", "B"):
        con.execute(f"COPY (SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = '{ranker}')"
                    f" TO '{ranker.lower()}.parquet'")
    con.execute("COPY demo_events TO 'events.parquet'")

rel = duckdb_ndcg.compare("a.parquet", "b.parquet", "events.parquet", k=[5, 10], slice_by=["device"])
for row in rel.fetchall():
    r = dict(zip(rel.columns, row))
    print(f"device={r['device']}, NDCG@{r['k']}, {r['queries']} queries: {duckdb_ndcg.verdict(r)}")
