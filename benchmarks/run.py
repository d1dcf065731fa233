"""Time mean NDCG@10 over queries: the project's macros, DuckDB's floors and the Python peers.

Every measurement runs in its own child process (``run.py --worker SYSTEM``), which loads the
Parquet files written by ``generate.py``, computes the mean and reports seconds (from reading the
Parquet file to the mean, imports and connection setup excluded), the mean and its peak RSS.
Systems are run round-robin, ``--reps`` times each, and the median is reported. Results go to
``benchmarks/results/<rows>.md`` (and ``.json``, read by ``--growth``).

Examples::

    python benchmarks/run.py --rows 1000000 --reps 3
    python benchmarks/run.py --rows 100000000 --systems ndcg@10 --memory-limit 1GB
    python benchmarks/run.py --rows 20000000 --data benchmarks/data/page --memory-limit 500MB \
        --threads 2 --systems ndcg_report@10 ndcg_summary@10 compare_rankers@10
    python benchmarks/run.py --growth
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results"
K = 10
THREADS: int | None = None  # --threads: DuckDB's threads setting in the children (None: default)
_CHILD_ARGS: list[str] = []  # --data / --threads, passed on to every child
TOLERANCE = 1e-9
# OpenBLAS variables set on this machine for old OpenBLAS builds; they slow a current numpy, so the
# children of this benchmark (and only they) run without them.
BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

# Tie conventions a system's mean is checked under:
AVERAGE = "average"  # tied scores share their group's mean gain (scikit-learn; the project default)
KEY = "key"  # score descending, then item_id descending (trec_eval; ties := 'key')


@dataclass(frozen=True)
class System:
    """One thing to time: a name, what it is, the tie convention of its mean, a size limit."""

    name: str
    kind: str  # 'project', 'floor' or 'peer'
    convention: str | None  # None: not an NDCG@10 (a floor, or full depth)
    run: Callable[[dict[str, Path], str | None], float | None]
    max_rows: int | None = None
    note: str = ""


# ---------------------------------------------------------------------------------------------
# DuckDB: the project's macros and the floors


def _duckdb(paths: dict[str, Path], memory_limit: str | None):
    import duckdb

    import duckdb_ndcg

    con = duckdb.connect()
    if THREADS is not None:
        con.execute(f"SET threads = {int(THREADS)}")
    if memory_limit is not None:
        spill = DATA / "spill"
        spill.mkdir(exist_ok=True)
        con.execute("SET memory_limit = ?", [memory_limit])
        con.execute("SET temp_directory = ?", [str(spill)])
        con.execute("SET preserve_insertion_order = false")
    duckdb_ndcg.register(con)
    for name, path in paths.items():
        # View names are ours; the path is a literal DuckDB cannot bind as a parameter in DDL.
        literal = "'" + str(path).replace("'", "''") + "'"
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet({literal})")
    con.execute(
        "CREATE VIEW judged_rnk AS SELECT query_id, item_id, rel, -score AS rnk FROM judged"
    )
    # a second ranker for compare_rankers: the same rankings, so each query is scored twice
    con.execute("CREATE VIEW rankings_b AS SELECT * FROM rankings")
    return con


def _sql(query: str) -> Callable[[dict[str, Path], str | None], float | None]:
    def run(paths: dict[str, Path], memory_limit: str | None) -> float | None:
        con = _duckdb(paths, memory_limit)
        start = time.perf_counter()
        value = con.execute(query).fetchone()[0]
        _stop(start)
        return value

    return run


def _has_macro(name: str) -> bool:
    import duckdb

    import duckdb_ndcg

    con = duckdb_ndcg.register(duckdb.connect())
    found = con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name = ?", [name]
    ).fetchone()[0]
    return found > 0


def _portable_sql() -> str | None:
    """The portable NDCG@10 query printed for DuckDB, or None when the module does not exist yet."""
    try:
        from duckdb_ndcg import portable
    except ImportError:
        return None
    # The view judged_rnk (query_id, item_id, rel, rnk = -score) is made by _duckdb.
    sql = portable.to_sql("ndcg", "duckdb", table="judged_rnk", rnk_col="rnk", k=K)
    return f"SELECT avg(ndcg) FROM ({sql})"


def _portable(paths: dict[str, Path], memory_limit: str | None) -> float | None:
    return _sql(_portable_sql())(paths, memory_limit)


_PER_QUERY = "SELECT avg(v) FROM (SELECT query_id, {expr} AS v FROM judged GROUP BY query_id)"
_GRADE = (
    "CASE event_type WHEN 'click' THEN 1 WHEN 'add_to_cart' THEN 2 "
    "WHEN 'purchase' THEN 3 ELSE 0 END"
)

# ---------------------------------------------------------------------------------------------
# Peers. Each reads the Parquet file itself; KEY peers order by score desc, then item_id desc.


def _columns(path: Path, names: list[str]) -> dict:
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=names)
    return {n: table.column(n).to_numpy() for n in names}


def _mean_ndcg(dcg, idcg) -> float:
    import numpy as np

    safe = np.where(idcg > 0, idcg, 1.0)
    return float(np.mean(np.where(idcg > 0, dcg / safe, 0.0)))


def _polars(paths: dict[str, Path], memory_limit: str | None) -> float:
    import polars as pl

    start = time.perf_counter()
    discounted = pl.element().cast(pl.Float64) / (pl.int_range(pl.len()) + 2).cast(pl.Float64).log(
        2
    )
    per_query = (
        pl.scan_parquet(paths["judged"])
        .group_by("query_id")
        .agg(
            top=pl.struct("score", "item_id", "rel")
            .top_k_by(["score", "item_id"], K)
            .sort(descending=True)
            .struct.field("rel"),
            ideal=pl.col("rel").top_k(K).sort(descending=True),
        )
        .select(
            dcg=pl.col("top").list.eval(discounted).list.sum(),
            idcg=pl.col("ideal").list.eval(discounted).list.sum(),
        )
        .select(
            pl.when(pl.col("idcg") > 0).then(pl.col("dcg") / pl.col("idcg")).otherwise(0.0).mean()
        )
        .collect()
    )
    _stop(start)
    return float(per_query.item())


def _numpy(paths: dict[str, Path], memory_limit: str | None) -> float:
    import numpy as np

    start = time.perf_counter()
    c = _columns(paths["judged"], ["query_id", "item_id", "score", "rel"])

    def cut_dcg(order):
        qid = c["query_id"][order]
        starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
        pos = np.arange(len(qid)) - np.repeat(starts, np.diff(np.r_[starts, len(qid)]))
        gains = np.where(pos < K, c["rel"][order] / np.log2(pos + 2.0), 0.0)
        return np.add.reduceat(gains, starts)

    dcg = cut_dcg(np.lexsort((-c["item_id"], -c["score"], c["query_id"])))
    idcg = cut_dcg(np.lexsort((-c["rel"], c["query_id"])))
    value = _mean_ndcg(dcg, idcg)
    _stop(start)
    return value


def _pandas(paths: dict[str, Path], memory_limit: str | None) -> float:
    import numpy as np
    import pandas as pd

    start = time.perf_counter()
    df = pd.read_parquet(paths["judged"], columns=["query_id", "item_id", "score", "rel"])

    def cut_dcg(by: list[str], ascending: list[bool]) -> pd.Series:
        ranked = df.sort_values(by, ascending=ascending)
        pos = ranked.groupby("query_id", sort=False).cumcount()
        top = ranked[pos < K]
        return (top["rel"] / np.log2(pos[pos < K] + 2.0)).groupby(top["query_id"]).sum()

    dcg = cut_dcg(["query_id", "score", "item_id"], [True, False, False])
    idcg = cut_dcg(["query_id", "rel"], [True, False])
    value = _mean_ndcg(dcg.to_numpy(), idcg.reindex(dcg.index).to_numpy())
    _stop(start)
    return value


def _sklearn(paths: dict[str, Path], memory_limit: str | None) -> float:
    import numpy as np
    from sklearn.metrics import ndcg_score

    start = time.perf_counter()
    c = _columns(paths["judged"], ["query_id", "score", "rel"])
    order = np.argsort(c["query_id"], kind="stable")
    qid = c["query_id"][order]
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    sizes = np.diff(np.r_[starts, len(qid)])
    total = 0.0
    for size in np.unique(sizes):  # one batched call per group length
        first = starts[sizes == size]
        index = order[first[:, None] + np.arange(size)]
        total += ndcg_score(c["rel"][index], c["score"][index], k=K) * len(first)
    value = total / len(starts)
    _stop(start)
    return value


def _pytrec_eval(paths: dict[str, Path], memory_limit: str | None) -> float:
    import pytrec_eval

    start = time.perf_counter()
    c = _columns(paths["judged"], ["query_id", "item_id", "score", "rel"])
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, i, s, r in zip(
        c["query_id"].tolist(), c["item_id"].tolist(), c["score"].tolist(), c["rel"].tolist()
    ):
        q, i = str(q), str(i)
        qrels.setdefault(q, {})[i] = r
        run.setdefault(q, {})[i] = s
    scores = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{K}"}).evaluate(run)
    value = sum(m[f"ndcg_cut_{K}"] for m in scores.values()) / len(scores)
    _stop(start)
    return value


def _ranx(paths: dict[str, Path], memory_limit: str | None) -> float:
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    start = time.perf_counter()
    df = pd.read_parquet(paths["judged"], columns=["query_id", "item_id", "score", "rel"])
    # ranx orders equal scores by an unstable argsort (arbitrary); a tie-free key gives it
    # trec_eval's order: scores have 3 decimals and item ids 6 digits, so this is exact in a double.
    df["score"] = (df["score"] * 1000).round() * 1e6 + df["item_id"]
    df["query_id"] = df["query_id"].astype(str).astype(object)  # ranx wants object-dtype ids
    df["item_id"] = df["item_id"].astype(str).astype(object)
    df["rel"] = df["rel"].astype("int64")
    qrels = Qrels.from_df(df, q_id_col="query_id", doc_id_col="item_id", score_col="rel")
    run = Run.from_df(df, q_id_col="query_id", doc_id_col="item_id", score_col="score")
    value = float(evaluate(qrels, run, f"ndcg@{K}"))
    _stop(start)
    return value


# ---------------------------------------------------------------------------------------------

SYSTEMS = [
    System(
        "ndcg@10",
        "project",
        AVERAGE,
        _sql(_PER_QUERY.format(expr=f"ndcg(rel, -score, {K})")),
        note="ndcg(rel, -score, 10) grouped by query; ties averaged",
    ),
    System(
        "ndcg@10 ties=key",
        "project",
        KEY,
        _sql(_PER_QUERY.format(expr=f"ndcg(rel, -score, {K}, ties := 'key', tie_key := item_id)")),
        note="ties broken by item_id descending (trec_eval order)",
    ),
    System(
        "ndcg full depth",
        "project",
        None,
        _sql(_PER_QUERY.format(expr="ndcg(rel, -score)")),
        note="k NULL: whole ranking; compare with the sorted-lists floor",
    ),
    System(
        "ndcg_report@10",
        "project",
        KEY,
        _sql(f"SELECT avg(ndcg) FROM ndcg_report('rankings', 'events', k := {K})"),
        note="from raw events; positions follow the trec_eval order",
    ),
    System(
        "ndcg_summary@10",
        "project",
        KEY,
        _sql(
            f"SELECT sum(mean_ndcg * queries) / sum(queries) "
            f"FROM ndcg_summary('rankings', 'events', k := {K})"
        ),
        note="mean NDCG@10 with its t-interval, from raw events",
    ),
    System(
        "compare_rankers@10",
        "project",
        KEY,
        _sql(f"SELECT avg(ndcg_a) FROM compare_rankers('rankings', 'rankings_b', 'events', k := {K})"),
        note="two rankers (here the same one twice) side by side per query, from raw events",
    ),
    System(
        "run_report@10",
        "project",
        AVERAGE,
        _sql(f"SELECT avg(value) FROM run_report('judged_rnk', k := {K})"),
        note="judged run (query, item, rel, rnk = -score) in long format; ties averaged",
    ),
    System(
        "portable SQL@10",
        "project",
        AVERAGE,
        _portable,
        note="duckdb_ndcg.portable.to_sql('ndcg', 'duckdb', ...) run on DuckDB",
    ),
    System(
        "floor: column scan",
        "floor",
        None,
        _sql("SELECT count(*) + sum(query_id) + sum(item_id) + sum(score) + sum(rel) FROM judged"),
        note="read the four columns",
    ),
    System(
        "floor: top-k",
        "floor",
        None,
        _sql(
            f"SELECT sum(list_sum(a)) + sum(list_sum(b)) FROM (SELECT query_id, "
            f"max_by(rel, score, {K}) AS a, max(rel, {K}) AS b FROM judged GROUP BY query_id)"
        ),
        note="top-10 grades by score and top-10 grades per query",
    ),
    System(
        "floor: sorted lists",
        "floor",
        None,
        _sql(
            "SELECT sum(list_sum(l)) FROM (SELECT query_id, list(rel ORDER BY score DESC) "
            "AS l FROM judged GROUP BY query_id)"
        ),
        note="each query's whole list of grades sorted by score",
    ),
    System(
        "floor: report join",
        "floor",
        None,
        _sql(
            "SELECT sum(d) FROM (SELECT r.query_id, "
            "sum(coalesce(g.grade, 0) / log2(r.position + 1)) AS d FROM rankings r "
            f"LEFT JOIN (SELECT query_id, item_id, max({_GRADE}) AS grade FROM events "
            "GROUP BY ALL) g USING (query_id, item_id) GROUP BY r.query_id)"
        ),
        note="events -> grades, joined to rankings, summed per query",
    ),
    System("polars", "peer", KEY, _polars, note="lazy scan, top_k_by per query"),
    System("numpy", "peer", KEY, _numpy, note="lexsort + reduceat"),
    System("pandas", "peer", KEY, _pandas, note="sort_values + groupby cumcount"),
    System(
        "scikit-learn",
        "peer",
        AVERAGE,
        _sklearn,
        note="ndcg_score batched by equal-length groups; ties averaged",
    ),
    System(
        "pytrec_eval",
        "peer",
        KEY,
        _pytrec_eval,
        max_rows=10_000_000,
        note="ndcg_cut.10; dicts of str ids built in the timing",
    ),
    System(
        "ranx",
        "peer",
        KEY,
        _ranx,
        max_rows=10_000_000,
        note="Qrels/Run.from_df + evaluate; numba JIT (cached) included; tie-free score key",
    ),
]
BY_NAME = {s.name: s for s in SYSTEMS}
REFERENCE = {AVERAGE: "ndcg@10", KEY: "ndcg@10 ties=key"}


def _stop(start: float) -> None:
    global _ELAPSED
    _ELAPSED = time.perf_counter() - start


_ELAPSED = float("nan")


def _paths(rows: int) -> dict[str, Path]:
    return {name: DATA / f"{name}_{rows}.parquet" for name in ("judged", "rankings", "events")}


def worker(name: str, rows: int, memory_limit: str | None) -> None:
    """Child process: run one system once and print one JSON line."""
    value = BY_NAME[name].run(_paths(rows), memory_limit)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": _ELAPSED, "mean": value, "peak_mib": peak_kib / 1024}))


def _available(system: System, rows: int) -> str | None:
    """Why the system cannot run on this data (None when it can)."""
    if system.max_rows is not None and rows > system.max_rows:
        return f"skipped above {system.max_rows:,} rows"
    if system.name == "ndcg_report@10" and not _has_macro("ndcg_report"):
        return "ndcg_report macro not found"
    if system.name == "portable SQL@10":
        try:
            if _portable_sql() is None:
                return "duckdb_ndcg.portable not found"
        except (AttributeError, TypeError, ValueError) as exc:  # a to_sql signature we do not know
            return f"portable.to_sql failed: {exc}"
    return None


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS}
    env["PYTHONWARNINGS"] = "ignore"
    return env


def measure(name: str, rows: int, memory_limit: str | None, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, "--rows", str(rows)]
    if memory_limit:
        cmd += ["--memory-limit", memory_limit]
    cmd += _CHILD_ARGS
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=_child_env(),
            cwd=HERE.parent,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        tail = next((x for x in reversed(lines) if "Error" in x), lines[-1])
        return {"error": f"exit {done.returncode}: {tail[:300]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def machine() -> dict[str, str]:
    import duckdb

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    facts = {
        "nproc": str(os.cpu_count()),
        "memory": f"{mem:.1f} GiB",
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
    }
    for dist in ("polars", "numpy", "pandas", "scikit-learn", "pytrec-eval-terrier", "ranx"):
        try:
            facts[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            facts[dist] = "missing"
    facts["BLAS"] = _blas_kernel()
    facts["macros at commit"] = _commit()
    return facts


def _commit() -> str:
    """The checkout's commit, marked when sql/ or the package has uncommitted changes (what was
    measured); benchmarks/spark.py uses it too."""
    git = ["git", "-C", str(HERE.parent)]
    head = subprocess.run(
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--", "sql", "duckdb_ndcg"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (head or "unknown") + (" + uncommitted sql/ or package changes" if dirty else "")


def _blas_kernel() -> str:
    code = (
        "from threadpoolctl import threadpool_info; import numpy; "
        "print(', '.join(f\"{i['internal_api']} {i.get('architecture')}\" "
        "for i in threadpool_info()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_child_env(), check=False
    )
    return done.stdout.strip() or "unknown"


def _fmt(x: float | None, spec: str) -> str:
    return "—" if x is None or math.isnan(x) else format(x, spec)


def table(
    rows: int, results: dict[str, dict], reps: int, command: str, memory_limit: str | None
) -> str:
    """The Markdown report of one run."""

    def med(name: str) -> float | None:
        r = results.get(name)
        return r["median"] if r and "median" in r else None

    base, floor = med("ndcg@10"), med("floor: top-k")
    lines = [
        f"# Mean NDCG@{K} over queries, {rows:,} rows ({rows // 100:,} queries x 100 candidates)",
        "",
        f"Command: `{command}`",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()),
        "",
        f"Median of {reps} runs, each in its own process, systems interleaved round-robin; seconds "
        "from reading the Parquet file to the mean (imports and connection setup excluded). "
        "Peak RSS is the child's maximum resident set, Python interpreter and imports included. "
        f"The children run without {' and '.join(BLAS_VARS)} (unset for this command only)."
        + (f" DuckDB `memory_limit = '{memory_limit}'`." if memory_limit else ""),
        "",
        (
            "| system | kind | rows | median s | min s | x ndcg@10 | x top-k floor | peak RSS MiB "
            "| mean NDCG@10 | check | note |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for s in SYSTEMS:
        r = results.get(s.name)
        if r is None:
            continue
        if "median" not in r:
            lines.append(
                f"| {s.name} | {s.kind} | {rows:,} | — | — | — | — | — | — | {r['error']} | {s.note} |"
            )
            continue
        m = r["median"]
        lines.append(
            f"| {s.name} | {s.kind} | {rows:,} | {m:.3f} | {min(r['seconds']):.3f} | "
            f"{_fmt(m / base if base else None, '.2f')} | "
            f"{_fmt(m / floor if floor else None, '.2f')} | {r['peak_mib']:.0f} | "
            f"{_fmt(r.get('mean') if s.convention else None, '.12f')} | {r['check']} | {s.note} |"
        )
    lines += [
        "",
        (
            "Check: each NDCG@10 mean is compared with the project's under the same tie convention, "
            f"to {TOLERANCE:g}. `average` (scikit-learn, the project default): tied scores share "
            "the mean gain of their tie group. `key` (trec_eval): equal scores are ordered by item_id "
            "descending; pytrec_eval compares document ids as text, which equals numeric order "
            "because every item_id has six digits; ranx orders equal scores arbitrarily (numba "
            "argsort, not stable), so it gets the tie-free score round(1000 score) * 1e6 + item_id, "
            "which orders exactly like trec_eval; polars, numpy, pandas and ndcg_report (its positions "
            "were generated in that order) use that order. Full depth and the floors have no peer."
        ),
        "",
    ]
    return "\n".join(lines)


def _check(results: dict[str, dict]) -> None:
    for s in SYSTEMS:
        r = results.get(s.name)
        if r is None or "median" not in r:
            continue
        ref = results.get(REFERENCE.get(s.convention, ""), {}).get("mean")
        if s.convention is None:
            r["check"] = "—"
        elif ref is None or r.get("mean") is None:
            r["check"] = "no reference"
        else:
            diff = abs(r["mean"] - ref)
            ok = diff <= TOLERANCE
            r["check"] = f"{s.convention}: ok" if ok else f"{s.convention}: DIFFERS by {diff:.3g}"


def bench(
    rows: int,
    names: list[str],
    reps: int,
    memory_limit: str | None,
    timeout: float,
    out: Path | None,
    command: str,
) -> dict[str, dict]:
    paths = _paths(rows)
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        raise SystemExit(f"missing data {missing}: run python benchmarks/generate.py {rows}")
    results: dict[str, dict] = {}
    runnable = []
    for name in names:
        why = _available(BY_NAME[name], rows)
        if why:
            results[name] = {"error": why}
        else:
            runnable.append(name)
    samples: dict[str, list[dict]] = {n: [] for n in runnable}
    for rep in range(reps):
        for name in runnable:
            if samples[name] and "error" in samples[name][-1]:
                continue
            r = measure(name, rows, memory_limit, timeout)
            samples[name].append(r)
            shown = r.get("error") or f"{r['seconds']:.3f} s, {r['peak_mib']:.0f} MiB"
            print(f"[{rep + 1}/{reps}] {name}: {shown}", flush=True)
    for name, got in samples.items():
        ok = [r for r in got if "error" not in r]
        if len(ok) < len(got) or not ok:
            results[name] = {"error": got[-1]["error"]}
            continue
        results[name] = {
            "median": statistics.median(r["seconds"] for r in ok),
            "seconds": [r["seconds"] for r in ok],
            "peak_mib": max(r["peak_mib"] for r in ok),
            "mean": ok[0]["mean"],
        }
    _check(results)
    report = table(rows, results, reps, command, memory_limit)
    print(report)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report, encoding="utf-8")
        out.with_suffix(".json").write_text(
            json.dumps(
                {
                    "rows": rows,
                    "memory_limit": memory_limit,
                    "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
                    "results": results,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return results


def growth(out: Path) -> str:
    """Growth table from the saved ``results/<rows>.json`` files (no memory limit)."""
    runs = {}
    saved_runs = [json.loads(p.read_text(encoding="utf-8")) for p in RESULTS.glob("*.json")]
    for saved in sorted(saved_runs, key=lambda r: r.get("measured_at", "")):
        if "rows" in saved and saved.get("memory_limit") is None:
            runs.setdefault(saved["rows"], {}).update(saved["results"])
    sizes = sorted(runs)
    head = " | ".join(f"{n:,} rows s" for n in sizes)
    lines = [
        f"# How time grows with rows (median seconds, mean NDCG@{K})",
        "",
        (
            "From the saved `results/<rows>.json` of `run.py`; each column is its own run "
            "(compare ratios within a column, absolute seconds across columns only roughly)."
        ),
        "",
        f"| system | {head} | growth per 10x rows |",
        "|---|" + "---:|" * (len(sizes) + 1),
    ]
    for s in SYSTEMS:
        cells, meds = [], []
        for n in sizes:
            r = runs[n].get(s.name, {})
            skipped = s.max_rows is not None and n > s.max_rows
            cells.append(
                _fmt(r.get("median"), ".3f")
                if "median" in r
                else r.get("error", "skipped (too slow)" if skipped else "not run")
            )
            meds.append((n, r.get("median")))
        pairs = [(a, b) for a, b in itertools.pairwise(meds) if a[1] and b[1]]
        steps = ", ".join(f"{b[1] / a[1]:.1f}x" for a, b in pairs) or "—"
        lines.append(f"| {s.name} | " + " | ".join(cells) + f" | {steps} |")
    text = "\n".join(lines) + "\n"
    out.write_text(text, encoding="utf-8")
    return text


def main() -> None:
    global DATA, THREADS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--systems",
        nargs="+",
        default=[s.name for s in SYSTEMS],
        metavar="NAME",
        help="names from the table (default: all)",
    )
    parser.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 1GB")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all)")
    parser.add_argument(
        "--data", type=Path, default=DATA, help="folder of generate.py's files (benchmarks/data)"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per measurement")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="Markdown file (default results/<rows>.md, or "
        "results/<rows>-<limit>.md with --memory-limit)",
    )
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--growth", action="store_true", help="write results/growth.md")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    DATA, THREADS = args.data.resolve(), args.threads
    _CHILD_ARGS[:] = ["--data", str(DATA)] + (["--threads", str(THREADS)] if THREADS else [])
    if args.worker:
        worker(args.worker, args.rows, args.memory_limit)
        return
    if args.growth:
        print(growth(RESULTS / "growth.md"))
        return
    unknown = [n for n in args.systems if n not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown --systems {unknown}; choose from {list(BY_NAME)}")
    if args.reps < 1:
        raise SystemExit(f"--reps must be at least 1, got {args.reps}")
    out = args.out
    if out is None and not args.no_save:
        suffix = f"-{args.memory_limit}" if args.memory_limit else ""
        if DATA != (HERE / "data").resolve():  # another shape, e.g. benchmarks/data/page
            suffix = f"-{DATA.name}{suffix}"
        out = RESULTS / f"{args.rows}{suffix}.md"
    command = "python benchmarks/run.py " + " ".join(sys.argv[1:])
    bench(args.rows, args.systems, args.reps, args.memory_limit, args.timeout, out, command)


if __name__ == "__main__":
    main()
