"""The ``duckdb-ndcg`` command: evaluate event logs, install macros, print SQL, run the demo."""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TypeVar

import duckdb

from duckdb_ndcg import __version__, chart, demo, trec
from duckdb_ndcg.clicks import click_grades
from duckdb_ndcg.compare import compare, verdict
from duckdb_ndcg.conventions import (
    AP_DENOMINATOR,
    ATTRIBUTION,
    CLI_LISTS,
    CLI_SWITCHES,
    DEFAULT_EVENT_GRADES,
    GAIN,
    MACROS,
    PORTABLE_METRICS,
    PRESETS,
    REPORT_METRICS,
    TIES,
    Param,
    cli_flag,
)
from duckdb_ndcg.evaluate import evaluate
from duckdb_ndcg.inputs import (
    OptionError,
    checked_measures,
    checked_metrics,
    checked_report_options,
    judged_warning,
    open_source,
)
from duckdb_ndcg.macros import (
    OLDEST_STORAGE,
    created_sql,
    install,
    literal,
    quoted,
    register,
    script,
)
from duckdb_ndcg.measures import parse_measures
from duckdb_ndcg.presets import trec_complete
from duckdb_ndcg.sources import SOURCES

_OUTPUTS = {".csv": "CSV", ".json": "JSON", ".parquet": "PARQUET"}
_STDOUT_FORMATS = ("csv", "json")  # --output - --format
# demo --source: each vendor's export and its default place
_DEMO_EXPORTS = {"ga4": "events_demo.parquet", "ubi": "ubi_demo"}
_CHARTS = (".html", ".htm")
_CHART_MAX_K = 1000  # the curve is computed for every k up to the largest --k
_NUMBERS = {"tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint"}
_NUMBERS |= {"uinteger", "ubigint", "uhugeint", "float", "double", "decimal"}

# How the SQL macros and evaluate() name a setting, and the flag saying the same in this CLI
# (conventions.cli_flag: ``query_col`` is ``--query-col``; CLI_SWITCHES: ``unknown := 'ignore'``
# is ``--ignore-unknown``): every message from those layers is reworded (see _cli_wording)
_SWITCHES = {(name, value): flag for name, (flag, value) in CLI_SWITCHES.items()}
_SETTING = re.compile(r"\b([a-z_]+) ?:?= ?('[^']*'|<[^>]*>|[\w.]+)")  # unknown := 'ignore'


@functools.cache
def _reworded() -> tuple[dict[str, str], re.Pattern[str], re.Pattern[str]]:
    """The options this CLI rewords in a message: every option of the conventions table that has
    a flag (not a switch) in one of its commands, by name, with that flag; then the pattern of a
    name with an underscore anywhere (``query_col``, ``slice_by[2]``), and that of a message
    whose subject is a one-word option ("k must be ...", "... in mapping")."""
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    flags = {flag for command in sub.choices.values() for action in command._actions
             for flag in action.option_strings}
    # (a switch stands for one value: ``unknown := 'ignore'`` is reworded whole, by _SETTING)
    names = {p.name: cli_flag(p.name) for m in MACROS.values() for p in m.params
             if p.default is not None and p.name not in CLI_SWITCHES
             and cli_flag(p.name) in flags}
    parameter = re.compile(
        r"(?<![\w'\"-])(" + "|".join(sorted(n for n in names if "_" in n)) + r")(?:\[\d+\])?(?![\w'\"])"
    )
    subject = re.compile(
        r"^(" + "|".join(sorted(n for n in names if "_" not in n)) + r")(?= )|(?<=\bin )(mapping)\b"
    )
    return names, parameter, subject


# Exit codes: 0 done; 2 the command line is wrong (an unknown flag or value, a bad combination, an
# input or output path that does not exist or cannot be used), nothing was read; 1 the command was
# well formed but the data or the run failed (a missing column, duplicates, an unknown event type,
# out of memory, an output that cannot be written); 130 interrupted (Ctrl-C).
USAGE, DATA, INTERRUPTED = 2, 1, 130
# Ctrl-C between DuckDB's checks of a query (as a statement starts: registering the macros)
# reaches Python as this RuntimeError, not as duckdb.InterruptException
_STATEMENT_INTERRUPTED = "Query interrupted"
_T = TypeVar("_T")
_STDIO = "-"  # --output -: the result on stdout; an input -: read from stdin


class UsageError(Exception):
    """A problem of the command line: printed as one line, exit code 2."""


class VerbatimUsageError(UsageError):
    """A UsageError printed as written: a measure string (``rbp.p=0.8``) is not a SQL setting
    to reword as a flag, and a message already in the CLI's terms is not reworded twice."""


class DataError(Exception):
    """A problem of the data or the run, found by the CLI itself: one line, exit code 1."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, ``duckdb-ndcg evaluate: --k: ...``, exit code 2."""

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument ([^:]+): ", r"\1: ", message)  # "--k: ...", not "argument"
        self.exit(2, f"{self.prog}: {message}\n")


def _error_wording(error: BaseException) -> str:
    """The first line of ``error`` in this CLI's terms. An OptionError names its option as data:
    the sentence starts with the option's flag (``--threshold must be ...``), looked up by name;
    any other message is reworded by _cli_wording."""
    message = _first_line(error)
    if isinstance(error, OptionError):
        flags = _reworded()[0]
        flag = flags.get(error.option)
        if flag is not None:
            return flag + _cli_wording(message[len(error.option):])
    return _cli_wording(message)


def _cli_wording(message: str) -> str:
    """A message of the SQL/Python layer in this CLI's terms: ``--ignore-unknown``, not
    ``unknown := 'ignore'``; ``(--query-col)``, not ``(query_col)``."""
    message = message.split("duckdb_ndcg: ", 1)[-1]  # ours: drop DuckDB's "Invalid Input Error: "

    flags, parameter, subject = _reworded()

    def setting(match: re.Match[str]) -> str:
        name, value = match[1], match[2].strip("'")
        if (name, value) in _SWITCHES:
            return _SWITCHES[name, value]
        return f"{flags[name]} {value}" if name in flags else match[0]

    message = _SETTING.sub(setting, message)
    message = parameter.sub(lambda match: flags[match[1]], message)
    return subject.sub(lambda match: flags[match[1] or match[2]], message)


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


def _value_grades(text: str) -> dict[float, float]:
    """--value-grades 30=1,120=2: value threshold to grade, in the order written (the macros
    check that the thresholds increase and the grades are not negative)."""
    grades: dict[float, float] = {}
    for part in text.split(","):
        threshold, sep, grade = part.partition("=")
        try:
            if not sep or float(threshold) in grades:
                raise ValueError
            grades[float(threshold)] = float(grade)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected value thresholds and grades like 30=1,120=2, got {text!r}"
            ) from None
    return grades


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


def _unit(text: str) -> float:
    """A number strictly between 0 and 1 (--conf, --alpha)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
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


# The help of each option flag of evaluate and compare (their macros' options, the conventions
# table): what the option does; its choices, default and flag come from the table (_table_flags)
_REPORT_HELP = {
    "k": "cutoff(s), e.g. 1,5,10",
    "slice_by": "comma-separated columns of the rankings (or of events, per query)",
    "query_col": "query column",
    "item_col": "item column",
    "position_col": "position column, 1 = first",
    "score_col": "rank by this score (higher first) instead of position",
    "ties": "equal positions/scores: average their gains, or break them by item (key)",
    "gain": "gain of a grade: the grade (linear) or 2^grade - 1 (exponential)",
    "duplicates": "score repeated impressions",
    "event_col": "event column",
    "mapping": "a .csv/.parquet file (event type, grade) replacing the default",
    "collapse": "grade of an item with several events: the best (max), the sum, or the last "
                "(--time-col)",
    "time_col": "timestamp column of events (for --collapse last)",
    "unknown": "drop unknown event types",
    "metrics": "comma-separated metrics beside ndcg, each a column: "
               + ", ".join(REPORT_METRICS.choices[1:]),
    "threshold": "grade >= threshold is relevant for the --metrics family",
    "max_grade": "err's scale: 'mapping' (the mapping's largest grade) or a number",
    "value_col": "numeric value column of events for --value-grades (as the --source adapters "
                 "write it)",
    "value_grades": "grade events by their value: 30=1,120=2 gives a value >= 30 grade 1, >= 120 "
                    "grade 2, below 30 grade 0 (events of types the mapping grades above 0; "
                    "default: grades by event type)",
    "bucket": "a slice column bucket per query time: day, week or an interval such as '6 hours' "
              "(with --chart and no --slice-by: the trend over the buckets)",
    "start": "only queries shown at or after this date or time",
    "stop": "only queries shown before this date or time",
    "rankings_time_col": "time column of rankings for --bucket, --start, --stop; a query's time "
                         "is its earliest",
    # compare
    "test": "significance test",
    "conf": "interval level",
    "correction": "multiple-testing correction across rows",
    "alpha": "level of reject",
    "query_set": "queries compared: shown by both rankers, either, a or b",
    "missing": "a query one ranker did not show: NDCG 0 for it (zero) or error",
    "resamples": "resamples of --test randomization",
    "seed": "seed of --test randomization",
}
# how a flag's text is read (_FLAG_TEXT)
_REPORT_KINDS = {"k": _cutoffs, "metrics": _metrics, "threshold": _number,
                 "max_grade": _max_grade, "value_grades": _value_grades, "conf": _unit,
                 "alpha": _unit, "resamples": _positive, "seed": int}
_METAVARS = {"metrics": "NAMES", "value_grades": "T=G,..."}


def _sql_default_text(sql: str) -> str | None:
    """A conventions default (SQL text) as written on a command line: 'coec' -> coec, [5, 10]
    -> 5,10, 0.95 -> 0.95; NULL and the empty list -> None."""
    text = re.sub(r"::[A-Z\[\]]+$", "", sql)  # []::VARCHAR[] -> []
    if text.startswith("["):
        text = ",".join(part.strip() for part in text[1:-1].split(",") if part.strip())
    text = ",".join(part.strip("'") for part in text.split(",")) if text else text
    return None if text in ("NULL", "") else text


def _flag_default(macro: str, param: Param) -> object:
    """The value of an option's flag when it is not given: the table's default read as the flag
    reads text (``--k``'s 10 is [10]; ``--conf``'s 0.95 a float); a switch's is False."""
    if param.name in CLI_SWITCHES:
        return False
    text = _sql_default_text(param.default or "NULL")
    kind = _FLAG_TEXT[macro][1].get(param.name, str)
    return "" if param.name == "slice_by" else None if text is None else kind(text)


def _table_flags(parser: argparse.ArgumentParser, macro: str, skip: Sequence[str] = ()) -> None:
    """A flag for every option of ``macro`` (the conventions table) but ``skip``: its name
    (``cli_flag``: ``--query-col``; a switch for CLI_SWITCHES), its choices, its default
    (``_flag_default``) and its help (``_FLAG_TEXT``: what it does, then the table's default).
    A table option without a help line is a KeyError here, so the CLI cannot drift from the
    table. Example: ``_table_flags(ev, "ndcg_report", skip=("log_base", "empty_ideal"))``."""
    helps, kinds = _FLAG_TEXT[macro]
    for param in MACROS[macro].params:
        if param.default is None or param.name in skip:
            continue
        help_text = helps[param.name]
        if param.name in CLI_SWITCHES:
            parser.add_argument(cli_flag(param.name), action="store_true", help=help_text)
            continue
        text = _sql_default_text(param.default)
        options: dict[str, object] = {
            "type": kinds.get(param.name, str),
            "default": _flag_default(macro, param),
            "help": help_text + (f" (default {text})" if text is not None else ""),
        }
        if param.name == "metrics":  # a list of choices, checked after the comma split
            options["choices"] = _METRIC_NAMES
        elif param.choices:
            options["choices"] = param.choices
        if param.name in _METAVARS:
            options["metavar"] = _METAVARS[param.name]
        parser.add_argument(cli_flag(param.name), **options)  # type: ignore[arg-type]


def _given_flags(args: argparse.Namespace, macro: str) -> list[str]:
    """The flags of ``macro``'s options (the conventions table) that the command line set to
    another value than the table's default, in the table's order: ``["--k", "--threshold"]``."""
    given = []
    for param in MACROS[macro].params:
        if param.default is None or not hasattr(args, _dest(param.name)):
            continue
        if getattr(args, _dest(param.name)) != _flag_default(macro, param):
            given.append(cli_flag(param.name))
    return given


def _dest(name: str) -> str:
    """The argparse attribute of an option's flag: ``--ignore-unknown`` is ``ignore_unknown``."""
    return cli_flag(name)[2:].replace("-", "_")


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
and an event log, each a .parquet/.csv/.json file or a table of --db.

required columns (other names: --query-col, --item-col, --position-col, --event-col):
  rankings  query_id, item_id, position (a number, 1 = first; or --score-col, higher first)
  events    query_id, item_id, event_type

default event -> grade mapping (replace it with --mapping):
  {_grades()}
an item's grade is its best event (--collapse). Default cutoff: --k 10.""",
    )
    ev.add_argument("rankings", help="rankings: a .parquet/.csv/.json file, a table of --db, or -")
    ev.add_argument(
        "events",
        nargs="?",
        help="events: a .parquet/.csv/.json file, a table of --db, or - (stdin); with --source ga4 none",
    )
    ev.add_argument(
        "--source",
        choices=tuple(SOURCES),
        help="a vendor's export read through its adapter, RANKINGS (and EVENTS) its inputs: "
        + "; ".join(f"{name}: {', '.join(roles)}" for name, roles in SOURCES.items()),
    )
    ev.add_argument(
        "--attribution",
        choices=ATTRIBUTION.choices,
        help="--source: an interaction goes to the last (default) or first showing of the item",
    )
    ev.add_argument(
        "--attribution-window",
        help="--source: how long after a showing an interaction counts, e.g. '30 minutes' "
        "(default 1 day)",
    )
    ev.add_argument(
        "--position-base",
        choices=("auto", "0", "1"),
        help="--source: positions in the export start at 0 or 1 (default auto)",
    )
    ev.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    ev.add_argument("--summary", action="store_true", help="mean per slice and k, not per query")
    ev.add_argument(
        "--preset",
        choices=list(PRESETS),
        help="NDCG's conventions as a tool has them: sklearn (ties averaged, ideal from the "
        "shown items), lightgbm, xgboost (exponential gain, a query without a relevant item 1, "
        "the rank as given); see the README's presets table (default: none)",
    )
    ev.add_argument(
        "--measures",
        metavar="TEXT",
        help="measures as IR tools name them, instead of --k and --metrics: ir_measures "
        "('nDCG@10 P(rel=2)@5 RR'), trec_eval ('ndcg_cut.5,10') or ranx ('map@100'); output "
        "(slices, query, measure, value), with --summary (slices, measure, queries, value)",
    )
    _table_flags(ev, "ndcg_report", skip=("log_base", "empty_ideal"))
    ev.add_argument(
        "--memory-limit",
        help="DuckDB's memory_limit for this run, e.g. 2GB (default: DuckDB's, 80%% of RAM)",
    )
    ev.add_argument(
        "--output", help="write the result to a .csv, .json or .parquet file, or - for stdout"
    )
    ev.add_argument(
        "--format", choices=_STDOUT_FORMATS, help="with --output -: csv (default) or json"
    )
    ev.add_argument(
        "--chart",
        help="write the NDCG@k curve (k = 1..max k, a line per slice) to this .html; with one "
        "--slice-by column of dates or timestamps, NDCG@(max k) over its days",
    )
    ev.set_defaults(run=_evaluate)
    _compare_parser(sub)
    _grades_parser(sub)
    _ips_parser(sub)
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
        description="Without --dialect: the DuckDB macro's SQL as register() creates it. With "
        "--dialect: one statement computing the metric per query "
        f"(NAME: {', '.join(PORTABLE_METRICS)}; or events for the event "
        "pipeline: events -> grades -> NDCG@k per query, with ndcg_report's k, gain and ties).",
    )
    sq.add_argument("name", help="the macro or metric, e.g. ndcg; with --dialect also events")
    sq.add_argument("--dialect", help="e.g. postgres, spark, clickhouse, bigquery, snowflake")
    sq.add_argument(
        "--k", type=_cutoffs, help="cutoff(s), e.g. 10 or 5,10 (default: the whole ranking)"
    )
    sq.add_argument("--table", help="input table (query_id, item_id, rel, rnk); judged_run")
    sq.add_argument(
        "--rankings",
        help="events: rankings table (default rankings); with --source ga4 the export (default "
        "ga4_export), with --source ubi the ubi_queries table (default ubi_queries)",
    )
    sq.add_argument(
        "--events",
        help="events: events table (default events); with --source ubi the ubi_events table "
        "(default ubi_events)",
    )
    sq.add_argument(
        "--source",
        choices=("ga4", "ubi"),
        help="events: read the vendor's raw tables through the portable adapter (dialects "
        "duckdb, bigquery, clickhouse, spark; the adapters' default options)",
    )
    sq.add_argument("--gain", choices=GAIN.choices, help="gain (default linear)")
    sq.add_argument("--ties", choices=TIES.choices, help="ties (default average)")
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
        choices=AP_DENOMINATOR.choices,
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
    dm.add_argument(
        "--replace",
        action="store_true",
        help="with --keep: overwrite the file's own demo_* tables, and functions named like our "
        "macros that duckdb_ndcg did not create (default: refuse)",
    )
    dm.add_argument(
        "--source",
        choices=tuple(_DEMO_EXPORTS),
        help="also write the log in a vendor's schema and evaluate it through that source's "
        "adapter, as your own export would be: ga4, a Google Analytics 4 BigQuery export "
        "(Parquet, its nested schema); ubi, OpenSearch UBI 1.3.0's ubi_queries and ubi_events "
        "indexes (NDJSON)",
    )
    dm.add_argument(
        "--export",
        help="with --source: where to write it; ga4: a .parquet file (default "
        f"{_DEMO_EXPORTS['ga4']}); ubi: a folder, created if missing, that gets "
        f"ubi_queries.ndjson and ubi_events.ndjson (default {_DEMO_EXPORTS['ubi']})",
    )
    dm.set_defaults(run=_demo)
    trec.add_parser(sub).set_defaults(run=_trec)
    return parser


def _connect(
    database: str = ":memory:", config: dict[str, str] | None = None
) -> duckdb.DuckDBPyConnection:
    """A connection drawing DuckDB's progress bar only when stdout and stderr are terminals:
    DuckDB draws it on stdout, where it would land in redirected output. Ctrl-C interrupts it
    (_CtrlC)."""
    con = duckdb.connect(database, config=config or {})
    _CTRL_C.connections.append(con)
    on = sys.stdout.isatty() and sys.stderr.isatty()
    con.execute(f"SET enable_progress_bar = {'true' if on else 'false'}")
    return con


def _checked_memory_limit(text: str) -> str:
    """--memory-limit's value, checked to be a size (500MB, 2GB) before DuckDB reads it."""
    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", text, re.IGNORECASE):
        raise UsageError(f"--memory-limit takes a size like 500MB or 2GB, got {text!r}")
    return text


def _stage(text: str) -> None:
    """A progress line on stderr, only when stderr is a terminal. One write, the newline in it:
    print() writes the text and its end apart, and a Ctrl-C between the two left the line open,
    so that 'interrupted' was printed on the end of it."""
    if sys.stderr.isatty():
        sys.stderr.write(f"duckdb-ndcg: {text}...\n")
        sys.stderr.flush()


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


def _output(args: argparse.Namespace, inputs: dict[Path, str]) -> Path | str | None:
    """``--output``: a checked file path, ``-`` (stdout) or None; ``--format`` only with ``-``."""
    if args.format and args.output != _STDIO:
        raise UsageError(
            f"--format {args.format}: only with --output - (a file's format is its suffix)"
        )
    if args.output == _STDIO:
        return _STDIO
    return args.output and _target(args.output, "--output", tuple(_OUTPUTS), inputs)


def _emit(con: duckdb.DuckDBPyConnection, table: str, output: Path | str, form: str | None) -> None:
    """The table to ``output``: a file (and a line on stderr saying so), or stdout as CSV/JSON
    written by DuckDB exactly as to a file."""
    if output != _STDIO:
        _write(con, table, output)
        rows = con.table(table).aggregate("count(*)").fetchall()[0][0]
        print(f"wrote {rows} rows to {output}", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory(prefix="duckdb-ndcg-") as folder:
        path = Path(folder) / f"result.{form or 'csv'}"
        _write(con, table, path, output=_STDIO)
        with path.open(encoding="utf-8") as file:
            shutil.copyfileobj(file, sys.stdout)
    sys.stdout.flush()


def _open_inputs(
    con: duckdb.DuckDBPyConnection, args: argparse.Namespace, roles: dict[str, str]
) -> None:
    """Each input (``roles``: argument name -> role) checked to exist before any work (else exit 2);
    ``-`` is read from stdin (CSV, or Parquet by its magic bytes) into the table ``stdin``."""
    stdin = [name for name in roles if getattr(args, name) == _STDIO]
    if len(stdin) > 1:
        raise UsageError(f"{' and '.join(roles[n] for n in stdin)} are both -: stdin is read once")
    for name, role in roles.items():
        text = getattr(args, name)
        if text is None:
            continue
        if text == _STDIO:
            setattr(args, name, _read_stdin(con, role))
            continue
        path = Path(text)
        try:
            open_source(con, text, role)
        except ValueError as error:
            if path.is_file():  # it exists, but its content cannot be read: the data's problem
                raise
            raise UsageError(_first_line(error)) from None


def _read_stdin(con: duckdb.DuckDBPyConnection, role: str) -> str:
    data = sys.stdin.buffer.read()
    if not data.strip():
        raise DataError(f"{role} is - but stdin is empty")
    reader, suffix = ("read_parquet", ".parquet") if data[:4] == b"PAR1" else ("read_csv", ".csv")
    with tempfile.TemporaryDirectory(prefix="duckdb-ndcg-") as folder:
        path = Path(folder) / f"stdin{suffix}"
        path.write_bytes(data)
        try:
            con.execute(f"CREATE TEMP TABLE stdin AS SELECT * FROM {reader}(?)", [str(path)])
        except duckdb.InterruptException:  # Ctrl-C: not a message of ours
            raise
        except duckdb.Error as error:
            reason = _first_line(error).replace(str(path), "stdin")
            raise DataError(f"{role} from stdin cannot be read: {reason}") from None
    return "stdin"


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
    # DuckDB 1.4/1.5: ATTACH takes no ? parameter
    con.execute(f"ATTACH {literal(db)} AS ndcg_source (READ_ONLY)")
    con.execute("SET search_path = 'memory.main,ndcg_source.main'")


def _check_rank_column(con: duckdb.DuckDBPyConnection, args: argparse.Namespace) -> None:
    column, flag = (args.score_col, "--score-col")
    if not column:
        column, flag = (args.position_col, "--position-col")
    try:
        relation = con.sql("SELECT * FROM query_table(?) LIMIT 0", params=[args.rankings])
    except duckdb.InterruptException:  # Ctrl-C: not a message of ours
        raise
    except duckdb.Error:
        return  # evaluate() names a missing or unreadable input
    types = dict(zip(relation.columns, relation.types, strict=True))
    if column in types and types[column].id not in _NUMBERS:
        raise DataError(
            f"rankings {args.rankings}: column {column!r} ({flag}) is {types[column]}, "
            "not a number; rank by a numeric position or score column"
        )


def _write(con: duckdb.DuckDBPyConnection, table: str, path: Path, output: str = "") -> None:
    """COPY ``table`` to ``path`` through a temporary file beside it, renamed into place, so an
    interrupted write never leaves a truncated file that looks complete. ``output``: the
    --output value to name in an error, when it is not the path."""
    kind = _OUTPUTS[path.suffix.lower()]
    options = "FORMAT JSON, ARRAY true" if kind == "JSON" else f"FORMAT {kind}"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        con.execute(f"COPY {table} TO ? ({options})", [str(temporary)])
        os.replace(temporary, path)
    except (duckdb.IOException, OSError) as error:
        reason = str(error).splitlines()[0].replace(str(temporary), str(path))
        reason = re.sub(r"^(IO Error|\[Errno \d+\]) ?:? ?", "", reason)
        raise DataError(f"--output {output or path} cannot be written: {reason}") from None
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


def _check_report_options(args: argparse.Namespace) -> None:
    """The report options' combinations, checked before any input is read (exit code 2)."""
    unknown = "ignore" if args.ignore_unknown else "error"
    duplicates = "allow" if args.allow_duplicates else "error"
    _arguments_only(
        lambda: checked_report_options(
            args.k, args.ties, args.gain, 2, args.collapse, args.time_col, unknown, duplicates
        )
    )


_SOURCE_OPTIONS = ("attribution", "attribution_window", "position_base")


def _source_arguments(args: argparse.Namespace) -> dict[str, object]:
    """evaluate()'s source and source_options from --source and its options; a usage error for
    a missing EVENTS without --source, or a source option without --source."""
    given = {n: getattr(args, n) for n in _SOURCE_OPTIONS if getattr(args, n) is not None}
    if args.source is None:
        if given:
            flags = ", ".join(cli_flag(n) for n in given)
            raise UsageError(f"{flags}: applies only with --source ({', '.join(SOURCES)})")
        if args.events is None:
            single = ", ".join(n for n, roles in SOURCES.items() if len(roles) == 1)
            raise UsageError(f"EVENTS is missing (give the events, or --source {single} with "
                             "its export alone)")
        return {}
    return {"source": args.source, "source_options": given}


def _evaluate(args: argparse.Namespace) -> None:
    sourced = _source_arguments(args)
    files = {"rankings": args.rankings, "events": args.events, "--mapping": args.mapping}
    inputs = {Path(v).resolve(): f"{k} file" for k, v in files.items() if v and Path(v).is_file()}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    output = _output(args, inputs)
    _check_report_options(args)
    if args.measures is not None:
        _evaluate_measures(args, output, sourced)
        return
    _arguments_only(lambda: checked_metrics(args.metrics, args.threshold, args.max_grade))
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
        _checked_memory_limit(args.memory_limit)
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    if args.db:  # read-only: the report's temporary views and macros live in memory
        _attach(con, args.db)
    _open_inputs(con, args, {"rankings": "rankings", "events": "events", "mapping": "mapping"})
    if not sourced:  # an adapter's output has a numeric position
        _check_rank_column(con, args)
    slices = [s.strip() for s in args.slice_by.split(",") if s.strip()]
    common = {**sourced, "slice_by": slices, "con": con, "preset": args.preset,
              **_flag_options(args, "ndcg_report")}
    # --bucket adds the slice column bucket, after the --slice-by columns
    shown_slices = [*slices, "bucket"] if args.bucket else slices
    # the judged share is checked in every run: a report computes judged_at_k for the warning
    # and drops the column unless --metrics names it
    asked = args.metrics
    family = {"metrics": asked if args.summary or "judged_at_k" in asked
              else [*asked, "judged_at_k"]}
    # a report with a chart is computed once, at every k the chart draws (1..max k): the output
    # is its rows at --k, the chart reads them all; a summary's trend over days alone reads a
    # per-query report of its own (a day's interval is over its queries)
    every_k = bool(page)
    with _warnings_to_stderr("duckdb-ndcg evaluate"):
        _stage("reading, grading and reporting")
        shape = "summary" if args.summary else "report"
        cuts = list(range(1, max(args.k) + 1)) if every_k else args.k
        relation = evaluate(args.rankings, args.events, k=cuts, shape=shape, **common, **family)
        if every_k and args.summary and _is_time(relation, shown_slices):  # (not run yet)
            every_k = False
            relation = evaluate(args.rankings, args.events, k=args.k, shape=shape, **common,
                                **family)
        keys = relation.columns[: relation.columns.index("k") + 1]  # slices, query, k
        order = ", ".join(map(quoted, keys))
        if not every_k:
            relation.order(order).to_table("_ndcg_result")  # computed once
        else:
            relation.to_table("_ndcg_every_k")
            asked_k = ", ".join(str(int(k)) for k in args.k)
            con.table("_ndcg_every_k").filter(f"k IN ({asked_k})").order(order).to_table(
                "_ndcg_result"
            )
        share = "any_value(mean_judged_at_k)" if args.summary else "avg(judged_at_k)"
        events = args.events or args.rankings  # a one-input source: the export holds both
        _warn_judged(con, "_ndcg_result", share, f"rankings {args.rankings}", events,
                     shown_slices)
        if not args.summary and "judged_at_k" not in asked:
            con.execute("ALTER TABLE _ndcg_result DROP COLUMN judged_at_k")
        first_day = None
        if page and _is_time(relation, shown_slices):  # one slice by day: NDCG@k over the days
            _stage("computing the trend for the chart")
            per_query = (
                con.table("_ndcg_every_k") if every_k
                else evaluate(args.rankings, args.events, k=[max(args.k)], **common)
            )  # fmt: skip
            first_day, series = chart.trend_series(per_query, shown_slices[0], max(args.k))
            title = f"Mean NDCG@{max(args.k)} per {shown_slices[0]}"
            title += ", exponential gain" if args.gain == "exponential" else ""
            note = ""
            chart.svg(series, title, first_day=first_day)  # fails before writing
        elif page:
            _stage("computing the NDCG@k curve for the chart")
            series = chart.curve_series(con.table("_ndcg_every_k"), shown_slices,
                                        max_series=chart.MAX_SERIES)
            title = f"Mean NDCG@k, k = 1..{max(args.k)}"
            title += ", exponential gain" if args.gain == "exponential" else ""
            title += f", per {', '.join(shown_slices)}" if shown_slices else ", all queries"
            note = _omitted_note(series)
            chart.svg(series, title, note=note)  # one that cannot be drawn fails before writing
    if output:
        _stage(f"writing {output}")
        _emit(con, "_ndcg_result", output, args.format)
    else:
        _show(con.table("_ndcg_result"))
    if page:
        written = chart.write(page, series, title, note=note, first_day=first_day)
        print(f"chart: {written[0]} (and {written[1].name})", file=sys.stderr)


def _evaluate_measures(
    args: argparse.Namespace, output: Path | str | None, sourced: dict[str, object]
) -> None:
    """evaluate --measures: every (slice, query) of the event log judged as the report judges it
    and scored on each measure (event_measures), or their means per slice with --summary
    (event_measures_summary)."""
    given = _unread_with_measures(args, "ndcg_report") + ["--chart"] * bool(args.chart)
    if given:
        raise UsageError(f"--measures names cutoffs, levels and gains itself: drop {given[0]}")
    if args.preset is not None:
        raise UsageError("--preset sets the report's NDCG conventions, not --measures: drop one")
    if args.gain not in ("linear", "value"):
        raise UsageError(f"--measures names each measure's gains (nDCG(dcg='exp-log2')@10): "
                         f"drop --gain {args.gain}")
    try:
        parse_measures(args.measures)
    except ValueError as error:
        raise VerbatimUsageError(f"--measures: {error}") from None
    con = _connect()
    if args.db:
        _attach(con, args.db)
    _open_inputs(con, args, {"rankings": "rankings", "events": "events", "mapping": "mapping"})
    if not sourced:
        _check_rank_column(con, args)
    slices = [s.strip() for s in args.slice_by.split(",") if s.strip()]
    with _warnings_to_stderr("duckdb-ndcg evaluate"):
        evaluate(
            args.rankings, args.events, con=con, slice_by=slices, **sourced,
            **_flag_options(args, "ndcg_report"), measures=args.measures,
            shape="summary" if args.summary else "report",
        ).to_table("_ndcg_result")
    if output:
        _emit(con, "_ndcg_result", output, args.format)
    else:
        _show(con.table("_ndcg_result"))


_TIMES = {"date", "timestamp", "timestamp with time zone", "timestamp_s", "timestamp_ms"}
_TIMES |= {"timestamp_ns"}


def _is_time(relation: duckdb.DuckDBPyRelation, slices: list[str]) -> bool:
    """One slice column, of dates or timestamps: the chart is a trend over its days."""
    if len(slices) != 1:
        return False
    types = dict(zip(relation.columns, relation.types, strict=True))
    return slices[0] in types and str(types[slices[0]]).lower() in _TIMES


def _omitted_note(series: chart.Curves) -> str:
    """The chart's line saying which slices it draws, when it does not draw them all."""
    if not series.omitted:
        return ""
    return f"the {len(series)} of {len(series) + series.omitted} slices with the most queries"


def _warn_judged(
    con: duckdb.DuckDBPyConnection, table: str, share: str, who: str, events: str,
    slices: list[str],
) -> None:
    """Warn when a (slice, cutoff) row of ``table`` has a judged share (the SQL ``share``) below
    MIN_JUDGED: more than 10 % of a ranking's first k items have no event to grade them."""
    columns = ", ".join(map(quoted, [*slices, "k"]))
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
Inputs and columns as for duckdb-ndcg evaluate. Rankers that both showed fewer than
half of the queries (an A/B test: each query served by one arm) are an error unless
--unpaired compares each arm's own queries by Welch's t-test.""",
    )
    cmp.add_argument("rankings_a", help="ranker A: a .parquet/.csv file, a table of --db, or -")
    cmp.add_argument("rankings_b", help="ranker B: a .parquet/.csv file, a table of --db, or -")
    cmp.add_argument("events", help="events: a .parquet/.csv file, a table of --db, or - (stdin)")
    cmp.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    cmp.add_argument("--unpaired", action="store_true",
                     help="an A/B test (each query served by one arm): Welch's unpaired t-test "
                          "of each ranker's own queries (ab_summary) instead of a paired test; "
                          "needed when the rankers share fewer than half of the queries")
    _table_flags(cmp, "compare_summary", skip=("eps", "log_base", "empty_ideal"))
    cmp.add_argument("--output", help="write the summary table to a .csv, .json or .parquet "
                     "file, or - for stdout (then no verdict lines)")
    cmp.add_argument("--format", choices=_STDOUT_FORMATS,
                     help="with --output -: csv (default) or json")
    cmp.add_argument("--chart", help="write B - A of mean NDCG@k (k = 1..max k) with its "
                     "--conf t-interval, a line per slice, to this .html")
    cmp.add_argument("--measures", metavar="TEXT",
                     help="compare measures as IR tools name them instead of NDCG at --k "
                     "('nDCG@10 MAP RR', 'ndcg_cut.5,10', 'map@100'): a verdict per slice and "
                     "measure, over the queries both rankers showed (compare_measures)")
    cmp.set_defaults(run=_compare)


def _compare(args: argparse.Namespace) -> None:
    files = {"rankings_a": args.rankings_a, "rankings_b": args.rankings_b,
             "events": args.events, "--mapping": args.mapping}
    inputs = {Path(v).resolve(): f"{k} file" for k, v in files.items() if v and Path(v).is_file()}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    output = _output(args, inputs)
    page = args.chart and _target(args.chart, "--chart", _CHARTS, inputs)
    if page:
        _target(str(page.with_suffix(".svg")), "--chart", (".svg",), inputs)
        if max(args.k) > _CHART_MAX_K:
            raise UsageError(
                f"--chart draws B - A at k = 1..{max(args.k)} (up to the largest --k), more "
                f"than {_CHART_MAX_K} points a line: chart with a smaller --k"
            )
    _check_report_options(args)
    if args.measures is not None:
        if args.chart:
            raise UsageError("--chart draws NDCG@k, not --measures: drop one")
        given = _unread_with_measures(args, "compare_summary")
        given += ["--unpaired"] * args.unpaired
        if given:
            raise UsageError(f"--measures compares the queries both rankers showed, each "
                             f"measure at its own cutoff: drop {given[0]}")
        _arguments_only(lambda: checked_measures(args.measures, gain=args.gain))
    con = _connect()
    if args.db:
        _attach(con, args.db)
    roles = {"rankings_a": "rankings_a", "rankings_b": "rankings_b", "events": "events"}
    _open_inputs(con, args, {**roles, "mapping": "mapping"})
    slices = [s.strip() for s in args.slice_by.split(",") if s.strip()]
    if args.unpaired and args.test != "t":
        raise UsageError(f"--unpaired is Welch's t-test: --test {args.test} applies to a paired "
                         "comparison")
    with _warnings_to_stderr("duckdb-ndcg compare"):
        _stage("reading, grading and testing")
        options = _flag_options(args, "compare_summary")
        relation = compare(
            args.rankings_a, args.rankings_b, args.events, k=args.k, slice_by=slices, con=con,
            unpaired=args.unpaired, measures=args.measures, **options,
        )
        relation.to_table("_ndcg_compare")  # computed once
        if page:
            _stage("computing B - A at every k for the chart")
            curve = compare(  # the t-interval of B - A at each k, uncorrected
                args.rankings_a, args.rankings_b, args.events, k=list(range(1, max(args.k) + 1)),
                slice_by=slices, con=con, **{**options, "test": "t", "correction": "none"},
            )
            series = chart.difference_series(curve, slices, max_series=chart.MAX_SERIES)
            title = f"B − A, mean NDCG@k, k = 1..{max(args.k)}"
            title += f", per {', '.join(slices)}" if slices else ""
            note = _omitted_note(series)
            chart.svg(series, title, args.conf, note, difference=True)  # fails before writing
        # ab_summary (--unpaired) has no judged share: each arm is its own log
        # (nor compare_measures: Judged@k is a measure to name)
        paired_ndcg = not args.unpaired and args.measures is None
        for ranker, rankings in () if not paired_ndcg else (("A", args.rankings_a),
                                                            ("B", args.rankings_b)):
            _warn_judged(con, "_ndcg_compare", f"any_value(judged_{ranker.lower()})",
                         f"ranker {ranker} ({rankings})", args.events, slices)
    table = con.table("_ndcg_compare")
    for row in table.fetchall() if output != _STDIO else ():  # with -, the table alone
        values = dict(zip(table.columns, row, strict=True))
        where = ", ".join(f"{name}={values[name]}" for name in slices)
        cut = (values["measure"] if args.measures is not None
               else "NDCG" if values["k"] is None else f"NDCG@{values['k']}")
        queries = (f"{values['queries_a']} + {values['queries_b']} queries (A + B)"
                   if args.unpaired else f"{values['queries']} queries")
        print(f"{where + ', ' if where else ''}{cut}, {queries}: "
              f"{verdict(values)}")
    if output:
        _emit(con, "_ndcg_compare", output, args.format)
    if page:
        written = chart.write(page, series, title, args.conf, note, difference=True)
        print(f"chart: {written[0]} (and {written[1].name})", file=sys.stderr)


def _install(args: argparse.Namespace) -> None:
    try:
        install(
            args.database,
            storage_compatibility_version=args.storage_compatibility_version,
            replace=args.replace,
        )
    except ValueError as error:
        path = Path(args.database)  # a path that is no database file: the command line's error
        if path.exists() and (path.is_dir() or not _is_duckdb_file(path)):
            raise UsageError(_first_line(error)) from None
        raise
    print(f"installed the duckdb_ndcg macros into {args.database}")


def _script(args: argparse.Namespace) -> None:
    print(script(), end="")


# The options of `sql` that apply with --dialect, per target: the event pipeline or a metric.
_SQL_OPTIONS = {
    "events": ("k", "gain", "ties", "empty_ideal", "rankings", "events", "pretty", "source"),
    "metric": (
        "k", "gain", "ties", "tie_key", "full_ideal", "max_grade", "p", "denominator",
        "empty_ideal", "table", "pretty",
    ),
}


# `sql events --source S`: the default names of the tables the source reads
_SQL_SOURCE_TABLES = {
    "ga4": {"rankings": "ga4_export"},
    "ubi": {"rankings": "ubi_queries", "events": "ubi_events"},
}


def _sql(args: argparse.Namespace) -> None:
    names = (
        "k", "gain", "ties", "tie_key", "full_ideal", "max_grade", "p", "denominator",
        "empty_ideal", "table", "rankings", "events", "pretty", "source",
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
        print(_arguments_only(lambda: created_sql(args.name)))
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
    from duckdb_ndcg.portable import events_to_sql, to_sql  # sqlglot: 0.7 s, only for `sql`

    if target == "events":
        tables = _SQL_SOURCE_TABLES.get(args.source, {"rankings": "rankings", "events": "events"})
        given = {**tables, **given}
        print(_arguments_only(lambda: events_to_sql(args.dialect, **given)))
    else:
        given = {"table": "judged_run", **given}
        print(_arguments_only(lambda: to_sql(args.name, args.dialect, **given)))


def _arguments_only(make: Callable[[], _T]) -> _T:
    """``make()``, which reads no data: any ValueError it raises is about the command line."""
    try:
        return make()
    except ValueError as error:
        raise VerbatimUsageError(_error_wording(error)) from None


def _clear_demo_tables(con: duckdb.DuckDBPyConnection, keep: str, replace: bool) -> None:
    """Drop the tables or views of the --keep file that the demo would overwrite: those an earlier
    demo made (marked by their comment), and with --replace any; else a UsageError naming them."""
    found = con.execute(
        "SELECT name, kind, starts_with(coalesce(comment, ''), ?) FROM ("
        "SELECT table_name AS name, 'TABLE' AS kind, comment, database_name, schema_name "
        "FROM duckdb_tables() UNION ALL SELECT view_name, 'VIEW', comment, database_name, "
        "schema_name FROM duckdb_views()) WHERE database_name = current_database() "
        "AND schema_name = current_schema() AND list_contains(?, name) ORDER BY name",
        [demo.MARK, list(demo.TABLES)],
    ).fetchall()
    theirs = [name for name, _, ours in found if not ours]
    if theirs and not replace:
        raise UsageError(
            f"--keep {keep} already has {', '.join(theirs)}, which the demo would overwrite: "
            "pass --replace to overwrite them, or --keep another file"
        )
    for name, kind, _ in found:
        con.execute(f"DROP {kind} {quoted(name)}")


def _demo(args: argparse.Namespace) -> None:
    page = _target(args.chart, "--chart", _CHARTS, {})
    export = args.source and _export_target(args.source, args.export)
    if args.keep:  # DuckDB would open a .csv path as an in-memory database and keep nothing
        keep = _target(args.keep, "--keep", (".duckdb", ".db"), {})
        if keep.exists() and not _is_duckdb_file(keep):
            raise UsageError(f"--keep {args.keep} exists and is not a DuckDB database file")
    # a new --keep file in the storage of the oldest DuckDB we support, as install() writes it,
    # so that the 1.4 and 1.5 CLIs open it to run the SQL printed below
    new = args.keep and not Path(args.keep).exists()
    con = _connect(
        args.keep or ":memory:", {"storage_compatibility_version": OLDEST_STORAGE} if new else None
    )
    if args.keep:
        _clear_demo_tables(con, args.keep, args.replace)
    # --keep persists the macros with the tables
    register(con, temporary=not args.keep, replace=args.replace)
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
    if args.source == "ga4":
        _demo_export(con, export, k)
    elif args.source == "ubi":
        _demo_ubi(con, export, k)


def _export_target(source: str, text: str | None) -> Path:
    """demo --export, checked before any work: GA4's .parquet file, UBI's folder."""
    text = text or _DEMO_EXPORTS[source]
    if source == "ga4":
        return _target(text, "--export", (".parquet",), {})
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--export {text} is a file: --source ubi writes a folder of two files")
    if not folder.parent.is_dir():
        raise UsageError(f"--export {text}: folder {folder.parent} does not exist")
    return folder


def _demo_ubi(con: duckdb.DuckDBPyConnection, folder: Path, k: int) -> None:
    """demo --source ubi: the log as UBI indexes, evaluated through the UBI adapter."""
    _stage("writing the UBI indexes")
    folder.mkdir(exist_ok=True)
    queries, events = demo.ubi_export(con, str(folder))
    paths = [str(folder / f"ubi_{name}.ndjson") for name in ("queries", "events")]
    summary = evaluate(
        *paths, source="ubi", k=k, shape="summary", slice_by=["application"], con=con
    ).order("application").fetchall()
    print()
    print(f"The same log as OpenSearch UBI indexes: {paths[0]} ({queries} queries) and "
          f"{paths[1]} ({events} events)")
    print("  one application per device: shop-web (desktop: clicks, 1-based ordinals), "
          "shop-ios and shop-android (mobile, tablet: impressions too, 0-based)")
    print(f"  read by the UBI adapter: mean NDCG@{k} "
          + "; ".join(f"{row[0]} {row[3]:.4f} ({row[2]} queries)" for row in summary))
    print(f"  Same report:  duckdb-ndcg evaluate {' '.join(map(shlex.quote, paths))} --source ubi "
          f"--summary --slice-by application --k {k}")


def _demo_export(con: duckdb.DuckDBPyConnection, export: Path, k: int) -> None:
    """demo --source ga4: the log as a GA4 export, evaluated through the GA4 adapter."""
    _stage("writing the GA4 export")
    rows = demo.ga4_export(con, str(export))
    summary = evaluate(
        str(export), None, source="ga4", k=k, shape="summary", slice_by=["device"], con=con
    ).order("device").fetchall()
    print()
    print(f"The same log as a GA4 BigQuery export: {export} ({rows} events: view_search_results, "
          "view_item_list, select_item, add_to_cart, purchase)")
    print(f"  read by the GA4 adapter, one search per session: mean NDCG@{k} "
          + "; ".join(f"{row[0]} {row[3]:.4f} ({row[2]} searches)" for row in summary))
    print(f"  Same report:  duckdb-ndcg evaluate {shlex.quote(str(export))} --source ga4 "
          f"--summary --slice-by device --k {k}")


_OUT_OF_MEMORY = (
    "The report's plan spills to disk, but DuckDB still needs some working memory per thread "
    "(tens of MB): raise --memory-limit (DuckDB's memory_limit), run with fewer threads, and "
    "check that DuckDB's temp_directory has free space"
)


def _trec(args: argparse.Namespace) -> None:
    """duckdb-ndcg trec: every -m is read before any file; lines as trec_eval prints them."""
    try:
        chosen = trec.trec_measures(args.measures)[1]
    except ValueError as error:
        raise VerbatimUsageError(f"-m: {error}") from None
    if args.preset is not None:
        try:
            trec_complete(args.preset)
            trec.preset_chosen(args.preset, chosen, bool(args.measures), args.complete,
                               args.judged_only, args.level, args.max_retrieved, args.per_query,
                               not args.no_summary)
        except ValueError as error:
            raise VerbatimUsageError(f"--preset: {error}") from None
    for role, path in (("qrels", args.qrels), ("run", args.run_file)):
        if not Path(path).is_file():
            raise UsageError(f"{role} file {path!r} does not exist")
    config = {}  # DuckDB's settings, given to connect (no SQL text)
    if args.memory_limit:
        config["memory_limit"] = _checked_memory_limit(args.memory_limit)
    if args.temp_directory:
        config["temp_directory"] = args.temp_directory
    con = register(_connect(config=config))
    lines = trec.trec_lines(
        con, args.qrels, args.run_file, args.measures, args.per_query, args.complete,
        args.judged_only, args.level, args.max_retrieved, not args.no_summary, args.preset,
    )
    sys.stdout.write("".join(f"{line}\n" for line in lines))


# --- grades: click_grades over an impression/click log; its flags come from the conventions
# table (names, defaults, choices), only the help text is written here
_GRADES_HELP = {
    "model": "click model: coec is OpenSearch SRW's COEC, the others PyClick's",
    "query_col": "query column",
    "item_col": "item column",
    "position_col": "position column, whole numbers >= 0",
    "session_col": "column naming one search, a page of results (cascade, sdbn, pbm need it)",
    "click_col": "flag form: the click column, true/1 or false/0",
    "action_col": "event form: the action column ('impression' or 'click' a row)",
    "time_col": "date or timestamp column, for --start-date/--end-date",
    "start_date": "first day read (with --time-col)",
    "end_date": "last day read (with --time-col)",
    "max_rank": "rows at a higher position are left out",
    "bins": "ascending thresholds making whole grades, e.g. 0.5,1,2 (default: the number)",
    "min_impressions": "leave out pairs with fewer impressions",
}


def _thresholds(text: str) -> list[float]:
    """``--bins 0.5,1,2``: finite thresholds in ascending order."""
    try:
        found = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not all(map(math.isfinite, found)) or found != sorted(found):
        raise argparse.ArgumentTypeError(f"thresholds must be finite and ascending, got {text!r}")
    return found


def _grades_parser(sub: argparse._SubParsersAction) -> None:
    gr = sub.add_parser(
        "grades",
        help="relevance grades per (query, item) from an impression/click log (click models)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Grades per (query, item) from an impression/click log (a .parquet/.csv file or a table of
--db): query_id, item_id, rel (the grade), rnk (lowest logged position), impressions, clicks.

the log, one of two forms:
  flag form   one row per shown result: query_id, item_id, position, click (true/1, false/0)
  event form  --action-col action_name: one row per event, 'impression' or 'click'
--model cascade, sdbn and pbm read result pages: --session-col names one search.""",
    )
    gr.add_argument("events", help="the log: a .parquet/.csv file, a table of --db, or -")
    gr.add_argument("--db", help="a .duckdb file holding the table (opened read-only)")
    _table_flags(gr, "click_grades")
    gr.add_argument(
        "--output", help="write the result to a .csv, .json or .parquet file, or - for stdout"
    )
    gr.add_argument(
        "--format", choices=_STDOUT_FORMATS, help="with --output -: csv (default) or json"
    )
    gr.add_argument(
        "--chart",
        help="also draw the log to this .html (and .svg beside it): the examination propensity "
        "per position by each position_bias method, and each pair's grade against its raw CTR",
    )
    gr.add_argument(
        "--dialect",
        help="print the grades as one statement for this engine (e.g. postgres, spark, bigquery, "
        "clickhouse) reading the table EVENTS there, instead of grading here",
    )
    gr.add_argument("--pretty", action="store_true", help="with --dialect: indented SQL")
    gr.set_defaults(run=_click_grades)


# the grades flags the portable SQL does not take (the date range: filter the table first)
_NOT_PORTABLE = ("time_col", "start_date", "end_date")


def _click_grades(args: argparse.Namespace) -> None:
    if args.dialect is not None:
        _click_grades_sql(args)
        return
    if args.pretty:
        raise UsageError("--pretty: only with --dialect")
    inputs = {Path(args.events).resolve(): "events file"} if Path(args.events).is_file() else {}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    output = _output(args, inputs)
    page = args.chart and _target(args.chart, "--chart", _CHARTS, inputs)
    if page:
        _target(str(page.with_suffix(".svg")), "--chart", (".svg",), inputs)
    con = _connect()
    if args.db:
        _attach(con, args.db)
    _open_inputs(con, args, {"events": "events"})
    options = {p.name: getattr(args, p.name) for p in MACROS["click_grades"].params[1:]}
    _stage("grading")
    with _warnings_to_stderr("duckdb-ndcg grades"):
        relation = click_grades(args.events, con=con, **options)  # registers the macros
        relation.order("query_id, item_id").to_table("_ndcg_result")
        if page:
            from duckdb_ndcg import clicks_chart

            _stage("computing the position bias for the chart")
            bias = clicks_chart.bias_panel(con, args.events, options)
            grades = clicks_chart.grades_panel(con.table("_ndcg_result"), args.model)
    if page:
        written = clicks_chart.write(page, bias, grades)
        print(f"chart: {written[0]} (and {written[1].name})", file=sys.stderr)
    if output:
        _emit(con, "_ndcg_result", output, args.format)
    else:
        _show(con.table("_ndcg_result"))


# --- ips: ips_estimate of a new ranking policy from a logged one; flags from the conventions
# table, only the help text written here
_IPS_HELP = {
    "estimator": "ips: Σ click × w / rows; snips: Σ click × w / Σ w; clipped: weights capped "
                 "at --clip (w = new probability / logged propensity)",
    "clip": "the largest weight of --estimator clipped (a number > 0)",
    "item_col": "item column of both files",
    "position_col": "position column of both files",
    "click_col": "click column of the log, true/1 or false/0",
    "propensity_col": "the logging policy's probability of each logged row, in (0, 1]",
    "probability_col": "the new policy's probability of an (item, position), in [0, 1], "
                       "summing to at most 1 per position",
    "query_col": "a policy per query: the query column of both files (default: one policy)",
    "ci": "bootstrap: a percentile bootstrap interval, ci_low and ci_high",
    "conf": "confidence level of --ci bootstrap",
    "resamples": "resamples of --ci bootstrap",
    "seed": "seed of --ci bootstrap: the same seed, the same interval",
}


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


# each command's macro: the help of its option flags and how each reads its text (the others:
# text as given, checked against the table's choices)
_FLAG_TEXT: dict[str, tuple[dict[str, str], dict[str, Callable[[str], object]]]] = {
    "ndcg_report": (_REPORT_HELP, _REPORT_KINDS),
    "compare_summary": (_REPORT_HELP, _REPORT_KINDS),
    "click_grades": (_GRADES_HELP, {"max_rank": int, "min_impressions": int, "bins": _thresholds}),
    "ips_estimate": (_IPS_HELP, {"clip": _positive_float, "conf": float, "resamples": int,
                                 "seed": int}),
}


def _ips_parser(sub: argparse._SubParsersAction) -> None:
    ips = sub.add_parser(
        "ips",
        help="the click rate a new ranking policy would get, estimated from a logged one (IPS)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Off-policy estimate (ips_estimate) of the click rate of a new ranking policy from the log of the
one that ran: per position, then all rows (position empty): rows, covered, logged_ctr,
estimate, ci_low, ci_high, relative, ess, max_weight, warning.

  LOGS    one row per logged impression: item_id, position, click, propensity_score
  POLICY  the new policy: item_id, position, probability (a deterministic ranking: 1)
Each may be a .parquet/.csv file or a table of --db.""",
    )
    ips.add_argument("logs", help="the log: a .parquet/.csv file, a table of --db, or -")
    ips.add_argument("policy", help="the new policy: a .parquet/.csv file or a table of --db")
    ips.add_argument("--db", help="a .duckdb file holding the tables (opened read-only)")
    _table_flags(ips, "ips_estimate")
    ips.add_argument(
        "--output", help="write the result to a .csv, .json or .parquet file, or - for stdout"
    )
    ips.add_argument(
        "--format", choices=_STDOUT_FORMATS, help="with --output -: csv (default) or json"
    )
    ips.add_argument(
        "--dialect",
        help="print the estimate as one statement for this engine (e.g. postgres, spark, "
        "bigquery, clickhouse) reading the tables LOGS and POLICY there, instead of estimating "
        "here (the click a number 1/0; no --ci bootstrap)",
    )
    ips.add_argument("--pretty", action="store_true", help="with --dialect: indented SQL")
    ips.set_defaults(run=_ips)


def _ips(args: argparse.Namespace) -> None:
    if args.dialect is not None:
        _ips_sql(args)
        return
    if args.pretty:
        raise UsageError("--pretty: only with --dialect")
    inputs = {Path(text).resolve(): f"{role} file" for text, role in (
        (args.logs, "logs"), (args.policy, "policy")) if Path(text).is_file()}
    if args.db:
        inputs[Path(args.db).resolve()] = "--db file"
    if args.estimator == "clipped" and args.clip is None:
        raise UsageError("--estimator clipped needs --clip <the largest weight, a number > 0>")
    output = _output(args, inputs)
    con = _connect()
    if args.db:
        _attach(con, args.db)
    _open_inputs(con, args, {"logs": "logs", "policy": "policy"})
    register(con)
    options = {p.name: getattr(args, p.name) for p in MACROS["ips_estimate"].params[2:]}
    arguments = ", ".join(f"{name} := ?" for name in options)
    _stage("estimating")
    relation = con.sql(f"SELECT * FROM ips_estimate(?, ?, {arguments})",
                       params=[args.logs, args.policy, *options.values()])
    relation.to_table("_ndcg_result")
    if output:
        _emit(con, "_ndcg_result", output, args.format)
    else:
        _show(con.table("_ndcg_result"))
    for (warning,) in con.sql("SELECT DISTINCT warning FROM _ndcg_result "
                              "WHERE warning IS NOT NULL").fetchall():
        print(f"duckdb-ndcg ips: warning: {warning}", file=sys.stderr)


# the ips flags the portable SQL does not take: the bootstrap's (it draws from DuckDB's hash())
_IPS_NOT_PORTABLE = ("conf", "resamples", "seed")


def _ips_sql(args: argparse.Namespace) -> None:
    """``ips --dialect D``: ips_estimate_to_sql for the tables LOGS and POLICY of that engine."""
    unused = [flag for flag, value in (("--output", args.output), ("--format", args.format),
                                       ("--db", args.db)) if value]
    if unused:
        raise UsageError(f"{', '.join(unused)}: not with --dialect (it prints SQL for tables of "
                         "that engine)")
    if args.estimator == "clipped" and args.clip is None:
        raise UsageError("--estimator clipped needs --clip <the largest weight, a number > 0>")
    from duckdb_ndcg.portable import ips_estimate_to_sql  # sqlglot: 0.7 s, only here

    options = {p.name: getattr(args, p.name) for p in MACROS["ips_estimate"].params[2:]
               if p.name not in _IPS_NOT_PORTABLE}
    print(_arguments_only(lambda: ips_estimate_to_sql(
        args.dialect, logs=args.logs, policy=args.policy, pretty=args.pretty, **options)))


def _click_grades_sql(args: argparse.Namespace) -> None:
    """``grades --dialect D``: click_grades_to_sql for the table EVENTS of that engine, printed."""
    unused = [flag for flag, value in (("--chart", args.chart), ("--output", args.output),
                                       ("--format", args.format), ("--db", args.db)) if value]
    unused += [cli_flag(name) for name in _NOT_PORTABLE if getattr(args, name) is not None]
    if unused:
        raise UsageError(f"{', '.join(unused)}: not with --dialect (it prints SQL for a table of "
                         "that engine; filter the table there for a date range)")
    from duckdb_ndcg.portable import click_grades_to_sql  # sqlglot: 0.7 s, only here

    options = {p.name: getattr(args, p.name) for p in MACROS["click_grades"].params[1:]
               if p.name not in _NOT_PORTABLE}
    print(_arguments_only(lambda: click_grades_to_sql(
        args.dialect, table=args.events, pretty=args.pretty, **options)))


class _CtrlC:
    """Ctrl-C stops the running query even when DuckDB does not look for it. Python's C-level
    signal handler writes the signal's number to a pipe at once (``signal.set_wakeup_fd``); a
    thread reading the pipe interrupts the CLI's connections (``interrupt()`` is safe from any
    thread) and notes it. DuckDB 2.0.1 at times ran a report to its end after SIGINT (1 run in
    3, 2 s into a 10 s report) and the CLI then exited 0."""

    def __init__(self) -> None:
        self.connections: list[duckdb.DuckDBPyConnection] = []
        self.pressed = threading.Event()
        self._write: int | None = None

    def _watch(self, read: int) -> None:
        while data := os.read(read, 64):
            if signal.SIGINT in data:
                self.pressed.set()
                for con in list(self.connections):
                    with contextlib.suppress(duckdb.Error):  # closed since
                        con.interrupt()

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """The block's connections interrupted by Ctrl-C (a no-op outside the main thread, where
        Python takes no signal handlers)."""
        self.pressed.clear()
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        if self._write is None:  # one pipe and one thread for the process
            read, self._write = os.pipe()
            os.set_blocking(self._write, False)
            threading.Thread(target=self._watch, args=(read,), daemon=True).start()
        earlier = signal.set_wakeup_fd(self._write)
        try:
            yield
        finally:
            signal.set_wakeup_fd(earlier)
            self.connections.clear()


_CTRL_C = _CtrlC()


def _flag_options(args: argparse.Namespace, macro: str) -> dict[str, object]:
    """The options of ``macro`` (the conventions table) that the command line gave, by name: each
    flag's value (``--query-col`` is ``query_col``), a switch as the value it stands for
    (``--ignore-unknown`` is ``unknown='ignore'``); a flag left unset (None) is left out, so the
    Python function's default, the macro's, applies. The lists (``--k``, ``--slice-by``,
    ``--metrics``) are the caller's. Example: ``_flag_options(args, "ndcg_report")``."""
    options: dict[str, object] = {}
    given = _given_flags(args, macro)
    for param in MACROS[macro].params:
        if param.default is None or param.name in CLI_LISTS or cli_flag(param.name) not in given:
            continue
        value = getattr(args, _dest(param.name))
        options[param.name] = CLI_SWITCHES[param.name][1] if param.name in CLI_SWITCHES else value
    return options


def _unread_with_measures(args: argparse.Namespace, macro: str) -> list[str]:
    """The flags given (another value than the table's default) of ``macro``'s options that its
    measures overload does not read: the options of ``macro`` that the macro scoring measures
    (``Macro.measures``: ndcg_report's event_measures) does not take, ``--k`` among them."""
    read = {p.name for p in MACROS[MACROS[macro].measures].params}  # type: ignore[index]
    unread = {cli_flag(p.name) for p in MACROS[macro].params if p.name not in read}
    return [flag for flag in _given_flags(args, macro) if flag in unread]


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else repr(error)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code: 0 done, 2 a usage error, 1 a data error, 130
    interrupted. Example: ``duckdb-ndcg demo``."""
    try:
        args, extra = _parser().parse_known_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already printed
        return done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        print("duckdb-ndcg: interrupted", file=sys.stderr)
        return INTERRUPTED
    prog = f"duckdb-ndcg {args.command}"
    try:
        if extra:
            raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
        with _CTRL_C.watching():
            args.run(args)
        if _CTRL_C.pressed.is_set():  # a query DuckDB ran to its end regardless
            raise KeyboardInterrupt
    except BrokenPipeError:  # the reader stopped early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 0
    except (KeyboardInterrupt, duckdb.InterruptException, RuntimeError) as error:
        # Ctrl-C, in Python or in a query; any other RuntimeError is not ours to word
        if isinstance(error, RuntimeError) and str(error) != _STATEMENT_INTERRUPTED:
            raise
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except duckdb.OutOfMemoryException as error:
        print(f"{prog}: {_first_line(error)}. {_OUT_OF_MEMORY}", file=sys.stderr)
        return DATA
    except VerbatimUsageError as error:
        print(f"{prog}: {_first_line(error)}", file=sys.stderr)
        return USAGE
    except UsageError as error:
        print(f"{prog}: {_cli_wording(_first_line(error))}", file=sys.stderr)
        return USAGE
    except (DataError, ValueError, duckdb.Error, OSError) as error:
        print(f"{prog}: {_error_wording(error)}", file=sys.stderr)
        return DATA
    return 0


if __name__ == "__main__":
    sys.exit(main())
