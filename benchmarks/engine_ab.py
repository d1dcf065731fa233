"""Two checkouts' macros side by side in one process: CPU per metric query and planning time.

Loads each tree's ``sql/`` into its own connection over the same judged table (rnk = -score),
then times every metric expression in both, alternately (which goes first alternates too),
and prints the medians; with
``--planning`` it times a one-row ``EXPLAIN`` instead. For engine changes, next to
``benchmarks/run.py`` (which times whole child processes)::

    git worktree add /tmp/before main
    python benchmarks/engine_ab.py /tmp/before . --rows 10000000 --reps 5 \\
        "ndcg(rel, rnk, 10)" "precision_at_k(rel, rnk, 10)" "ndcg(rel, rnk)"
    python benchmarks/engine_ab.py /tmp/before . --planning "hit_rate(rel, rnk, 10)"
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import sys
import time
from pathlib import Path

import duckdb

DATA = Path(__file__).resolve().parent / "data"


def _connect(tree: Path, label: str, table: str) -> duckdb.DuckDBPyConnection:
    """A connection holding the macros of ``tree`` (its own duckdb_ndcg/macros.py reads its sql/)."""
    spec = importlib.util.spec_from_file_location(
        f"macros_{label}", tree / "duckdb_ndcg" / "macros.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    con = duckdb.connect()
    for macro in module.macros():
        con.execute(macro.sql)
    con.execute(f"CREATE TABLE judged AS {table}")
    return con


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path, help="checkout whose macros are 'before'")
    parser.add_argument("after", type=Path, help="checkout whose macros are 'after'")
    parser.add_argument("exprs", nargs="+", help="aggregate expressions over rel, rnk, item_id")
    parser.add_argument("--rows", default="10000000", help="judged_<rows>.parquet of generate.py")
    parser.add_argument("--data", type=Path, default=DATA, help="generate.py's folder")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--planning", action="store_true", help="time a one-row EXPLAIN instead")
    args = parser.parse_args()

    if args.planning:
        table = "SELECT 1 AS query_id, 1 AS item_id, 1.0::DOUBLE AS rel, 1.0::DOUBLE AS rnk"
        template = "EXPLAIN SELECT query_id, {e} FROM judged GROUP BY query_id"
        clock, pick = time.perf_counter, min
    else:
        table = (
            "SELECT query_id, item_id, rel::DOUBLE AS rel, -score AS rnk "
            f"FROM '{args.data / f'judged_{args.rows}.parquet'}'"
        )
        template = (
            "SELECT sum(hash(v)) FROM (SELECT query_id, {e} AS v FROM judged GROUP BY query_id)"
        )
        clock, pick = _cpu, statistics.median
    # two connections per tree, made in the order before, after, after, before: the connection
    # made later ran 2% slower on the same tree, so each tree gets one early and one late
    trees = {"before": args.before, "after": args.after}
    cons = [
        (label, _connect(trees[label], f"{label}{i}", table))
        for i, label in enumerate(("before", "after", "after", "before"))
    ]

    times: dict[tuple[str, str], list[float]] = {}
    for rep in range(args.reps + 1):
        for expr in args.exprs:
            for label, con in cons if rep % 2 else cons[::-1]:
                start = clock()
                con.execute(template.format(e=expr)).fetchall()
                if rep:  # the first round warms caches and is not counted
                    times.setdefault((expr, label), []).append(clock() - start)
    print(
        f"{'before':>8} {'after':>8}  {'median CPU s' if not args.planning else 'min planning s'}"
    )
    for expr in args.exprs:
        before, after = (pick(times[expr, label]) for label in ("before", "after"))
        print(f"{before:8.3f} {after:8.3f}  {expr}")


if __name__ == "__main__":
    main()
