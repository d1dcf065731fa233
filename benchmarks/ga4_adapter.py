"""The GA4 adapter's cost: NDCG@10 straight from a raw GA4 export against the same report on the
flat tables the adapter produces (issue 22). A script, not a test.

    python benchmarks/ga4_adapter.py --events 1000000 --reps 3
    python benchmarks/ga4_adapter.py --events 1000000 --reps 2 --before main
    python benchmarks/ga4_adapter.py --events 10000000 --reps 1 --memory-limit 1GB

The export is generated (seed fixed) as BigQuery writes it to Parquet: per search one
view_search_results, two view_item_list pages of 10 items (0-based indexes, the second page
starting again), a select_item and a purchase; nested event_params and items. Two systems, run
interleaved, median seconds:

- ``adapter``: ga4_rankings and ga4_events into tables, then ndcg_report (what the README's
  recipe does);
- ``flat``: ndcg_report on the adapter's two tables written to Parquet (the floor: the flat
  tables someone would otherwise build by hand);
- ``evaluate``: what ``evaluate(export, source='ga4')`` runs: ``sources.adapted`` (the shown lists
  once, the interactions attributed to them once, split into the events and the unattributed
  counts), the unattributed warning's counts, then ndcg_report;
- with ``--before REF`` (a git ref, e.g. ``main``), ``before``: evaluate's steps (as
  ``evaluate`` above) on a second connection whose source macros are REF's ``sql/sources/*.sql``
  and with REF's ``duckdb_ndcg/sources.py`` (the rest of the macros and the Python this tree's),
  interleaved with the others in one process.

Writes ``benchmarks/results/ga4_adapter_<events>.md`` (``_<limit>`` added with --memory-limit).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import time
from pathlib import Path
from types import ModuleType

import duckdb

import duckdb_ndcg
from duckdb_ndcg import sources
from duckdb_ndcg.macros import statements

HERE = Path(__file__).resolve().parent
EVENTS_PER_SEARCH = 5


def generate(con: duckdb.DuckDBPyConnection, events: int, path: Path) -> None:
    searches = events // EVENTS_PER_SEARCH
    con.execute(f"""
        COPY (
        WITH s AS (SELECT range AS n, 'u' || (range % 50000) AS user_pseudo_id,
                          range // 50000 AS sess, 1700000000000000 + range * 60000000 AS t0
                   FROM range({searches}))
        SELECT strftime(make_timestamp(t0), '%Y%m%d') AS event_date,
               t0 + o * 1000000 AS event_timestamp, name AS event_name,
               [{{'key': 'ga_session_id', 'value': {{'string_value': NULL, 'int_value': sess,
                  'float_value': NULL, 'double_value': NULL}}}},
                {{'key': 'search_term', 'value': {{'string_value': 'term' || (n % 1000),
                  'int_value': NULL, 'float_value': NULL, 'double_value': NULL}}}}]
                   AS event_params,
               user_pseudo_id, {{'category': ['mobile', 'desktop'][n % 2 + 1]}} AS device,
               CASE WHEN name = 'view_item_list' THEN
                        list_transform(range(10), lambda i: {{
                            'item_id': 'i' || ((n * 7 + i + (o - 1) * 10) % 5000),
                            'price': 1.0, 'quantity': 1, 'item_revenue': NULL::DOUBLE,
                            'item_list_name': 'search results',
                            'item_list_index': i::VARCHAR}})
                    WHEN name IN ('select_item', 'purchase') THEN
                        [{{'item_id': 'i' || ((n * 7 + (n % 13)) % 5000), 'price': 1.0,
                           'quantity': 1, 'item_revenue': 2.0::DOUBLE,
                           'item_list_name': NULL, 'item_list_index': NULL}}]
                    ELSE [] END AS items
        FROM s, (VALUES ('view_search_results', 0), ('view_item_list', 1),
                        ('view_item_list', 2), ('select_item', 5), ('purchase', 30)) v(name, o)
        ) TO '{path}' (FORMAT parquet)""")


def adapter(con: duckdb.DuckDBPyConnection, export: Path) -> float:
    con.execute(f"CREATE OR REPLACE VIEW ga4_export AS SELECT * FROM read_parquet('{export}')")
    con.execute("CREATE OR REPLACE TABLE shown AS SELECT * FROM ga4_rankings('ga4_export')")
    con.execute("CREATE OR REPLACE TABLE events AS SELECT * FROM ga4_events('ga4_export')")
    return con.sql("SELECT avg(ndcg) FROM ndcg_report('shown', 'events', k := 10)").fetchall()[0][0]


def evaluated(con: duckdb.DuckDBPyConnection, export: Path, module: ModuleType = sources) -> float:
    made = module.adapted(con, "ga4", [str(export)])
    module.unattributed_warning(con, "ga4", made)
    return con.sql(
        "SELECT avg(ndcg) FROM ndcg_report(?, ?, k := 10)",
        params=[made.rankings.name, made.events.name],
    ).fetchall()[0][0]


def at_ref(ref: str) -> tuple[duckdb.DuckDBPyConnection, ModuleType]:
    """A connection with this tree's macros, its source macros replaced by those of ``ref``, and
    ``ref``'s ``duckdb_ndcg/sources.py`` (what evaluate runs over them) as a module."""
    con = duckdb_ndcg.register(duckdb.connect())
    root = HERE.parent
    code = subprocess.run(["git", "show", f"{ref}:duckdb_ndcg/sources.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    tmp = HERE / "data" / "_before_sources.py"
    tmp.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("_before_sources", tmp)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tmp.unlink()
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{ref}:sql/sources"], cwd=root,
                           check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        text = subprocess.run(["git", "show", f"{ref}:sql/sources/{name}"], cwd=root, check=True,
                              capture_output=True, text=True).stdout
        tmp = HERE / "data" / f"_before_{name}"
        tmp.write_text(text, encoding="utf-8")
        for _, sql in statements(tmp):
            con.execute(sql)
        tmp.unlink()
    return con, module


def flat(con: duckdb.DuckDBPyConnection, shown: Path, events: Path) -> float:
    con.execute(f"CREATE OR REPLACE VIEW shown_flat AS SELECT * FROM read_parquet('{shown}')")
    con.execute(f"CREATE OR REPLACE VIEW events_flat AS SELECT * FROM read_parquet('{events}')")
    return con.sql("SELECT avg(ndcg) FROM ndcg_report('shown_flat', 'events_flat', k := 10)"
                   ).fetchall()[0][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--before", metavar="REF", help="also time evaluate's steps at this ref")
    parser.add_argument("--memory-limit", help="DuckDB's memory_limit for every system, e.g. 1GB "
                        "(the export and the flat files are written before it is set)")
    parser.add_argument("--systems", nargs="+", default=["adapter", "evaluate", "flat"],
                        choices=["adapter", "evaluate", "flat"],
                        help="the systems to time (flat is the yardstick and always runs)")
    args = parser.parse_args()
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    export = data / f"ga4_{args.events}.parquet"
    shown, events = data / f"ga4_{args.events}_shown.parquet", data / f"ga4_{args.events}_events.parquet"
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        if not export.exists():
            generate(con, args.events, export)
        adapter(con, export)  # the tables the flat files hold, and the counts below
        con.execute(f"COPY shown TO '{shown}'")
        con.execute(f"COPY events TO '{events}'")
        if args.memory_limit:
            con.execute("SET memory_limit = ?", [args.memory_limit])
        systems = {"adapter": lambda: adapter(con, export),
                   "evaluate": lambda: evaluated(con, export),
                   "flat": lambda: flat(con, shown, events)}
        systems = {n: run for n, run in systems.items() if n in {*args.systems, "flat"}}
        if args.before:
            old, module = at_ref(args.before)
            if args.memory_limit:
                old.execute("SET memory_limit = ?", [args.memory_limit])
            systems = {"before": lambda: evaluated(old, export, module), **systems}
        times: dict[str, list[float]] = {name: [] for name in systems}
        cpu: dict[str, list[float]] = {name: [] for name in systems}
        means = {}
        for _ in range(args.reps):
            for name, run in systems.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                means[name] = run()
                times[name].append(time.perf_counter() - start)
                cpu[name].append(time.process_time() - start_cpu)
        counts = con.sql("SELECT (SELECT count(*) FROM shown), (SELECT count(*) FROM events)"
                         ).fetchall()[0]
    assert all(abs(mean - means["flat"]) < 1e-12 for mean in means.values()), means
    median = {n: statistics.median(t) for n, t in times.items()}
    median_cpu = {n: statistics.median(t) for n, t in cpu.items()}
    lines = [
        f"# GA4 adapter, {args.events:,} raw events (benchmarks/ga4_adapter.py)",
        "",
        (f"DuckDB {duckdb.__version__}, {args.reps} interleaved runs, median seconds; "
         f"{counts[0]:,} shown rows, {counts[1]:,} attributed events; mean NDCG@10 "
         f"{means['flat']:.6f} every way; load average {os.getloadavg()[0]:.1f} on "
         f"{os.cpu_count()} cores"
         + (f"; before: evaluate with the source macros of {args.before}" if args.before else "")
         + (f"; memory_limit {args.memory_limit}." if args.memory_limit else ".")),
        "",
        "| system | seconds | vs flat | CPU seconds | vs flat |",
        "|---|---|---|---|---|",
        *(f"| {n} | {median[n]:.2f} | {median[n] / median['flat']:.2f}x | {median_cpu[n]:.2f} | "
          f"{median_cpu[n] / median_cpu['flat']:.2f}x |" for n in median),
        "",
        ("CPU seconds: the process's CPU time (all its threads) during the system's run, median; "
         "less moved by the machine's other jobs than the wall seconds."),
        "",
    ]
    suffix = f"_{args.memory_limit}" if args.memory_limit else ""
    out = HERE / "results" / f"ga4_adapter_{args.events}{suffix}.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
