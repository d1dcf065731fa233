"""The ``duckdb-ndcg`` command: evaluate event logs, install macros, print SQL, run the demo."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import duckdb

from duckdb_ndcg import chart, demo
from duckdb_ndcg.evaluate import evaluate
from duckdb_ndcg.macros import install, macro, register
from duckdb_ndcg.portable import events_to_sql, to_sql

_OUTPUTS = {".csv": "CSV", ".json": "JSON", ".parquet": "PARQUET"}


class UsageError(Exception):
    """A problem the user can fix: printed as one line, exit code 2."""


def _cutoffs(text: str) -> list[int]:
    try:
        cuts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k takes whole numbers like 10 or 1,5,10, got {text!r}")
    if not cuts or min(cuts) < 1:
        raise argparse.ArgumentTypeError(f"--k takes positive whole numbers, got {text!r}")
    return cuts


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="duckdb-ndcg", description="Ranking-quality metrics (NDCG and family) in DuckDB."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="NDCG@k per query from a rankings table and an event log")
    ev.add_argument("rankings", help="rankings: a .parquet/.csv file, or a table of --db")
    ev.add_argument("events", help="events: a .parquet/.csv file, or a table of --db")
    ev.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    ev.add_argument("--k", type=_cutoffs, default=[10], help="cutoff(s), e.g. 10 or 1,5,10")
    ev.add_argument("--slice-by", default="", help="comma-separated columns of rankings")
    ev.add_argument("--summary", action="store_true", help="mean per slice and k, not per query")
    ev.add_argument("--query-col", default="query_id")
    ev.add_argument("--item-col", default="item_id")
    ev.add_argument("--position-col", default="position")
    ev.add_argument("--score-col", help="rank by this score (higher first) instead of position")
    ev.add_argument("--ties", default="average", choices=["average", "key"])
    ev.add_argument("--gain", default="linear", choices=["linear", "exponential"])
    ev.add_argument("--event-col", default="event_type")
    ev.add_argument(
        "--mapping", help="a .csv/.parquet file (event type, grade) replacing the default"
    )
    ev.add_argument("--collapse", default="max", choices=["max", "sum", "last"])
    ev.add_argument("--time-col", help="timestamp column of events (for --collapse last)")
    ev.add_argument("--ignore-unknown", action="store_true", help="drop unknown event types")
    ev.add_argument("--allow-duplicates", action="store_true", help="score repeated impressions")
    ev.add_argument("--output", help="write the result to a .csv, .json or .parquet file")
    ev.add_argument("--chart", help="write the NDCG@k curve (k = 1..max k) to this .html file")
    ins = sub.add_parser("install", help="persist the macros into a DuckDB database file")
    ins.add_argument("database")
    ins.add_argument("--storage-compatibility-version", help="e.g. v1.5.0 for DuckDB 1.5 clients")
    sq = sub.add_parser(
        "sql",
        help="print the SQL of a macro, or with --dialect one statement for another engine",
        description="Without --dialect: the DuckDB macro's SQL. With --dialect: one statement "
        "computing the metric per query (NAME: ndcg, dcg, idcg, cg, precision_at_k, recall_at_k, "
        "hit_rate, reciprocal_rank, average_precision; or ndcg_report for the event pipeline).",
    )
    sq.add_argument("name")
    sq.add_argument("--dialect", help="e.g. postgres, spark, clickhouse, bigquery, snowflake")
    sq.add_argument("--k", type=_cutoffs, default=[10], help="cutoff(s), e.g. 10 or 5,10")
    sq.add_argument(
        "--table", default="judged_run", help="input table (query_id, item_id, rel, rnk)"
    )
    sq.add_argument("--rankings", default="rankings", help="ndcg_report: rankings table")
    sq.add_argument("--events", default="events", help="ndcg_report: events table")
    sq.add_argument("--gain", default="linear", choices=["linear", "exponential"])
    sq.add_argument("--ties", default="average", choices=["average", "key"])
    sq.add_argument("--tie-key", help="column breaking ties for --ties key (e.g. item_id)")
    sq.add_argument("--full-ideal", action="store_true", help="with no --k: trec_eval ndcg")
    sq.add_argument("--pretty", action="store_true", help="indent the statement")
    dm = sub.add_parser("demo", help="generate an e-commerce search log and report on two rankers")
    dm.add_argument("--queries", type=int, default=2000)
    dm.add_argument("--seed", type=int, default=7)
    dm.add_argument("--k", type=int, default=10)
    dm.add_argument("--chart", default="ndcg_demo.html", help="where to write the chart")
    dm.add_argument("--keep", help="also save the generated tables into this .duckdb file")
    return parser


def _write(relation: duckdb.DuckDBPyRelation, path: str) -> None:
    target = Path(path)
    kind = _OUTPUTS.get(target.suffix.lower())
    if kind is None:
        raise UsageError(f"--output {path}: use a .csv, .json or .parquet file name")
    if kind == "CSV":
        relation.to_csv(str(target))
    elif kind == "PARQUET":
        relation.to_parquet(str(target))
    else:
        rows = [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]
        import json

        target.write_text(json.dumps(rows, indent=1, default=str) + "\n", encoding="utf-8")


def _show(relation: duckdb.DuckDBPyRelation, max_rows: int = 40) -> None:
    names = relation.columns
    rows = relation.fetchall()
    cells = [[_cell(v) for v in row] for row in rows[:max_rows]]
    widths = [max([len(n)] + [len(r[i]) for r in cells]) for i, n in enumerate(names)]
    print("  ".join(n.rjust(w) for n, w in zip(names, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    if len(rows) > max_rows:
        print(f"... {len(rows) - max_rows} more rows (use --output to save them all)")


def _cell(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _evaluate(args: argparse.Namespace) -> None:
    if args.db and not Path(args.db).is_file():
        raise UsageError(f"--db {args.db} does not exist")
    con = duckdb.connect()
    if args.db:  # read-only: the report's temporary views and macros live in memory
        con.execute("ATTACH ? AS ndcg_source (READ_ONLY)", [args.db])
        con.execute("SET search_path = 'memory.main,ndcg_source.main'")
    con.execute("SET enable_progress_bar = true")
    slices = [s.strip() for s in args.slice_by.split(",") if s.strip()]
    common = {
        "slice_by": slices,
        "con": con,
        "query_col": args.query_col,
        "item_col": args.item_col,
        "position_col": args.position_col,
        "score_col": args.score_col,
        "ties": args.ties,
        "gain": args.gain,
        "event_col": args.event_col,
        "mapping": args.mapping,
        "collapse": args.collapse,
        "time_col": args.time_col,
        "unknown": "ignore" if args.ignore_unknown else "error",
        "duplicates": "allow" if args.allow_duplicates else "error",
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relation = evaluate(
            args.rankings,
            args.events,
            k=args.k,
            shape="summary" if args.summary else "report",
            **common,
        )
    for warning in caught:
        print(f"duckdb-ndcg: {warning.message}", file=sys.stderr)
    keys = relation.columns[: -4 if args.summary else -6]  # slice/query columns, then k
    relation.order(", ".join('"' + c.replace('"', '""') + '"' for c in keys)).to_table(
        "_ndcg_result"
    )  # computed once, then shown or written
    result = con.table("_ndcg_result")
    if args.output:
        _write(result, args.output)
        rows = result.aggregate("count(*)").fetchall()[0][0]
        print(f"wrote {rows} rows to {args.output}", file=sys.stderr)
    else:
        _show(result)
    if args.chart:
        curve = evaluate(args.rankings, args.events, k=list(range(1, max(args.k) + 1)), **common)
        label = slices[0] if len(slices) == 1 else None
        written = chart.write(args.chart, chart.curve_series(curve, label))
        print(f"chart: {written[0]} (and {written[1].name})", file=sys.stderr)


def _sql(args: argparse.Namespace) -> None:
    if args.dialect is None:
        print(macro(args.name).sql.rstrip())
        return
    k = args.k[0] if len(args.k) == 1 else args.k
    if args.name == "ndcg_report":
        print(
            events_to_sql(
                args.dialect,
                rankings=args.rankings,
                events=args.events,
                k=k,
                gain=args.gain,
                ties=args.ties,
                pretty=args.pretty,
            )
        )
        return
    print(
        to_sql(
            args.name,
            args.dialect,
            table=args.table,
            k=k,
            gain=args.gain,
            ties=args.ties,
            tie_key=args.tie_key,
            full_ideal=args.full_ideal,
            pretty=args.pretty,
        )
    )


def _demo(args: argparse.Namespace) -> None:
    con = duckdb.connect(args.keep) if args.keep else duckdb.connect()
    register(con, temporary=not args.keep)  # --keep persists the macros with the tables
    demo.generate(con, queries=args.queries, seed=args.seed)
    k = args.k
    if k < 1:
        raise UsageError(f"--k must be a positive whole number, got {k}")
    counts = dict(con.sql("SELECT event_type, count(*) FROM demo_events GROUP BY ALL").fetchall())
    sessions = con.sql("SELECT count(DISTINCT session_id) FROM demo_events").fetchall()[0][0]
    print(f"duckdb-ndcg demo: an e-commerce search log, made in DuckDB (seed {args.seed})")
    print(
        f"  {args.queries} queries, {sessions} sessions; rankers A (production) and B "
        f"(candidate) each show 10 items per query"
    )
    print(
        "  events: "
        + ", ".join(
            f"{counts.get(e, 0)} {e}" for e in ("impression", "click", "add_to_cart", "purchase")
        )
    )
    print("  grades: no action 0, click 1, add_to_cart 2, purchase 3 (best action per query, item)")
    print()
    cuts = sorted({1, 3, 5, k})
    summary = con.sql(
        "SELECT ranker, k, mean_ndcg, queries, queries_without_relevant FROM ndcg_summary("
        "'demo_rankings', 'demo_events', k := ?::BIGINT[], slice_by := ['ranker'])",
        params=[cuts],
    ).fetchall()
    print("Mean NDCG@k over queries (a query with no click scores 0)")
    print("  ranker  " + "  ".join(f"NDCG@{c:<3}" for c in cuts))
    for ranker in ("A", "B"):
        values = {row[1]: row[2] for row in summary if row[0] == ranker}
        print(f"  {ranker:<6}  " + "  ".join(f"{values[c]:<8.4f}" for c in cuts))
    empty = next(row[4] for row in summary if row[0] == "A")
    print(f"  ({empty} of {args.queries} queries had no click, cart or purchase at all)")
    print()
    con.execute(
        "CREATE TEMP VIEW demo_a AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A'"
    )
    con.execute(
        "CREATE TEMP VIEW demo_b AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'B'"
    )
    better, worse, same, mean_diff = con.sql(
        "SELECT count(*) FILTER (WHERE diff > 1e-12), count(*) FILTER (WHERE diff < -1e-12), "
        "count(*) FILTER (WHERE abs(diff) <= 1e-12), avg(diff) "
        "FROM compare_rankers('demo_a', 'demo_b', 'demo_events', k := ?)",
        params=[k],
    ).fetchall()[0]
    print(
        f"B vs A at NDCG@{k}: mean difference {mean_diff:+.4f} "
        f"(B better on {better} queries, worse on {worse}, equal on {same})"
    )
    by_device = con.sql(
        "SELECT device, ranker, mean_ndcg FROM ndcg_summary('demo_rankings', 'demo_events', "
        "k := ?, slice_by := ['ranker', 'device']) ORDER BY device, ranker",
        params=[k],
    ).fetchall()
    print(
        f"NDCG@{k} by device: "
        + "; ".join(
            f"{dev} A {a:.4f} / B {b:.4f}"
            for (dev, _, a), (_, _, b) in zip(by_device[0::2], by_device[1::2], strict=True)
        )
    )
    curve = con.sql(
        "SELECT ranker, k, mean_ndcg FROM ndcg_summary('demo_rankings', 'demo_events', "
        "k := range(1, 11), slice_by := ['ranker'])"
    ).fetchall()
    series: dict[str, list[tuple[int, float]]] = {}
    for ranker, cut, value in curve:
        series.setdefault(f"ranker {ranker}", []).append((int(cut), float(value)))
    page, bare = chart.write(args.chart, series, "NDCG@k of rankers A and B (demo log)")
    print()
    print(f"Chart of NDCG@1..10 per ranker: {page} (open it in a browser; also {bare.name})")
    print(
        "Same report in SQL:  SELECT * FROM ndcg_summary('demo_rankings', 'demo_events', "
        "k := [1, 5, 10], slice_by := ['ranker']);"
    )
    if args.keep:
        print(f"Tables demo_rankings and demo_events (and the macros) are saved in {args.keep}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input). Example: ``duckdb-ndcg demo``."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "evaluate":
            _evaluate(args)
        elif args.command == "install":
            install(args.database, storage_compatibility_version=args.storage_compatibility_version)
            print(f"installed the duckdb_ndcg macros into {args.database}")
        elif args.command == "sql":
            _sql(args)
        else:
            _demo(args)
    except (UsageError, ValueError, duckdb.Error, OSError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        if args.command == "evaluate":  # the SQL sees the inputs as views: name them as typed
            message = message.replace("_ndcg_input_rankings", args.rankings)
            message = message.replace("_ndcg_input_events", args.events)
        print(f"duckdb-ndcg {args.command}: {message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
