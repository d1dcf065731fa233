"""ndcg_summary's CPU with a slice from the rankings, from the events, and without one.

1M shown rows (100,000 queries of 10) and about 1.2M events; one fresh process per run, the
query's CPU seconds (``time.process_time``). ``--before DIR``: a checkout (``git archive <commit>
| tar -x -C DIR``) run interleaved with this one; there a slice from the events goes through
``evaluate()`` (before issue 20 item 6 the macros refused it).

    python benchmarks/event_slices.py --before /tmp/before --reps 3
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
CASES = {
    "no slice": "k := 10",
    "slice from the rankings": "k := 10, slice_by := ['device']",
    "slice from the events": "k := 10, slice_by := ['ev_device']",
}


def worker(case: str, via_evaluate: bool) -> None:
    import duckdb

    import duckdb_ndcg

    con = duckdb.connect()
    duckdb_ndcg.register(con)
    con.execute(
        "CREATE TABLE shown AS SELECT 'q' || (i // 10) AS query_id, "
        "'i' || (((i // 10) * 7 + (i % 10) * 13) % 5000) AS item_id, i % 10 + 1 AS position, "
        "['web', 'ios', 'android'][(i // 10) % 3 + 1] AS device FROM range(1000000) t(i)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT query_id, item_id, CASE WHEN hash(item_id || query_id) "
        "% 7 = 0 THEN 'click' ELSE 'impression' END AS event_type, device AS ev_device FROM shown "
        "UNION ALL SELECT query_id, item_id, 'purchase', device FROM shown "
        "WHERE hash(item_id) % 31 = 0"
    )
    start = time.process_time()
    if via_evaluate and case == "slice from the events":
        rows = duckdb_ndcg.evaluate("shown", "events", con=con, k=10, slice_by=["ev_device"],
                                    shape="summary").fetchall()
    else:
        rows = con.execute(f"SELECT * FROM ndcg_summary('shown', 'events', {CASES[case]})"
                           ).fetchall()
    print(json.dumps({"cpu": time.process_time() - start, "rows": len(rows)}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="a checkout to run interleaved with this one")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--worker", nargs=2, metavar=("CASE", "VIA_EVALUATE"))
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1] == "1")
        return
    packages = {"after": str(HERE.parent)}
    if args.before:
        packages = {"before": args.before, **packages}
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.reps):
        for case in CASES:
            for label, package in packages.items():
                env = dict(os.environ, PYTHONPATH=str(Path(package).resolve()),
                           PYTHONWARNINGS="ignore")
                via = "1" if label == "before" else "0"
                done = subprocess.run([sys.executable, __file__, "--worker", case, via],
                                      capture_output=True, text=True, env=env, cwd="/",
                                      check=True)
                cpu = json.loads(done.stdout.strip().splitlines()[-1])["cpu"]
                times.setdefault((case, label), []).append(cpu)
    print("| case | " + " | ".join(packages) + " |")
    print("|---|" + "---|" * len(packages))
    for case in CASES:
        cells = [", ".join(f"{t:.2f}" for t in times[case, label]) for label in packages]
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
