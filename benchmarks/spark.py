"""Time the portable SQL on local Spark with a small heap, next to the DuckDB macros.

Users who outgrow one machine run the statements of ``duckdb_ndcg.portable`` on Spark. This
script runs them on local Spark (``local[2]``, one JVM whose heap is ``--heap``: in local mode the
executor is the driver, so the limit is ``spark.driver.memory``, set before the JVM starts) over
the Parquet files written by ``generate.py``:

* ``to_sql('ndcg', 'spark', k=10)`` over ``judged_N`` (rnk = -score, ties averaged: the default,
  the project's ``ndcg(rel, -score, 10)``), checked against that macro;
* ``events_to_sql('spark', k=10)`` over ``rankings_N`` + ``events_N``, checked against
  ``ndcg_report('rankings', 'events', k := 10)``.

Shuffle: ``spark.sql.shuffle.partitions = 32`` (16 tasks per core) with adaptive execution's
partition coalescing off. Spark's default (200 partitions coalesced to about 64 MB each) gives
each window-sort task more rows than its share of a 1 GB heap holds, so it spills; ``--coalesce
--partitions 200`` measures that default.

Each (engine, heap, query) runs in its own child process (a fresh JVM): one cold run, which is also
the warm-up, then ``--reps`` timed runs whose median is reported. Seconds run from submitting the
statement (Parquet read included) to the mean NDCG@10 over queries. Spill is read from Spark's
stage metrics (``memoryBytesSpilled`` / ``diskBytesSpilled``, REST API of the local Spark UI) for
the jobs of each run; peak RSS is the JVM's ``VmHWM``. Results go to
``benchmarks/results/spark_<rows>.md`` (``spark_<rows>-coalesce.md`` with ``--coalesce``), and
``.json``.

Examples::

    python benchmarks/spark.py --rows 10000000 --reps 3 --heap 1g 512m
    python benchmarks/spark.py --rows 10000000 --reps 1 --heap 1g --coalesce --partitions 200
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from urllib.parse import urlparse

from run import _commit  # benchmarks/run.py, beside this script

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results"
K = 10
TOLERANCE = 1e-9
QUERIES = ("judged", "events")  # to_sql over the judged run; events_to_sql over rankings + events

# The project's macros on DuckDB: the reference means (and times) on the same files.
DUCKDB_SQL = {
    "judged": (
        f"SELECT avg(v) FROM (SELECT query_id, ndcg(rel, -score, {K}) AS v "
        "FROM judged GROUP BY query_id)"
    ),
    "events": f"SELECT avg(ndcg) FROM ndcg_report('rankings', 'events', k := {K})",
}
LABEL = {
    "judged": ("to_sql('ndcg', 'spark', k=10)", "ndcg(rel, -score, 10) by query"),
    "events": ("events_to_sql('spark', k=10)", "ndcg_report(..., k := 10)"),
}


def _paths(rows: int) -> dict[str, Path]:
    return {name: DATA / f"{name}_{rows}.parquet" for name in ("judged", "rankings", "events")}


def _vm_hwm_mib(pid: int) -> float | None:
    """Peak resident set of a process (Linux /proc VmHWM), MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _timed(run) -> tuple[float, float]:
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


# ---------------------------------------------------------------------------------------------
# Spark (child process)


def spark_sql(query: str) -> str:
    """The statement Spark runs: the portable per-query NDCG@10, averaged over queries."""
    from duckdb_ndcg.portable import events_to_sql, to_sql

    if query == "judged":
        # The view judged_rnk (rnk = -score) is made by _spark_session; ties averaged (default).
        per_query = to_sql("ndcg", "spark", table="judged_rnk", rnk_col="rnk", k=K)
    else:
        per_query = events_to_sql("spark", rankings="rankings", events="events", k=K)
    return f"SELECT avg(ndcg) AS mean_ndcg FROM ({per_query}) AS per_query"


def _spark_session(heap: str, partitions: int, coalesce: bool, paths: dict[str, Path]):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName(f"duckdb_ndcg-bench-{heap}")
        .config("spark.driver.memory", heap)  # local mode: the executor is this JVM
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.sql.adaptive.coalescePartitions.enabled", str(coalesce).lower())
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    for name, path in paths.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(name)
    spark.sql("SELECT query_id, item_id, rel, -score AS rnk FROM judged").createOrReplaceTempView(
        "judged_rnk"
    )
    return spark


class StageMetrics:
    """Spill of the jobs a run started, from the REST API of the local Spark UI."""

    def __init__(self, spark) -> None:
        sc = spark.sparkContext
        port = urlparse(sc.uiWebUrl).port
        self.base = f"http://127.0.0.1:{port}/api/v1/applications/{sc.applicationId}"
        self.seen: set[int] = set()

    def _get(self, path: str):
        with urllib.request.urlopen(f"{self.base}/{path}", timeout=30) as reply:
            return json.load(reply)

    def _settled(self, path: str, busy: set[str]) -> list[dict]:
        """The listing once nothing in it is still running (the listener bus is asynchronous)."""
        for _ in range(600):
            items = self._get(path)
            if not any(item["status"] in busy for item in items):
                return items
            time.sleep(0.1)
        raise RuntimeError(f"Spark UI: {path} still running after 60 s")

    def mark(self) -> None:
        """Remember the jobs so far: the next spill() counts only jobs started after this."""
        self.seen = {job["jobId"] for job in self._settled("jobs", {"RUNNING"})}

    def spill(self) -> dict[str, int]:
        """memoryBytesSpilled / diskBytesSpilled summed over the stages of the new jobs."""
        jobs = [j for j in self._settled("jobs", {"RUNNING"}) if j["jobId"] not in self.seen]
        stage_ids = {sid for job in jobs for sid in job["stageIds"]}
        stages = self._settled("stages", {"ACTIVE"})
        mine = [s for s in stages if s["stageId"] in stage_ids]
        self.seen |= {job["jobId"] for job in jobs}
        return {
            "jobs": len(jobs),
            "stages_run": sum(s["status"] == "COMPLETE" for s in mine),
            "memory_bytes_spilled": sum(s["memoryBytesSpilled"] for s in mine),
            "disk_bytes_spilled": sum(s["diskBytesSpilled"] for s in mine),
        }


def spark_worker(query: str, rows: int, reps: int, heap: str, partitions: int, coalesce: bool):
    spark = _spark_session(heap, partitions, coalesce, _paths(rows))
    jvm = spark.sparkContext._jvm
    facts = {
        "max_heap_mib": jvm.java.lang.Runtime.getRuntime().maxMemory() / 2**20,
        "java": jvm.java.lang.System.getProperty("java.version"),
        "spark": spark.version,
    }
    pid = jvm.java.lang.ProcessHandle.current().pid()
    metrics = StageMetrics(spark)
    sql = spark_sql(query)
    runs = []
    for _ in range(1 + reps):  # run 0: cold (first in this JVM), also the warm-up
        metrics.mark()
        seconds, value = _timed(lambda: spark.sql(sql).collect()[0][0])
        runs.append({"seconds": seconds, "mean": value, **metrics.spill()})
        print(f"  {query} heap {heap}: {seconds:.1f} s", file=sys.stderr, flush=True)
    peak = _vm_hwm_mib(pid)
    spark.stop()
    return {"runs": runs, "peak_rss_mib": peak, **facts}


# ---------------------------------------------------------------------------------------------
# DuckDB (child process): the reference


def duckdb_worker(query: str, rows: int, reps: int):
    import duckdb

    import duckdb_ndcg

    con = duckdb_ndcg.register(duckdb.connect())
    for name, path in _paths(rows).items():
        literal = "'" + str(path).replace("'", "''") + "'"  # our path; DDL takes no parameters
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet({literal})")
    runs = []
    for _ in range(1 + reps):
        seconds, value = _timed(lambda: con.execute(DUCKDB_SQL[query]).fetchone()[0])
        runs.append({"seconds": seconds, "mean": value})
    return {"runs": runs, "peak_rss_mib": _vm_hwm_mib(os.getpid()), "duckdb": duckdb.__version__}


# ---------------------------------------------------------------------------------------------
# Parent: run the children, check, report


def measure(args: argparse.Namespace, engine: str, query: str, heap: str | None) -> dict:
    """One child process; its last stdout line is JSON. On a timeout its whole process group
    (the JVM included) is ended."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker", engine,
        "--query", query,
        "--rows", str(args.rows),
        "--reps", str(args.reps),
        "--partitions", str(args.partitions),
    ]  # fmt: skip
    if heap:
        cmd += ["--heap", heap]
    if args.coalesce:
        cmd.append("--coalesce")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"timeout after {args.timeout:.0f} s"}
    sys.stderr.write("".join(line + "\n" for line in err.splitlines() if line.startswith("  ")))
    if proc.returncode != 0 or not out.strip():
        lines = [x for x in err.splitlines() if "Error" in x or "Exception" in x] or [
            *err.splitlines()[-1:],
            "no output",
        ]
        return {"error": f"exit {proc.returncode}: {lines[0].strip()[:300]}"}
    return json.loads(out.strip().splitlines()[-1])


def summarise(result: dict) -> dict:
    """Cold run, median of the warm runs, the spill of the worst run."""
    if "error" in result:
        return result
    cold, *warm = result["runs"]
    warm = warm or [cold]
    out = {
        **result,
        "cold_s": cold["seconds"],
        "median_s": statistics.median(r["seconds"] for r in warm),
        "mean": warm[0]["mean"],
    }
    if "memory_bytes_spilled" in cold:
        out["memory_bytes_spilled"] = max(r["memory_bytes_spilled"] for r in result["runs"])
        out["disk_bytes_spilled"] = max(r["disk_bytes_spilled"] for r in result["runs"])
    return out


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _java_version() -> str:
    done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    return (done.stderr.splitlines() or ["unknown"])[0]


def machine() -> dict[str, str]:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    facts = {"nproc": str(os.cpu_count()), "memory": f"{mem:.1f} GiB"}
    facts["python"] = platform.python_version()
    for dist in ("pyspark", "duckdb", "sqlglot"):
        try:
            facts[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            facts[dist] = "missing"
    facts["java"] = _java_version()
    facts["macros at commit"] = _commit()
    return facts



def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _input_rows(rows: int) -> dict[str, int]:
    import pyarrow.parquet as pq

    return {n: pq.ParquetFile(p).metadata.num_rows for n, p in _paths(rows).items()}


def report(args, results: list[dict], facts: dict, load: tuple[str, str], command: str) -> str:
    counts = _input_rows(args.rows)
    lines = [
        (
            f"# Portable SQL on local Spark vs the DuckDB macros, {args.rows:,} rows "
            f"({args.rows // 100:,} queries)"
        ),
        "",
        f"Command: `{command}`",
        "",
        "Machine: "
        + ", ".join(f"{k} {v}" for k, v in facts.items())
        + f"; load average (1, 5, 15 min) {load[0]} before, {load[1]} after. The machine is shared "
        "(2 cores, other work running): compare ratios within this run, not absolute seconds "
        "across runs.",
        "",
        f"Spark: `local[2]`, heap = `spark.driver.memory` (local mode: the executor is the driver "
        f"JVM), `spark.sql.shuffle.partitions = {args.partitions}`, adaptive execution on, "
        "partition coalescing "
        + ("on (Spark's default)" if args.coalesce else "off")
        + f". Each row is one child process: a cold run (the first in a fresh JVM / connection; "
        f"also the warm-up), then {args.reps} timed run(s); median s is their median. Seconds from "
        "submitting the statement (Parquet read included) to the mean over queries. Spilled: "
        "the most any one run spilled, summed over its stages (`memoryBytesSpilled`, the "
        "in-memory size of what was spilled / `diskBytesSpilled`, its size on disk). Peak RSS: "
        "VmHWM of the JVM (Spark) or of the Python process (DuckDB, no memory limit), over all "
        "its runs. x DuckDB: the Spark median / the median of the DuckDB row just above it, "
        "run right before it under about the same load.",
        "",
        (
            "| system | query | rows | median s | cold s | x DuckDB | spilled (memory / disk) "
            "| peak RSS MiB | mean NDCG@10 | check |"
        ),
        "|---|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    previous: dict | None = None  # the DuckDB row run just before a Spark row
    for r in results:
        ref, previous = previous, r
        query = r["query"]
        rows = (
            f"{counts['judged']:,}"
            if query == "judged"
            else f"{counts['rankings']:,} + {counts['events']:,} events"
        )
        if r["engine"] == "duckdb":
            system, what = "DuckDB macro", LABEL[query][1]
        else:
            system, what = f"Spark local[2], heap {r['heap']}", LABEL[query][0]
        if "error" in r:
            lines.append(f"| {system} | {what} | {rows} | — | — | — | — | — | — | {r['error']} |")
            continue
        ratio = "1"
        if r["engine"] == "spark":
            ok = ref is not None and ref["engine"] == "duckdb" and "median_s" in ref
            ratio = f"{r['median_s'] / ref['median_s']:.1f}" if ok else "—"
        spilled = (
            f"{_bytes(r['memory_bytes_spilled'])} / {_bytes(r['disk_bytes_spilled'])}"
            if "memory_bytes_spilled" in r
            else "— (no limit)"
        )
        lines.append(
            f"| {system} | {what} | {rows} | {r['median_s']:.2f} | {r['cold_s']:.2f} | {ratio} | "
            f"{spilled} | {r['peak_rss_mib']:.0f} | {r['mean']:.12f} | {r['check']} |"
        )
    lines += [
        "",
        (
            f"Check: the mean equals the DuckDB macro's on the same files to {TOLERANCE:g} (to_sql: "
            "ties averaged, the default of both; events: positions are distinct, so no ties)."
        ),
        "",
    ]
    return "\n".join(lines)


def check(results: list[dict]) -> None:
    reference: dict[str, float] = {}
    for r in results:
        if r["engine"] == "duckdb" and "mean" in r:
            reference.setdefault(r["query"], r["mean"])
    for r in results:
        if "mean" not in r:
            continue
        ref = reference.get(r["query"])
        if r["engine"] == "duckdb" and r["mean"] == ref:
            r["check"] = "reference"
        elif ref is None:
            r["check"] = "no reference"
        else:
            diff = abs(r["mean"] - ref)
            r["check"] = "ok" if diff <= TOLERANCE else f"DIFFERS by {diff:.3g}"


def bench(args: argparse.Namespace, command: str) -> list[dict]:
    missing = [str(p) for p in _paths(args.rows).values() if not p.exists()]
    if missing:
        raise SystemExit(f"missing data {missing}: run python benchmarks/generate.py {args.rows}")
    facts = machine()
    load_before = _load()
    results = []
    # Each Spark child follows a DuckDB child on the same query, so that its ratio is to a
    # DuckDB run made under about the same load of the shared machine.
    plan = [
        (engine, query, heap)
        for heap in args.heap
        for query in QUERIES
        for engine in ("duckdb", "spark")
    ]
    for engine, query, heap in plan:
        print(f"{engine} {query}" + (f" heap {heap}" if heap else ""), file=sys.stderr, flush=True)
        got = summarise(measure(args, engine, query, heap))
        results.append(
            {"engine": engine, "query": query, "heap": heap if engine == "spark" else None, **got}
        )
        for key in ("spark", "java", "duckdb"):
            if key in got:
                facts.setdefault(f"{key} (worker)", got[key])
    load_after = _load()
    check(results)
    out = RESULTS / (f"spark_{args.rows}" + ("-coalesce" if args.coalesce else "") + ".md")
    if not args.no_save:
        out.parent.mkdir(parents=True, exist_ok=True)
        saved = {
            "rows": args.rows,
            "reps": args.reps,
            "partitions": args.partitions,
            "coalesce": args.coalesce,
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "machine": facts,
            "load_average": [load_before, load_after],
            "results": results,
        }
        out.with_suffix(".json").write_text(json.dumps(saved, indent=1), encoding="utf-8")
    text = report(args, results, facts, (load_before, load_after), command)
    print(text)
    if not args.no_save:
        out.write_text(text, encoding="utf-8")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--reps", type=int, default=3, help="timed runs after the cold run")
    parser.add_argument(
        "--heap", nargs="+", default=["1g"], help="Spark JVM heap(s), e.g. 1g 512m (one run each)"
    )
    parser.add_argument(
        "--partitions", type=int, default=32, help="spark.sql.shuffle.partitions (default 32)"
    )
    parser.add_argument(
        "--coalesce",
        action="store_true",
        help="let adaptive execution coalesce shuffle partitions (Spark's default; off here)",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per child process")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--worker", choices=("spark", "duckdb"), help=argparse.SUPPRESS)
    parser.add_argument("--query", choices=QUERIES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reps < 1:
        raise SystemExit(f"--reps must be at least 1, got {args.reps}")
    if args.worker == "spark":
        got = spark_worker(
            args.query, args.rows, args.reps, args.heap[0], args.partitions, args.coalesce
        )
        print(json.dumps(got))
        return
    if args.worker == "duckdb":
        print(json.dumps(duckdb_worker(args.query, args.rows, args.reps)))
        return
    bench(args, "python benchmarks/spark.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
