"""CPU seconds of every metric on one long ranking with heavy ties (issue 11, part 5).

One ranking of ``--rows`` rows (100,000), grades 0-3 uniform (seed fixed), rank keys drawn from
5,000, 100 or 1 distinct values (``t5000``, ``t100``, ``t1``: one giant tie group), every metric
with its default ``ties := 'average'`` at full depth (k NULL) and at k = 50,000; the list forms on
the same grades as one list; ``ndcg_report(..., k := NULL)`` on one query of 25K-200K rows.
Times are CPU seconds of this process (``resource.getrusage``: DuckDB's threads included), the
median of ``--reps`` runs; the data is loaded into a table first, not timed. Values are printed
too (``--json``), so two checkouts can be compared to the last bit.

    python benchmarks/ties_full_depth.py --json /tmp/after.json
    PYTHONPATH=/tmp/old_checkout python benchmarks/ties_full_depth.py --json /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys

import duckdb
import numpy as np
import pandas as pd

import duckdb_ndcg

SHAPES = {"t5000": 5_000, "t100": 100, "t1": 1}

# name -> SQL over table t(item_id, rel, rnk); {k} is NULL or 50000
METRICS = {
    "ndcg": "ndcg(rel, rnk, {k})",
    "dcg": "dcg(rel, rnk, {k})",
    "idcg": "idcg(rel, {k})",
    "cg": "cg(rel, rnk, {k})",
    "precision_at_k": "precision_at_k(rel, rnk, {k})",
    "recall_at_k": "recall_at_k(rel, rnk, {k})",
    "f1_at_k": "f1_at_k(rel, rnk, {k})",
    "hit_rate": "hit_rate(rel, rnk, {k})",
    "reciprocal_rank": "reciprocal_rank(rel, rnk, {k})",
    "ap_relevant": "average_precision(rel, rnk, {k})",
    "ap_min_k": "average_precision(rel, rnk, {k}, denominator := 'min_k')",
    "ap_retrieved": "average_precision(rel, rnk, {k}, denominator := 'retrieved')",
    "r_precision": "r_precision(rel, rnk)",
    "bpref": "bpref(rel, rnk)",
    "rbp": "rbp(rel, rnk, k := {k})",
    "rbp_residual": "rbp_residual(rel, rnk, k := {k})",
    "judged_at_k": "judged_at_k(rel, rnk, {k})",
    "err": "err(rel, rnk, {k})",
    "err_max3": "err(rel, rnk, {k}, max_grade := 3)",
    "err_g14": "err(rel + 1, rnk, {k})",
}
NO_K = {"r_precision", "bpref"}

LISTS = {
    "list_ndcg": "list_ndcg(rels, {k})",
    "list_dcg": "list_dcg(rels, {k})",
    "list_idcg": "list_idcg(rels, {k})",
    "list_cg": "list_cg(rels, {k})",
}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def ranking(n: int, distinct: int, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "item_id": np.arange(n),
            "rel": rng.integers(0, 4, n).astype(float),
            "rnk": rng.integers(0, distinct, n).astype(float),
        }
    )


def timed(con: duckdb.DuckDBPyConnection, sql: str, reps: int, cap: float) -> tuple[float, object]:
    times, value = [], None
    for _ in range(reps):
        start = cpu()
        value = con.execute(sql).fetchall()
        times.append(cpu() - start)
        if times[-1] > cap:  # one run is enough to see it is slow
            break
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cap", type=float, default=20.0, help="one run only above this")
    parser.add_argument("--only", nargs="*", help="metric names (default: all)")
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES))
    parser.add_argument("--no-report", action="store_true")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    rows = []

    def emit(case: str, data: str, k: str, seconds: float, value: object) -> None:
        rows.append({"case": case, "data": data, "k": k, "cpu": seconds, "value": value})
        print(f"{case:16} {data:8} k={k:6} {seconds:8.3f} s  {value}", flush=True)

    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        print(f"duckdb {duckdb.__version__}, duckdb_ndcg from {duckdb_ndcg.__file__}", flush=True)
        for shape in args.shapes:
            frame = ranking(args.rows, SHAPES[shape])
            con.register("t_src", frame)
            con.execute("CREATE OR REPLACE TABLE t AS SELECT * FROM t_src")
            con.execute(
                "CREATE OR REPLACE TABLE l AS SELECT list(rel ORDER BY rnk, item_id) AS rels FROM t"
            )
            for name, metric in METRICS.items():
                if args.only and name not in args.only:
                    continue
                for k in ["NULL"] if name in NO_K else ["NULL", "50000"]:
                    sql = f"SELECT {metric.format(k=k)} FROM t"
                    seconds, value = timed(con, sql, args.reps, args.cap)
                    emit(name, shape, k, seconds, value[0][0])
            if shape == args.shapes[0]:
                for name, metric in LISTS.items():
                    if args.only and name not in args.only:
                        continue
                    for k in ["NULL", "50000"]:
                        sql = f"SELECT {metric.format(k=k)} FROM l"
                        seconds, value = timed(con, sql, args.reps, args.cap)
                        emit(name, shape, k, seconds, value[0][0])
        if not args.no_report and (not args.only or "ndcg_report" in args.only):
            for n in (25_000, 50_000, 100_000, 200_000):
                frame = ranking(n, 2_000, seed=2)
                con.register("shown_src", frame.assign(query_id=1, score=-frame.rnk))
                con.execute("CREATE OR REPLACE TABLE shown AS SELECT * FROM shown_src")
                events = frame[frame.rel > 0].assign(
                    query_id=1,
                    event_type=frame.rel.map({1.0: "click", 2.0: "add_to_cart", 3.0: "purchase"}),
                )
                con.register("events_src", events[["query_id", "item_id", "event_type"]])
                con.execute("CREATE OR REPLACE TABLE events AS SELECT * FROM events_src")
                sql = (
                    "SELECT ndcg FROM ndcg_report('shown', 'events', k := NULL, "
                    "score_col := 'score')"
                )
                seconds, value = timed(con, sql, args.reps, args.cap)
                emit("ndcg_report", f"n{n}", "NULL", seconds, value[0][0])
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"duckdb": duckdb.__version__, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    sys.exit(main())
