"""The ``duckdb-ndcg`` command: evaluate event logs, install macros, print SQL, run the demo."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NoReturn

import duckdb

from duckdb_ndcg import __version__, chart, demo
from duckdb_ndcg.compare import CORRECTIONS, MISSING, QUERY_SETS, TESTS, compare, verdict
from duckdb_ndcg.conventions import REPORT_METRICS
from duckdb_ndcg.evaluate import evaluate, judged_warning
from duckdb_ndcg.macros import install, macro, register, script
from duckdb_ndcg.portable import DEFAULT_EVENT_GRADES, METRICS, events_to_sql, to_sql

_OUTPUTS = {".csv": "CSV", ".json": "JSON", ".parquet": "PARQUET"}
_CHARTS = (".html", ".htm")
_CHART_MAX_K = 1000  # the curve is computed for every k up to the largest --k
_NUMBERS = {"tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint"}
_NUMBERS |= {"uinteger", "ubigint", "uhugeint", "float", "double", "decimal"}

# How the SQL macros and evaluate() name a setting, and the flag saying the same in this CLI:
# every message from those layers is reworded through these two tables (see _cli_wording).
_FLAGS = {
    "query_col": "--query-col",
    "item_col": "--item-col",
    "position_col": "--position-col",
    "score_col": "--score-col",
    "event_col": "--event-col",
    "time_col": "--time-col",
    "slice_by": "--slice-by",
    "tie_key": "--tie-key",
    "full_ideal": "--full-ideal",
    "mapping": "--mapping",
    "collapse": "--collapse",
    "ties": "--ties",
    "gain": "--gain",
    "k": "--k",
    "max_grade": "--max-grade",
    "metrics": "--metrics",
    "threshold": "--threshold",
    "denominator": "--denominator",
    "p": "--p",
    "empty_ideal": "--empty-ideal",
}
_SWITCHES = {
    ("unknown", "ignore"): "--ignore-unknown",
    ("duplicates", "allow"): "--allow-duplicates",
}
_SETTING = re.compile(r"\b([a-z_]+) ?:?= ?('[^']*'|<[^>]*>|[\w.]+)")  # unknown := 'ignore'
_PARAMETER = re.compile(
    r"(?<![\w'\"-])(" + "|".join(n for n in _FLAGS if "_" in n) + r")(?:\[\d+\])?(?![\w'\"])"
)
_SUBJECT = re.compile(r"^(k|gain|ties|collapse|mapping|denominator|p|threshold|metrics)(?= )|(?<=\bin )(mapping)\b")


class UsageError(Exception):
    """A problem the user can fix: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, ``duckdb-ndcg evaluate: --k: ...``, exit code 2."""

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument ([^:]+): ", r"\1: ", message)  # "--k: ...", not "argument"
        self.exit(2, f"{self.prog}: {message}\n")


def _cli_wording(message: str) -> str:
    """A message of the SQL/Python layer in this CLI's terms: ``--ignore-unknown``, not
    ``unknown := 'ignore'``; ``(--query-col)``, not ``(query_col)``."""
    message = message.split("duckdb_ndcg: ", 1)[-1]  # ours: drop DuckDB's "Invalid Input Error: "

    def setting(match: re.Match[str]) -> str:
        name, value = match[1], match[2].strip("'")
        if (name, value) in _SWITCHES:
            return _SWITCHES[name, value]
        return f"{_FLAGS[name]} {value}" if name in _FLAGS else match[0]

    message = _SETTING.sub(setting, message)
    message = _PARAMETER.sub(lambda match: _FLAGS[match[1]], message)
    return _SUBJECT.sub(lambda match: _FLAGS[match[1] or match[2]], message)


def _cutoffs(text: str) -> list[int]:
    try:
        cuts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers like 10 or 1,5,10, got {text!r}")
    if not cuts or min(cuts) < 1:
        raise argparse.ArgumentTypeError(f"expected positive whole numbers, got {text!r}")
    return cuts


class _Names(tuple):
    """The choices of a comma-separated list flag: argparse checks the parsed list against them."""

    def __contains__(self, value: object) -> bool:
        names = value if isinstance(value, list) else [value]
        return all(tuple.__contains__(self, name) for name in names)


_METRIC_NAMES = _Names(REPORT_METRICS.choices)


def _metrics(text: str) -> list[str]:
    """``--metrics ndcg,recall_at_k``: names of ndcg_report's metrics, each known, none twice."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names or names not in _METRIC_NAMES:
        raise argparse.ArgumentTypeError(
            f"must name some of {', '.join(_METRIC_NAMES)}, got {text!r}"
        )
    if len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(f"lists a metric more than once: {text!r}")
    return names


def _max_grade(text: str) -> str | int | float:
    if text == "mapping":
        return text
    try:
        return _number(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected 'mapping' or a number, got {text!r}") from None


_NULL = "null"  # --empty-ideal null: SQL NULL (None), which avg() skips


def _number_or_null(text: str) -> int | float | str:
    """A number as written, or ``null`` (any case) for SQL NULL."""
    if text.strip().lower() == _NULL:
        return _NULL
    try:
        return _number(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a number or null, got {text!r}") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _number(text: str) -> int | float:
    """A number as written: 4 stays the integer 4 (SQL errors then print it as the macros do)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _grades() -> str:
    names: dict[int, list[str]] = {}
    for event, grade in DEFAULT_EVENT_GRADES.items():
        names.setdefault(grade, []).append(event)
    return ", ".join(f"{'/'.join(events)} {grade}" for grade, events in sorted(names.items()))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="duckdb-ndcg", description="Ranking-quality metrics (NDCG and family) in DuckDB."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="see duckdb-ndcg COMMAND --help"
    )
    ev = sub.add_parser(
        "evaluate",
        help="NDCG@k per query from a rankings table and an event log",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"""\
NDCG@k per query (with --summary: its mean per slice and k) from a rankings table
and an event log, each a .parquet/.csv file or a table of --db.

required columns (other names: --query-col, --item-col, --position-col, --event-col):
  rankings  query_id, item_id, position (a number, 1 = first; or --score-col, higher first)
  events    query_id, item_id, event_type

default event -> grade mapping (replace it with --mapping):
  {_grades()}
an item's grade is its best event (--collapse). Default cutoff: --k 10.""",
    )
    ev.add_argument("rankings", help="rankings: a .parquet/.csv file, or a table of --db")
    ev.add_argument("events", help="events: a .parquet/.csv file, or a table of --db")
    ev.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    ev.add_argument("--k", type=_cutoffs, default=[10], help="cutoff(s), e.g. 1,5,10 (default 10)")
    ev.add_argument("--slice-by", default="", help="comma-separated columns of rankings")
    ev.add_argument("--summary", action="store_true", help="mean per slice and k, not per query")
    ev.add_argument(
        "--metrics",
        type=_metrics,
        choices=_METRIC_NAMES,
        metavar="NAMES",
        help="comma-separated metrics beside ndcg, each a column: "
        + ", ".join(REPORT_METRICS.choices[1:])
        + " (default ndcg)",
    )
    ev.add_argument(
        "--threshold",
        type=_number,
        help="grade >= threshold is relevant for the --metrics family (default 1)",
    )
    ev.add_argument(
        "--max-grade",
        type=_max_grade,
        help="err's scale: 'mapping' (default: the mapping's largest grade) or a number",
    )
    ev.add_argument("--query-col", default="query_id", help="query column (default query_id)")
    ev.add_argument("--item-col", default="item_id", help="item column (default item_id)")
    ev.add_argument(
        "--position-col", default="position", help="position column, 1 = first (default position)"
    )
    ev.add_argument("--score-col", help="rank by this score (higher first) instead of position")
    ev.add_argument(
        "--ties",
        default="average",
        choices=["average", "key"],
        help="equal positions/scores: average their gains (default), or break them by item",
    )
    ev.add_argument(
        "--gain",
        default="linear",
        choices=["linear", "exponential"],
        help="gain of a grade: the grade (default) or 2^grade - 1",
    )
    ev.add_argument("--event-col", default="event_type", help="event column (default event_type)")
    ev.add_argument(
        "--mapping", help="a .csv/.parquet file (event type, grade) replacing the default"
    )
    ev.add_argument(
        "--collapse",
        default="max",
        choices=["max", "sum", "last"],
        help="grade of an item with several events: best (default), sum, or last (--time-col)",
    )
    ev.add_argument("--time-col", help="timestamp column of events (for --collapse last)")
    ev.add_argument("--ignore-unknown", action="store_true", help="drop unknown event types")
    ev.add_argument("--allow-duplicates", action="store_true", help="score repeated impressions")
    ev.add_argument(
        "--memory-limit",
        help="DuckDB's memory_limit for this run, e.g. 2GB (default: DuckDB's, 80%% of RAM)",
    )
    ev.add_argument("--output", help="write the result to a .csv, .json or .parquet file")
    ev.add_argument(
        "--chart", help="write the NDCG@k curve (k = 1..max k, a line per slice) to this .html"
    )
    ev.set_defaults(run=_evaluate)
    _compare_parser(sub)
    ins = sub.add_parser("install", help="persist the macros into a DuckDB database file")
    ins.add_argument("database", help="the .duckdb file to create or add the macros to")
    ins.add_argument(
        "--storage-compatibility-version",
        help="storage of a new file: v1.4.0 (default: DuckDB 1.4 and newer open it), v1.5.0, "
        "v2.0.0 or latest",
    )
    ins.add_argument(
        "--replace",
        action="store_true",
        help="replace functions named like our macros that duckdb_ndcg did not create",
    )
    ins.set_defaults(run=_install)
    scr = sub.add_parser(
        "script",
        help="print every macro as plain SQL statements (DuckDB CLI .read/-init, Harlequin)",
    )
    scr.set_defaults(run=_script)
    sq = sub.add_parser(
        "sql",
        help="print the SQL of a macro, or with --dialect one statement for another engine",
        description="Without --dialect: the DuckDB macro's SQL. With --dialect: one statement "
        f"computing the metric per query (NAME: {', '.join(METRICS)}; or events for the event "
        "pipeline: events -> grades -> NDCG@k per query, with ndcg_report's k, gain and ties).",
    )
    sq.add_argument("name", help="the macro or metric, e.g. ndcg; with --dialect also events")
    sq.add_argument("--dialect", help="e.g. postgres, spark, clickhouse, bigquery, snowflake")
    sq.add_argument(
        "--k", type=_cutoffs, help="cutoff(s), e.g. 10 or 5,10 (default: the whole ranking)"
    )
    sq.add_argument("--table", help="input table (query_id, item_id, rel, rnk); judged_run")
    sq.add_argument("--rankings", help="events: rankings table (default rankings)")
    sq.add_argument("--events", help="events: events table (default events)")
    sq.add_argument("--gain", choices=["linear", "exponential"], help="gain (default linear)")
    sq.add_argument("--ties", choices=["average", "key"], help="ties (default average)")
    sq.add_argument("--tie-key", help="column breaking ties for --ties key (e.g. item_id)")
    sq.add_argument(
        "--full-ideal", action="store_true", help="without --k: the ideal over every judged item"
    )
    sq.add_argument("--max-grade", type=_number, help="err: the top of the grade scale (default 4)")
    sq.add_argument(
        "--p", type=_number, help="rbp, rbp_residual: persistence in (0, 1) (default 0.8)"
    )
    sq.add_argument(
        "--denominator",
        choices=["relevant", "min_k", "retrieved"],
        help="recall_at_k, average_precision: divide by every relevant item, min(relevant, k), or "
        "(average_precision) the relevant items retrieved (default relevant)",
    )
    sq.add_argument(
        "--empty-ideal",
        type=_number_or_null,
        help="ndcg, events and the metrics whose macro takes it: the result of a query with "
        "nothing relevant (ndcg: IDCG 0), a number or null, which avg() skips (default 0.0)",
    )
    sq.add_argument("--pretty", action="store_true", help="indent the statement")
    sq.set_defaults(run=_sql)
    dm = sub.add_parser("demo", help="generate an e-commerce search log and report on two rankers")
    dm.add_argument("--queries", type=_positive, default=2000, help="queries (default 2000)")
    dm.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    dm.add_argument("--k", type=_positive, default=10, help="cutoff (default 10)")
    dm.add_argument("--chart", default="ndcg_demo.html", help="where to write the chart")
    dm.add_argument("--keep", help="also save the generated tables into this .duckdb file")
    dm.set_defaults(run=_demo)
    return parser


def _connect(database: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A connection drawing DuckDB's progress bar only when stdout and stderr are terminals:
    DuckDB draws it on stdout, where it would land in redirected output."""
    con = duckdb.connect(database)
    on = sys.stdout.isatty() and sys.stderr.isatty()
    con.execute(f"SET enable_progress_bar = {'true' if on else 'false'}")
    return con


def _stage(text: str) -> None:
    """A progress line on stderr, only when stderr is a terminal."""
    if sys.stderr.isatty():
        print(f"duckdb-ndcg: {text}...", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _warnings_to_stderr(prog: str) -> Iterator[None]:
    """Warnings of the block, each once, on stderr in the CLI's terms; none after an error, which
    stays the one line printed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(warning.message) for warning in caught):
        print(f"{prog}: warning: {_cli_wording(message)}", file=sys.stderr)


def _target(text: str, flag: str, suffixes: Sequence[str], inputs: dict[Path, str]) -> Path:
    """An output path checked before any work: its suffix, an existing folder, not an input."""
    path = Path(text)
    if path.suffix.lower() not in suffixes:
        names = " or ".join([", ".join(suffixes[:-1]), suffixes[-1]] if suffixes[:-1] else suffixes)
        raise UsageError(f"{flag} {text}: use a {names} file name")
    if not path.parent.is_dir():
        raise UsageError(f"{flag} {text}: folder {path.parent} does not exist")
    if path.is_dir():
        raise UsageError(f"{flag} {text} is a folder")
    for source, role in inputs.items():
        if path.resolve() == source or (path.exists() and os.path.samefile(path, source)):
            raise UsageError(f"{flag} {text} is the {role}: it would be overwritten")
    return path


def _is_duckdb_file(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(12)[8:] == b"DUCK"  # a DuckDB file's magic bytes


def _attach(con: duckdb.DuckDBPyConnection, db: str) -> None:
    path = Path(db)
    if not path.is_file():
        raise UsageError(f"--db {db} does not exist")
    if not _is_duckdb_file(path):
        raise UsageError(
            f"--db {db} is not a DuckDB database file (give .parquet/.csv inputs as paths, "
            "without --db)"
        )
    literal = "'" + db.replace("'", "''") + "'"  # DuckDB 1.4/1.5: ATTACH takes no ? parameter
    con.execute(f"ATTACH {literal} AS ndcg_source (READ_ONLY)")
    con.execute("SET search_path = 'memory.main,ndcg_source.main'")


def _check_rank_column(con: duckdb.DuckDBPyConnection, args: argparse.Namespace) -> None:
    column, flag = (args.score_col, "--score-col")
    if not column:
        column, flag = (args.position_col, "--position-col")
    try:
        relation = con.sql("SELECT * FROM query_table(?) LIMIT 0", params=[args.rankings])
    except duckdb.Error:
        return  # evaluate() names a missing or unreadable input
    types = dict(zip(relation.columns, relation.types, strict=True))
    if column in types and types[column].id not in _NUMBERS:
        raise UsageError(
            f"rankings {args.rankings}: column {column!r} ({flag}) is {types[column]}, "
            "not a number; rank by a numeric position or score column"
        )


def _write(con: duckdb.DuckDBPyConnection, table: str, path: Path) -> None:
    """COPY ``table`` to ``path`` through a temporary file beside it, renamed into place, so an
    interrupted write never leaves a truncated file that looks complete."""
    kind = _OUTPUTS[path.suffix.lower()]
    options = "FORMAT JSON, ARRAY true" if kind == "JSON" else f"FORMAT {kind}"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        con.execute(f"COPY {table} TO ? ({options})", [str(temporary)])
        os.replace(temporary, path)
    except (duckdb.IOException, OSError) as error:
        reason = str(error).splitlines()[0].replace(str(temporary), str(path))
        reason = re.sub(r"^(IO Error|\[Errno \d+\]) ?:? ?", "", reason)
        raise UsageError(f"--output {path} cannot be written: {reason}") from None
    finally:
        if temporary.is_file():
            temporary.unlink()


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


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _evaluate(args: argparse.Namespace) -> None:
    files = {"rankings": args.rankings, "events": args.events, "--mapping": args.mapping}
    inputs = {Path(v).resolve(): f"{k} file" for k, v in files.items() if v and Path(v).is_file()}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    output = args.output and _target(args.output, "--output", tuple(_OUTPUTS), inputs)
    page = args.chart and _target(args.chart, "--chart", _CHARTS, inputs)
    if page:
        _target(str(page.with_suffix(".svg")), "--chart", (".svg",), inputs)
        if max(args.k) > _CHART_MAX_K:
            raise UsageError(
                f"--chart draws NDCG@1..{max(args.k)} (up to the largest --k), more than "
                f"{_CHART_MAX_K} points a line: chart with a smaller --k"
            )
    con = _connect()
    if args.memory_limit:  # SET takes no parameters: the value is checked to be a size first
        if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", args.memory_limit, re.IGNORECASE):
            raise UsageError(f"--memory-limit takes a size like 500MB or 2GB, got {args.memory_limit!r}")
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    if args.db:  # read-only: the report's temporary views and macros live in memory
        _attach(con, args.db)
    _check_rank_column(con, args)
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
    family = {
        name: value
        for name, value in (
            ("metrics", args.metrics),
            ("threshold", args.threshold),
            ("max_grade", args.max_grade),
        )
        if value is not None
    }
    # the judged share is checked in every run: a report computes judged_at_k for the warning
    # and drops the column unless --metrics names it
    asked = family.get("metrics", ["ndcg"])
    if not args.summary and "judged_at_k" not in asked:
        family["metrics"] = [*asked, "judged_at_k"]
    with _warnings_to_stderr("duckdb-ndcg evaluate"):
        _stage("reading, grading and reporting")
        shape = "summary" if args.summary else "report"
        relation = evaluate(
            args.rankings, args.events, k=args.k, shape=shape, **common, **family
        )
        keys = relation.columns[: relation.columns.index("k") + 1]  # slices, query, k
        relation.order(", ".join(map(_quoted, keys))).to_table("_ndcg_result")  # computed once
        share = "any_value(mean_judged_at_k)" if args.summary else "avg(judged_at_k)"
        _warn_judged(con, "_ndcg_result", share, f"rankings {args.rankings}", args.events, slices)
        if not args.summary and "judged_at_k" not in asked:
            con.execute("ALTER TABLE _ndcg_result DROP COLUMN judged_at_k")
        if page:
            _stage("computing the NDCG@k curve for the chart")
            cuts = list(range(1, max(args.k) + 1))
            curve = evaluate(args.rankings, args.events, k=cuts, **common)
            series = chart.curve_series(curve, slices)
            title = f"Mean NDCG@k, k = 1..{max(args.k)}"
            title += ", exponential gain" if args.gain == "exponential" else ""
            title += f", per {', '.join(slices)}" if slices else ", all queries"
            chart.svg(series, title)  # a chart that cannot be drawn fails before any writing
    if output:
        _stage(f"writing {output}")
        _write(con, "_ndcg_result", output)
        rows = con.table("_ndcg_result").aggregate("count(*)").fetchall()[0][0]
        print(f"wrote {rows} rows to {output}", file=sys.stderr)
    else:
        _show(con.table("_ndcg_result"))
    if page:
        written = chart.write(page, series, title)
        print(f"chart: {written[0]} (and {written[1].name})", file=sys.stderr)


def _warn_judged(
    con: duckdb.DuckDBPyConnection, table: str, share: str, who: str, events: str,
    slices: list[str],
) -> None:
    """Warn when a (slice, cutoff) row of ``table`` has a judged share (the SQL ``share``) below
    MIN_JUDGED: more than 10 % of a ranking's first k items have no event to grade them."""
    columns = ", ".join(map(_quoted, [*slices, "k"]))
    rows = con.sql(f"SELECT {columns}, {share} FROM {table} GROUP BY ALL").fetchall()
    found = [
        (", ".join(f"{name}={value}" for name, value in zip(slices, row)), row[-2], row[-1])
        for row in rows
    ]
    message = judged_warning(who, events, found)
    if message:
        warnings.warn(message, UserWarning, stacklevel=2)


def _compare_parser(sub: argparse._SubParsersAction) -> None:
    cmp = sub.add_parser(
        "compare",
        help="is ranker B better than A? a verdict per slice and k",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Ranker B against ranker A on the same event log: per slice and k, the mean NDCG@k
difference B - A with its confidence interval, the test's p-value corrected across
the rows, and B's wins / ties / losses over the queries (compare_summary).
Inputs and columns as for duckdb-ndcg evaluate.""",
    )
    cmp.add_argument("rankings_a", help="ranker A: a .parquet/.csv file, or a table of --db")
    cmp.add_argument("rankings_b", help="ranker B: a .parquet/.csv file, or a table of --db")
    cmp.add_argument("events", help="events: a .parquet/.csv file, or a table of --db")
    cmp.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    cmp.add_argument("--k", type=_cutoffs, default=[10], help="cutoff(s), e.g. 5,10 (default 10)")
    cmp.add_argument("--slice-by", default="", help="comma-separated columns of the rankings")
    cmp.add_argument("--test", default="t", choices=TESTS, help="significance test (default t)")
    cmp.add_argument("--conf", type=float, default=0.95, help="interval level (default 0.95)")
    cmp.add_argument("--correction", default="holm", choices=CORRECTIONS,
                     help="multiple-testing correction across rows (default holm)")
    cmp.add_argument("--alpha", type=float, default=0.05, help="level of reject (default 0.05)")
    cmp.add_argument("--query-set", default="both", choices=QUERY_SETS,
                     help="queries compared: shown by both rankers (default), either, a or b")
    cmp.add_argument("--missing", default="zero", choices=MISSING,
                     help="a query one ranker did not show: NDCG 0 for it (default) or error")
    cmp.add_argument("--resamples", type=_positive, default=10000,
                     help="resamples of --test randomization (default 10000)")
    cmp.add_argument("--seed", type=int, default=42, help="seed of --test randomization")
    for name, default in (("query", "query_id"), ("item", "item_id"), ("event", "event_type")):
        cmp.add_argument(f"--{name}-col", default=default, help=f"{name} column (default {default})")
    cmp.add_argument("--position-col", default="position",
                     help="position column, 1 = first (default position)")
    cmp.add_argument("--score-col", help="rank by this score (higher first) instead of position")
    cmp.add_argument("--ties", default="average", choices=["average", "key"],
                     help="equal positions/scores: average their gains (default), or by item")
    cmp.add_argument("--gain", default="linear", choices=["linear", "exponential"],
                     help="gain of a grade: the grade (default) or 2^grade - 1")
    cmp.add_argument("--mapping", help="a .csv/.parquet file (event type, grade)")
    cmp.add_argument("--collapse", default="max", choices=["max", "sum", "last"],
                     help="grade of an item with several events: best (default), sum, last")
    cmp.add_argument("--time-col", help="timestamp column of events (for --collapse last)")
    cmp.add_argument("--ignore-unknown", action="store_true", help="drop unknown event types")
    cmp.add_argument("--allow-duplicates", action="store_true", help="score repeated impressions")
    cmp.add_argument("--output", help="write the summary table to a .csv, .json or .parquet file")
    cmp.set_defaults(run=_compare)


def _compare(args: argparse.Namespace) -> None:
    files = {"rankings_a": args.rankings_a, "rankings_b": args.rankings_b,
             "events": args.events, "--mapping": args.mapping}
    inputs = {Path(v).resolve(): f"{k} file" for k, v in files.items() if v and Path(v).is_file()}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    output = args.output and _target(args.output, "--output", tuple(_OUTPUTS), inputs)
    con = _connect()
    if args.db:
        _attach(con, args.db)
    slices = [s.strip() for s in args.slice_by.split(",") if s.strip()]
    with _warnings_to_stderr("duckdb-ndcg compare"):
        _stage("reading, grading and testing")
        relation = compare(
            args.rankings_a, args.rankings_b, args.events, k=args.k, slice_by=slices,
            test=args.test, conf=args.conf, correction=args.correction, alpha=args.alpha,
            query_set=args.query_set, missing=args.missing, resamples=args.resamples,
            seed=args.seed, con=con, query_col=args.query_col, item_col=args.item_col,
            position_col=args.position_col, score_col=args.score_col, ties=args.ties,
            gain=args.gain, event_col=args.event_col, mapping=args.mapping,
            collapse=args.collapse, time_col=args.time_col,
            unknown="ignore" if args.ignore_unknown else "error",
            duplicates="allow" if args.allow_duplicates else "error",
        )
        relation.to_table("_ndcg_compare")  # computed once
        for ranker, rankings in (("A", args.rankings_a), ("B", args.rankings_b)):
            _warn_judged(con, "_ndcg_compare", f"any_value(judged_{ranker.lower()})",
                         f"ranker {ranker} ({rankings})", args.events, slices)
    table = con.table("_ndcg_compare")
    for row in table.fetchall():
        values = dict(zip(table.columns, row, strict=True))
        where = ", ".join(f"{name}={values[name]}" for name in slices)
        cut = "NDCG" if values["k"] is None else f"NDCG@{values['k']}"
        print(f"{where + ', ' if where else ''}{cut}, {values['queries']} queries: "
              f"{verdict(values, test=args.test, correction=args.correction)}")
    if output:
        _write(con, "_ndcg_compare", output)
        print(f"wrote {len(table.fetchall())} rows to {output}", file=sys.stderr)


def _install(args: argparse.Namespace) -> None:
    install(
        args.database,
        storage_compatibility_version=args.storage_compatibility_version,
        replace=args.replace,
    )
    print(f"installed the duckdb_ndcg macros into {args.database}")


def _script(args: argparse.Namespace) -> None:
    print(script(), end="")


# The options of `sql` that apply with --dialect, per target: the event pipeline or a metric.
_SQL_OPTIONS = {
    "events": ("k", "gain", "ties", "empty_ideal", "rankings", "events", "pretty"),
    "metric": (
        "k", "gain", "ties", "tie_key", "full_ideal", "max_grade", "p", "denominator",
        "empty_ideal", "table", "pretty",
    ),
}


def _sql(args: argparse.Namespace) -> None:
    names = (
        "k", "gain", "ties", "tie_key", "full_ideal", "max_grade", "p", "denominator",
        "empty_ideal", "table", "rankings", "events", "pretty",
    )
    given = {name: getattr(args, name) for name in names}
    given = {
        name: value for name, value in given.items() if value is not None and value is not False
    }
    flags = [f"--{name.replace('_', '-')}" for name in given]
    if args.dialect is None:
        if given:
            raise UsageError(
                f"{', '.join(flags)}: only with --dialect (without it, sql prints the macro's SQL)"
            )
        print(macro(args.name).sql.rstrip())
        return
    if args.name == "ndcg_report":  # the portable pipeline is not the macro: it lacks options
        raise UsageError(
            "ndcg_report: the portable SQL of the event pipeline is 'sql events --dialect ...' "
            "(ndcg_report's k, gain and ties; not its slice_by, score_col or collapse rules)"
        )
    target = "events" if args.name == "events" else "metric"
    unused = [f"--{n.replace('_', '-')}" for n in given if n not in _SQL_OPTIONS[target]]
    if unused:
        raise UsageError(f"{', '.join(unused)}: not used by {args.name}")
    if args.full_ideal and args.k is not None:
        raise UsageError(
            "--full-ideal takes the ideal over every judged item, which only applies without "
            "--k (with --k the ideal is cut at k): drop one of them"
        )
    if args.k is not None:
        given["k"] = args.k[0] if len(args.k) == 1 else args.k
    if given.get("empty_ideal") == _NULL:
        given["empty_ideal"] = None
    if target == "events":
        print(events_to_sql(args.dialect, **{"rankings": "rankings", "events": "events", **given}))
    else:
        print(to_sql(args.name, args.dialect, **{"table": "judged_run", **given}))


def _demo(args: argparse.Namespace) -> None:
    page = _target(args.chart, "--chart", _CHARTS, {})
    if args.keep:  # DuckDB would open a .csv path as an in-memory database and keep nothing
        keep = _target(args.keep, "--keep", (".duckdb", ".db"), {})
        if keep.exists() and not _is_duckdb_file(keep):
            raise UsageError(f"--keep {args.keep} exists and is not a DuckDB database file")
    con = _connect(args.keep or ":memory:")
    register(con, temporary=not args.keep)  # --keep persists the macros with the tables
    _stage("generating the search log")
    demo.generate(con, queries=args.queries, seed=args.seed)
    k = args.k
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
    # the verdict: paired t-test over the queries both rankers showed, with its interval
    result = compare("demo_a", "demo_b", "demo_events", k=k, con=con)
    row = dict(zip(result.columns, result.fetchall()[0], strict=True))
    print(f"B vs A at NDCG@{k}: {verdict(row)}")
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
        "SELECT ranker, k, mean_ndcg, ci_low, ci_high FROM ndcg_summary('demo_rankings', "
        "'demo_events', k := range(1, ? + 1), slice_by := ['ranker'])",
        params=[k],
    ).fetchall()
    series: dict[str, list[chart.Point]] = {}
    for ranker, cut, value, low, high in curve:  # the band: ndcg_summary's 95 % t-interval
        series.setdefault(f"ranker {ranker}", []).append((int(cut), float(value), low, high))
    title = f"Mean NDCG@k, k = 1..{k}, of rankers A and B (demo log)"
    written, bare = chart.write(page, series, title)
    print()
    print(f"Chart of NDCG@1..{k} per ranker: {written} (open it in a browser; also {bare.name})")
    keep = args.keep or "demo.duckdb"
    report = (
        f"duckdb-ndcg evaluate demo_rankings demo_events --db {shlex.quote(keep)} --summary "
        f"--slice-by ranker --k {','.join(map(str, cuts))}"
    )
    if args.keep:
        print(f"Tables demo_rankings and demo_events (and the macros) are saved in {keep}.")
        print(f"Same report:  {report}")
        print(
            f"  or in SQL on {keep}:  SELECT * FROM ndcg_summary('demo_rankings', 'demo_events', "
            f"k := {cuts}, slice_by := ['ranker']);"
        )
    else:
        print(f"To query the log yourself, rerun with --keep {shlex.quote(keep)}, then:  {report}")


_OUT_OF_MEMORY = (
    "The report's plan spills to disk, but DuckDB still needs some working memory per thread "
    "(tens of MB): raise --memory-limit (DuckDB's memory_limit), run with fewer threads, and "
    "check that DuckDB's temp_directory has free space"
)


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else repr(error)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input). Example: ``duckdb-ndcg demo``."""
    try:
        args, extra = _parser().parse_known_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already printed
        return done.code if isinstance(done.code, int) else 0
    prog = f"duckdb-ndcg {args.command}"
    try:
        if extra:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        args.run(args)
    except BrokenPipeError:  # the reader stopped early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 0
    except duckdb.OutOfMemoryException as error:
        print(f"{prog}: {_first_line(error)}. {_OUT_OF_MEMORY}", file=sys.stderr)
        return 2
    except (UsageError, ValueError, duckdb.Error, OSError) as error:
        message = _first_line(error)
        print(f"{prog}: {_cli_wording(message)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
