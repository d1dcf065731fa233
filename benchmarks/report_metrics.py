"""ndcg_report with and without family metrics: the default path before/after, the family's cost.

Each run is a fresh process (wall seconds of the query, peak RSS); ``--before DIR`` points at a
checkout (e.g. ``git archive HEAD~1 | tar -x -C DIR``) whose package is imported for the
"before" runs, interleaved with this checkout's.

    python benchmarks/report_metrics.py --rows 10000000 --reps 3 --before /tmp/head
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FAMILY = ["precision_at_k", "recall_at_k", "f1_at_k", "hit_rate", "reciprocal_rank",
          "average_precision", "r_precision", "err", "rbp"]
CASES = {
    "default": "k := 10",
    "default k 1,5,10": "k := [1, 5, 10]",
    "precision_at_k": "k := 10, metrics := ['ndcg', 'precision_at_k']",
    "err": "k := 10, metrics := ['ndcg', 'err']",
    "all but r_precision": "k := 10, metrics := "
    + str([m for m in FAMILY if m != "r_precision"]),
    "all but r_precision, k 1,5,10": "k := [1, 5, 10], metrics := "
    + str([m for m in FAMILY if m != "r_precision"]),
    "r_precision": "k := 10, metrics := ['r_precision']",
    "all nine": f"k := 10, metrics := {FAMILY}",
}


def worker(case: str, rows: int, memory_limit: str | None) -> None:
    import duckdb

    import duckdb_ndcg

    con = duckdb.connect()
    if memory_limit:
        (DATA / "spill").mkdir(exist_ok=True)
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute(f"SET temp_directory = '{DATA / 'spill'}'")
        con.execute("SET preserve_insertion_order = false")
    duckdb_ndcg.register(con)
    for name in ("rankings", "events"):
        path = DATA / f"{name}_{rows}.parquet"
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    columns = ", ".join(["avg(ndcg)"] + [f"avg({m})" for m in FAMILY if m in CASES[case]])
    sql = f"SELECT {columns} FROM ndcg_report('rankings', 'events', {CASES[case]})"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    means = con.execute(sql).fetchone()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mib": peak, "means": list(means),
                      "package": duckdb_ndcg.__file__}))


def run(case: str, rows: int, memory_limit: str | None, package: str | None) -> dict:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if package:
        env["PYTHONPATH"] = package
    cmd = [sys.executable, __file__, "--worker", case, "--rows", str(rows)]
    if memory_limit:
        cmd += ["--memory-limit", memory_limit]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                          cwd="/" if package else HERE.parent)
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": tail[:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--memory-limit")
    ap.add_argument("--before", help="a checkout whose package the 'before' runs import")
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.rows, args.memory_limit)
        return
    plan = [(c, None) for c in args.cases]
    if args.before:
        plan = [(c, args.before) for c in args.cases if c.startswith("default")] + plan
    got: dict[tuple[str, str | None], list[dict]] = {p: [] for p in plan}
    for rep in range(args.reps):
        for case, package in plan:
            r = run(case, args.rows, args.memory_limit, package)
            got[(case, package)].append(r)
            label = f"{case} ({'before' if package else 'after'})"
            print(f"[{rep + 1}/{args.reps}] {label}: {r}", flush=True)
    print("\n| run | median s | runs s | median CPU s | peak RSS MiB | means |")
    print("|---|---:|---|---:|---:|---|")
    for (case, package), rs in got.items():
        if any("error" in r for r in rs):
            print(f"| {case} ({'before' if package else 'after'}) | error | {rs[-1]} | | |")
            continue
        secs = [r["seconds"] for r in rs]
        means = ", ".join(f"{m:.6f}" for m in rs[0]["means"])
        cpu = statistics.median(r.get("cpu", math.nan) for r in rs)
        print(f"| {case} ({'before' if package else 'after'}) | {statistics.median(secs):.2f} "
              f"| {', '.join(f'{s:.2f}' for s in secs)} | {cpu:.2f} "
              f"| {max(r['peak_mib'] for r in rs):.0f} | {means} |")


if __name__ == "__main__":
    main()
