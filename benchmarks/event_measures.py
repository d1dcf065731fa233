"""The measures of an event log against the report: what judging (judged_run) and scoring
(event_measures, measures_report) cost next to ndcg_report on the same rankings and events.

Each system runs in a fresh process of the running interpreter (the tables loaded from
benchmarks/data first, untimed; then ``CREATE TABLE ... AS`` of the query, timed), interleaved
over ``--reps``; the median wall seconds and the peak RSS of the process are written to
``benchmarks/results/event_measures_<rows>.md``.

    python benchmarks/generate.py --rows 1000000     # once: benchmarks/data/*_1000000.parquet
    python benchmarks/event_measures.py --rows 1000000 --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = "nDCG@10 P@5 RR AP"
SYSTEMS = {
    "ndcg_report@10": "FROM ndcg_report('rankings', 'events', k := 10)",
    "ndcg_report@10 + precision, rr, ap": (
        "FROM ndcg_report('rankings', 'events', k := 10, metrics := ['ndcg', 'precision_at_k', "
        "'reciprocal_rank', 'average_precision'])"),
    "judged_run": "FROM judged_run('rankings', 'events')",
    "event_measures nDCG@10": "FROM event_measures('rankings', 'events', 'nDCG@10')",
    f"event_measures {MEASURES}": f"FROM event_measures('rankings', 'events', '{MEASURES}')",
    f"measures_report {MEASURES} (on judged_run's table)":
        f"FROM measures_report('judged', '{MEASURES}')",
}
CHILD = """
import json, resource, sys, time
import duckdb, duckdb_ndcg
data, rows, query = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb_ndcg.register(duckdb.connect())
for name in ('rankings', 'events'):
    con.execute(f"CREATE TABLE {name} AS FROM read_parquet('{data}/{name}_{rows}.parquet')")
if 'judged' in query and 'judged_run' not in query:
    con.execute("CREATE TABLE judged AS FROM judged_run('rankings', 'events')")
start = time.perf_counter()
con.execute(f"CREATE TABLE out AS {query}")
seconds = time.perf_counter() - start
count = con.execute("SELECT count(*) FROM out").fetchall()[0][0]
print(json.dumps({"seconds": seconds, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                  / 1024, "rows": count}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    runs: dict[str, list[dict]] = {name: [] for name in SYSTEMS}
    for _ in range(args.reps):
        for name, query in SYSTEMS.items():
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.data), str(args.rows),
                                  query], capture_output=True, text=True, check=True, env=env)
            runs[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = statistics.median(r["seconds"] for r in runs["ndcg_report@10"])
    import duckdb

    lines = [(f"# Measures of an event log, {args.rows:,} ranked rows "
             "(benchmarks/event_measures.py)"), "",
             (f"DuckDB {duckdb.__version__}, {args.reps} interleaved runs, median seconds, "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."), "",
             "| system | seconds | vs ndcg_report@10 | peak RSS MB | rows out |",
             "|---|---:|---:|---:|---:|"]
    for name, results in runs.items():
        seconds = statistics.median(r["seconds"] for r in results)
        rss = max(r["rss_mb"] for r in results)
        lines.append(f"| {name} | {seconds:.2f} | {seconds / base:.1f}x | {rss:.0f} | "
                     f"{results[0]['rows']:,} |")
    text = "\n".join(lines) + "\n"
    (HERE / "results" / f"event_measures_{args.rows}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
