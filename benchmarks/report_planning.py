"""Planning time of the report macros on a one-row log: what a BI tile pays on every query.

Each package (``--package DIR``: a checkout, e.g. ``git archive HEAD~1 | tar -x -C DIR``; none =
this one) is measured in a fresh process of the running interpreter: the minimum over ``--reps``
of ``EXPLAIN <query>`` and of the query itself (one row, so the time is planning), for the
default report and summary, compare_rankers, the report with family metrics, and the plain ndcg
aggregate as the yardstick. Run it with each DuckDB's interpreter to compare versions.

    python benchmarks/report_planning.py --package /tmp/before --package .
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAMILY = ["precision_at_k", "recall_at_k", "f1_at_k", "hit_rate", "reciprocal_rank",
          "average_precision", "r_precision", "err", "rbp"]
CASES = {
    "ndcg_report default": "SELECT * FROM ndcg_report('shown', 'ev')",
    "ndcg_summary default": "SELECT * FROM ndcg_summary('shown', 'ev')",
    "compare_rankers": "SELECT * FROM compare_rankers('shown', 'shown', 'ev')",
    "ndcg_report + precision_at_k":
        "SELECT * FROM ndcg_report('shown', 'ev', metrics := ['ndcg', 'precision_at_k'])",
    "ndcg_report + err": "SELECT * FROM ndcg_report('shown', 'ev', metrics := ['ndcg', 'err'])",
    "ndcg_report all nine":
        f"SELECT * FROM ndcg_report('shown', 'ev', metrics := {['ndcg', *FAMILY]})",
    "ndcg aggregate": "SELECT q, ndcg(rel, rnk, 10) FROM t GROUP BY q",
    "err aggregate": "SELECT q, err(rel, rnk, 10, max_grade := 3) FROM t GROUP BY q",
}


def worker(reps: int) -> None:
    import duckdb

    import duckdb_ndcg

    con = duckdb.connect()
    duckdb_ndcg.register(con)
    con.execute("CREATE TABLE shown AS SELECT 'q1' AS query_id, 'a' AS item_id, 1 AS position")
    con.execute("CREATE TABLE ev AS SELECT 'q1' AS query_id, 'a' AS item_id, 'click' AS event_type")
    con.execute("CREATE TABLE t AS SELECT 1 AS q, 1.0::DOUBLE AS rel, 1.0::DOUBLE AS rnk")

    def best(sql: str) -> float:
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            con.execute(sql).fetchall()
            times.append(time.perf_counter() - start)
        return min(times)

    got = {name: [best("EXPLAIN " + sql), best(sql)] for name, sql in CASES.items()}
    print(json.dumps({"duckdb": duckdb.__version__, "package": duckdb_ndcg.__file__,
                      "times": got}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", action="append", help="a checkout to import (repeatable)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        worker(args.reps)
        return
    results = []
    for package in args.package or [str(HERE.parent)]:
        env = dict(os.environ, PYTHONPATH=str(Path(package).resolve()), PYTHONWARNINGS="ignore")
        done = subprocess.run([sys.executable, __file__, "--worker", "--reps", str(args.reps)],
                              capture_output=True, text=True, env=env, cwd="/", check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"DuckDB {results[0]['duckdb']}: seconds, min of {args.reps} (EXPLAIN / query)\n")
    print("| query | " + " | ".join(Path(r["package"]).parent.parent.name for r in results)
          + " |")
    print("|---|" + "---:|" * len(results))
    for name in CASES:
        cells = [f"{r['times'][name][0]:.3f} / {r['times'][name][1]:.3f}" for r in results]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
