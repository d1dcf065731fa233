"""read_trec_run of this checkout against another revision's, interleaved in one process.

    python benchmarks/trec_read.py RUN_FILE [REVISION]     # REVISION: default HEAD~1

The revision's ``sql/io/trec.sql`` is created as temporary macros on a second connection (they
shadow the registered ones there); each side reads the run three times, alternating; prints the
median seconds of each and whether their results agree.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import duckdb

import duckdb_ndcg


def main(run: str, revision: str = "HEAD~1") -> None:
    text = subprocess.run(["git", "show", f"{revision}:sql/io/trec.sql"], capture_output=True,
                          text=True, check=True).stdout
    new = duckdb_ndcg.register(duckdb.connect())
    old = duckdb_ndcg.register(duckdb.connect())
    for statement in re.split(r";\n(?=\n|--)", text):
        if "CREATE OR REPLACE MACRO" in statement:
            body = statement[statement.index("CREATE OR REPLACE MACRO"):]
            old.execute(body.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO", 1))
    query = "SELECT fsum(score), sum(rnk), count(DISTINCT query_id) FROM read_trec_run(?)"
    seconds: dict[str, list[float]] = {"this checkout": [], revision: []}
    results = {}
    for _ in range(3):
        for name, con in (("this checkout", new), (revision, old)):
            start = time.perf_counter()
            results[name] = con.execute(query, [run]).fetchall()
            seconds[name].append(time.perf_counter() - start)
    for name, values in seconds.items():
        print(f"{name}: {sorted(values)[1]:.2f} s (median of 3)")
    print("same result:", results["this checkout"] == results[revision])


if __name__ == "__main__":
    main(*sys.argv[1:])
