"""``duckdb-ndcg trec QRELS RUN``: trec_eval's measures, options and output lines, scored in DuckDB.

The files are read by ``read_qrels`` and ``read_trec_run`` (trec_eval's order of equal scores:
item id descending), joined into a judged run, and every measure is one aggregate of this package
per query (:func:`duckdb_ndcg.measures.measures_sql`) and one mean, sum or geometric mean over the
queries (:func:`duckdb_ndcg.measures.summary_sql`); Python only orders and prints the lines.

Example::

    duckdb-ndcg trec qrels.txt run.txt -m official -m ndcg_cut.5,10 -q -c
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import duckdb

from duckdb_ndcg.conventions import PRESETS
from duckdb_ndcg.macros import quoted
from duckdb_ndcg.measures import (
    NICKNAMES,
    TEXT_METRICS,
    TREC_ORDER,
    Measure,
    MeasureError,
    measures_sql,
    parse_measures,
    summary_sql,
    with_threshold,
)
from duckdb_ndcg.presets import preset_row
from duckdb_ndcg.presets import trec_measures as preset_measures
from duckdb_ndcg.srw import srw_sql
from duckdb_ndcg.trec_plan import covers, spilling_sql

_COUNT_METRICS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
_SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}  # trec_eval prints them for "all" only


def trec_measures(names: Sequence[str]) -> tuple[bool, list[Measure], list[str]]:
    """The ``-m`` values read as trec_eval reads them: (runid asked, the measures in trec_eval's
    printing order, the names of ``all_trec`` this engine skips). As in trec_eval, a measure
    takes the first parameters given with ``-m``, wherever the measure is named without them
    (``-m all_trec -m relstring.20``, ``-m G -m G.1=3``)."""
    chosen: dict[str, list[Measure]] = {}
    explicit: set[str] = set()  # measures given with their parameters
    runid, skipped = False, []
    for name in names or ["official"]:
        if name in NICKNAMES:
            for member in NICKNAMES[name]:
                if member == "runid":
                    runid = True
                    continue
                try:
                    chosen.setdefault(member, parse_measures(member, "trec_eval"))
                except MeasureError:
                    skipped.append(member)
            continue
        if name == "runid":
            runid = True
            continue
        measures = parse_measures(name, "trec_eval")
        base = name.split(".", 1)[0]
        base = base if base in TREC_ORDER else _base(measures[0])
        if name == base:  # no parameters: trec_eval's defaults, unless -m gives some
            chosen.setdefault(base, measures)
        elif base not in explicit:  # the first parameters given with -m (trec_eval's rule)
            chosen[base] = measures
            explicit.add(base)
    ordered = [m for base in TREC_ORDER if base in chosen for m in chosen[base]]
    return runid, ordered, skipped


def _base(measure: Measure) -> str:
    """trec_eval's measure name of a printed name such as P_5 (pytrec_eval's spelling)."""
    return next(b for b in sorted(TREC_ORDER, key=len, reverse=True)
                if measure.trec and measure.trec.startswith(b))


def trec_lines(
    con: duckdb.DuckDBPyConnection,
    qrels: str,
    run: str,
    measures: Sequence[str] = (),
    per_query: bool = False,
    complete: bool = False,
    judged_only: bool = False,
    level: int = 1,
    max_retrieved: int | None = None,
    summary: bool = True,
    preset: str | None = None,
) -> Iterator[str]:
    """trec_eval's output lines for the qrels and run files: ``measures`` as ``-m`` takes them
    (default ``official``), ``per_query`` ``-q``, ``complete`` ``-c`` (queries judged but not run
    count, scoring 0), ``judged_only`` ``-J``, ``level`` ``-l``, ``max_retrieved`` ``-M``,
    ``summary`` False for ``-n``, ``preset`` a tool's query set (``conventions.PRESETS``:
    'trec_eval', 'trec_eval_c', 'ir_measures', 'ranx'; the last three score every judged query,
    as ``complete``), 'elasticsearch': rank_eval's normalized dcg as ``ndcg_cut.k``, over every
    query of the qrels or the run, or 'opensearch_srw' (``per_query`` without ``summary``): the
    workbench's values (duckdb_ndcg.srw). ``con`` has the macros registered."""
    runid, chosen, skipped = trec_measures(list(measures))
    every = False  # every query of the qrels or the run (Elasticsearch's requests)
    srw = False  # the Search Relevance Workbench's values (duckdb_ndcg.srw)
    if preset is not None:
        chosen = preset_chosen(preset, chosen, bool(measures), complete, judged_only, level,
                               max_retrieved, per_query, summary)
        row = preset_row(preset, "trec")
        complete = complete or row.queries in ("judged", "judged_or_ranked")
        every = row.queries == "judged_or_ranked"
        srw = row.rounding is not None
    if skipped:
        print(f"duckdb-ndcg trec: all_trec: not computed yet: {', '.join(skipped)}",
              file=sys.stderr)
    chosen = [with_threshold(m, level) for m in chosen]
    if judged_only:
        chosen = [replace(m, judged_only=True) for m in chosen]
    cap = max_retrieved if max_retrieved is not None else 2**62
    con.execute("CREATE OR REPLACE TEMP TABLE _trec_qrels AS SELECT * FROM read_qrels($1)", [qrels])
    parquet = _parquet_columns(con, run)
    if parquet is None:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _trec_run AS "
            "SELECT * FROM read_trec_run($1) WHERE rnk <= $2",
            [run, cap],
        )
    else:
        _read_parquet_run(con, run, parquet, cap)
    if preset is not None and preset_row(preset, "trec").ties == "position":
        _check_hits_order(con, preset)
    # the query set: queries both judged and run (-c: every judged query); a run's query that
    # has no judgments is dropped, as trec_eval drops it. A negative grade is trec_eval's "in the
    # pool, unjudged" (its -2; a document not in the qrels is its -1, "not in the pool"):
    # unjudged here, and qrels_grade tells the two apart (infAP, relstring)
    con.execute(
        """CREATE OR REPLACE TEMP TABLE _trec_judged AS
        SELECT coalesce(r.query_id, q.query_id) AS query_id,
               coalesce(r.item_id, q.item_id) AS item_id,
               CASE WHEN q.rel >= 0 THEN q.rel END AS rel, r.rnk, q.rel AS qrels_grade
        FROM _trec_run r FULL OUTER JOIN _trec_qrels q USING (query_id, item_id)
        WHERE CASE WHEN $3 THEN coalesce(r.query_id, q.query_id) IN (SELECT query_id FROM _trec_run)
                   ELSE $2 OR (coalesce(r.query_id, q.query_id) IN (SELECT query_id FROM _trec_qrels)
                               AND ($1 OR coalesce(r.query_id, q.query_id) IN
                                          (SELECT query_id FROM _trec_run))) END""",
        [complete, every, srw],
    )
    if srw:  # the run's queries, judged or not
        sql, params = srw_sql(chosen, "_trec_judged")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _trec_scores AS {sql}", params)
    else:
        _score(con, chosen)
    if per_query:
        rows = con.execute("SELECT * FROM _trec_scores ORDER BY query_id").fetchall()
        for row in rows:
            for measure, value in zip(chosen, row[1:]):
                if measure.trec not in _SUMMARY_ONLY:
                    yield _line(measure, row[0], value)
    if not summary:
        return
    if runid and parquet is not None:  # its run_id (or tag) column, else the file's name
        tag = (con.execute(f"SELECT max({quoted(parquet['tag'])})::VARCHAR FROM read_parquet($1)",
                           [run]).fetchone() if parquet["tag"]
               else (Path(run).name.removesuffix(".parquet"),))
        yield f"{'runid':<22}\tall\t{tag[0] if tag else ''}"
    elif runid:
        tag = con.execute(  # the last line's tag (a fixed-size state: arg_max, not a list)
            "SELECT arg_max(fields[6], line_no) FROM _ndcg_read_fields($1)", [run]
        ).fetchone()
        yield f"{'runid':<22}\tall\t{tag[0] if tag else ''}"
    totals = con.execute(summary_sql(chosen, "_trec_scores")).fetchone() or ()
    for measure, value in zip(chosen, totals):
        if measure.metric not in TEXT_METRICS:  # relstring: per query only, as trec_eval
            yield _line(measure, "all", value)


def preset_chosen(preset: str, chosen: list[Measure], given: bool, complete: bool,
                  judged_only: bool, level: int, max_retrieved: int | None, per_query: bool,
                  summary: bool) -> list[Measure]:
    """The measures ``trec_lines`` computes under ``preset`` (``presets.trec_measures``), from
    the -m measures (``given``: whether -m was given) and trec's flags; a flag or measure the
    preset cannot take is a ValueError. The CLI calls it before reading any file."""
    flags = {"-c": complete, "-J": judged_only, "-M": max_retrieved is not None,
             "-l": level != 1, "-q": per_query, "-n": not summary}
    return preset_measures(preset, chosen if given else [], flags)


def _score(con: duckdb.DuckDBPyConnection, chosen: list[Measure]) -> None:
    """_trec_scores (query_id, m0, m1, ...: the chosen measures in order) from _trec_judged:
    trec_eval's usual measures by the plan DuckDB can spill (duckdb_ndcg.trec_plan), the others
    by the aggregates, each set a table of its own, joined on the query."""
    fast = [i for i, m in enumerate(chosen) if covers([m])]
    fast = [i for i in fast if covers([chosen[fast[0]], chosen[i]])] if fast else []
    rest = [i for i in range(len(chosen)) if i not in fast]
    parts = []
    for name, indexes, plan in (("_trec_fast", fast, spilling_sql), ("_trec_rest", rest, None)):
        if not indexes:
            continue
        measures = [chosen[i] for i in indexes]
        sql, params = (plan(measures, "_trec_judged") if plan else
                       measures_sql(measures, "_trec_judged", pool_col="qrels_grade"))
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}", params)
        parts.append((name, {i: f"m{j}" for j, i in enumerate(indexes)}))
    first = parts[0][0]
    columns = ", ".join(f"{name}.{part[i]} AS m{i}" for i in range(len(chosen))
                        for name, part in parts if i in part)
    joins = "".join(f" JOIN {name} USING (query_id)" for name, _ in parts[1:])
    con.execute(f"CREATE OR REPLACE TEMP TABLE _trec_scores AS "
                f"SELECT query_id, {columns} FROM {first}{joins}")
    for name, _ in parts:
        con.execute(f"DROP TABLE {name}")


def _check_hits_order(con: duckdb.DuckDBPyConnection, preset: str) -> None:
    """Under a preset that scores the hits in the tool's own order (Elasticsearch, the
    workbench), the run's scores must tell that order (no equal scores in a query) and the
    qrels' grades be ratings (>= 0, which trec_eval's negative "unjudged" grades are not): else
    one error line."""
    tie = con.execute(
        "SELECT query_id, score FROM _trec_run GROUP BY query_id, score HAVING count(*) > 1 "
        "ORDER BY query_id, score DESC LIMIT 1").fetchone()
    if tie is not None:
        raise ValueError(f"preset {preset!r} scores the hits in {preset}'s own order, which equal "
                         f"scores cannot tell: query {tie[0]!r} has score {tie[1]!r} more than "
                         "once")
    negative = con.execute(
        "SELECT query_id, item_id, rel FROM _trec_qrels WHERE rel < 0 "
        "ORDER BY query_id, item_id LIMIT 1").fetchone()
    if negative is not None:
        raise ValueError(f"preset {preset!r} reads grades as ratings >= 0: document "
                         f"{negative[1]!r} of query {negative[0]!r} has {negative[2]:g}")


# the columns of a Parquet run: (query, document, score) as ir_measures' data frames name them,
# or as PyTerrier's; a run_id (or tag) column gives runid
_PARQUET_NAMES = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))


def _parquet_columns(con: duckdb.DuckDBPyConnection, run: str) -> dict[str, str] | None:
    """The query, doc, score and tag ('' for none) columns of a Parquet run file; None for a
    text run."""
    if not run.lower().endswith(".parquet"):
        return None
    names = [row[0] for row in con.execute(
        "SELECT name FROM parquet_schema($1) WHERE coalesce(num_children, 0) = 0", [run]
    ).fetchall()]
    for query, doc, score in _PARQUET_NAMES:
        if {query, doc, score} <= set(names):
            tag = next((n for n in ("run_id", "tag") if n in names), "")
            return {"query": query, "doc": doc, "score": score, "tag": tag}
    wanted = " or ".join(", ".join(columns) for columns in _PARQUET_NAMES)
    raise ValueError(f"{run}: a Parquet run needs the columns {wanted}; it has "
                     f"{', '.join(names) or 'none'}")


# the first problem of a Parquet run's rows (x: its rows as query_id, item_id, score, _text),
# or NULL: a missing query or document, a score that is not a finite number, a document listed
# twice for one query
_PARQUET_PROBLEM = """coalesce(
    (SELECT 'a row has no query or document' FROM x
     WHERE query_id IS NULL OR item_id IS NULL LIMIT 1),
    (SELECT printf('score %s of document %s (query %s) is not a finite number',
                   coalesce(chr(39) || _text || chr(39), 'NULL'),
                   chr(39) || item_id || chr(39), chr(39) || query_id || chr(39))
     FROM x WHERE score IS NULL OR NOT isfinite(score) LIMIT 1),
    (SELECT printf('document %s is listed more than once for query %s',
                   chr(39) || item_id || chr(39), chr(39) || query_id || chr(39))
     FROM x GROUP BY query_id, item_id HAVING count(*) > 1 LIMIT 1))"""


def _read_parquet_run(con: duckdb.DuckDBPyConnection, run: str, columns: dict[str, str],
                      cap: int) -> None:
    """_trec_run from a Parquet run: read_trec_run's order (score descending, then document id
    descending) and checks, each problem an error naming the file and the row's values."""
    q, d, s = (quoted(columns[c]) for c in ("query", "doc", "score"))
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE _trec_run AS
        WITH x AS MATERIALIZED (
            SELECT {q}::VARCHAR AS query_id, {d}::VARCHAR AS item_id,
                   TRY_CAST({s} AS DOUBLE) AS score, {s}::VARCHAR AS _text
            FROM read_parquet($1)
        ),
        problem AS (SELECT {_PARQUET_PROBLEM} AS p)
        SELECT * FROM (
            SELECT query_id, item_id, score,
                   row_number() OVER (PARTITION BY query_id ORDER BY score DESC, item_id DESC)
                   AS rnk
            FROM x, problem
            WHERE CASE WHEN p IS NULL THEN true ELSE error('duckdb_ndcg: ' || $1 || ': ' || p) END
        ) WHERE rnk <= $2""",
        [run, cap],
    )


def _line(measure: Measure, query: str, value: float | str | None) -> str:
    """One line as trec_eval prints it: the name padded to 22, tab, query, tab, value (counts as
    whole numbers, relstring's text quoted, the rest with 4 decimals)."""
    if measure.metric in TEXT_METRICS:
        return f"{measure.trec:<22}\t{query}\t'{value or ''}'"
    number = float(value) if value is not None else 0.0
    text = f"{round(number)}" if measure.metric in _COUNT_METRICS else f"{number:.4f}"
    return f"{measure.trec:<22}\t{query}\t{text}"


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _positive(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``trec`` command of the CLI: trec_eval's flags, one-letter as trec_eval spells them
    (the CLI sets what runs it)."""
    te = sub.add_parser(
        "trec",
        help="trec_eval's measures and output lines for a qrels and a run file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
A drop-in trec_eval: the same flags, the same output lines (name padded to 22, tab,
query, tab, value with 4 decimals; counts whole), in trec_eval's order of measures.
Measures: -m name[.params] (repeatable; official by default), nicknames official and
all_trec (all of trec_eval's); a run may be a .parquet file.""",
    )
    te.add_argument("qrels", metavar="QRELS", help="the qrels file (query_id iteration item_id grade)")
    te.add_argument("run_file", metavar="RUN",
                    help="the run file (query_id Q0 item_id rank score tag), or a .parquet run "
                    "(columns query_id, doc_id, score, or qid, docno, score)")
    te.add_argument("-m", dest="measures", action="append", default=[], metavar="MEASURE",
                    help="a measure, name[.params] (ndcg_cut.5,10) or a nickname (default official)")
    te.add_argument("-q", dest="per_query", action="store_true", help="also every query's values")
    te.add_argument("-c", dest="complete", action="store_true",
                    help="queries judged but not run count, scoring 0 (default: queries both "
                    "judged and run)")
    te.add_argument("-J", dest="judged_only", action="store_true",
                    help="drop unjudged returned items before every measure")
    te.add_argument("-l", dest="level", type=_whole, default=1, metavar="N",
                    help="the least relevant grade (default 1)")
    te.add_argument("-M", dest="max_retrieved", type=_positive, metavar="N",
                    help="read at most the first N items of each query (default all)")
    te.add_argument("-n", dest="no_summary", action="store_true", help="no summary (all) lines")
    te.add_argument("--memory-limit",
                    help="DuckDB's memory_limit for this run, e.g. 2GB (default: DuckDB's, 80%% "
                    "of RAM); the usual measures (official's, P, recall, map_cut) spill to disk "
                    "beyond it")
    te.add_argument("--temp-directory",
                    help="where DuckDB spills beyond --memory-limit (default: DuckDB's, .tmp in "
                    "the current folder)")
    te.add_argument("--preset", choices=list(PRESETS),
                    help="the query set as a tool has it: trec_eval (judged and run, the "
                    "default), trec_eval_c, ir_measures, ranx (every judged query, 0 when not "
                    "run: -c); elasticsearch: rank_eval's normalized dcg as -m ndcg_cut.k "
                    "(2^grade - 1, the ideal cut at the hits returned) over every query of the "
                    "qrels or the run; opensearch_srw (with -q -n): the Search Relevance "
                    "Workbench's P.k, map_cut.k, recall.k, ndcg_cut.k, rounded to 2 decimals")
    return te
