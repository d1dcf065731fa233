"""Candidate SQL formulations of exact NDCG@10 with averaged ties, timed on DuckDB.

Averaged ties (scikit-learn, McSherry & Najork): items with equal scores share the mean gain of
their whole tie group, also when the group straddles position k. Each formulation returns one row
per query (``query_id``, ``ndcg``) from the view ``judged`` (query_id, item_id, score, rel); linear
gain. The script (1) checks every formulation per query against scikit-learn ``ndcg_score`` on
tie-heavy queries (2 to 30 items, integer scores 0..4, so most tie groups straddle
position 10), (2) times them,
interleaved, on ``judged_<rows>.parquet`` together with the top-k floor, and writes
``results/formulations.md``.

Example::

    python benchmarks/formulations.py --rows 10000000 --reps 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np

import duckdb_ndcg

HERE = Path(__file__).resolve().parent
K = 10

# IDCG@10 from the ten best grades (max(rel, n) lists them best first).
_IDCG = "list_sum(list_transform(max(rel, 10), lambda g, p: g / log2(p + 1)))"

FORMULATIONS: dict[str, tuple[str, str]] = {
    "a. current macro": (
        "SELECT query_id, ndcg(rel, -score, 10) AS ndcg FROM judged GROUP BY query_id",
        "the project's ndcg aggregate as it is now",
    ),
    "b. window functions": (
        """
        WITH w AS (
            SELECT query_id, rel,
                   row_number() OVER (PARTITION BY query_id ORDER BY score DESC) AS pos,
                   avg(rel) OVER (PARTITION BY query_id, score) AS tie_gain,
                   row_number() OVER (PARTITION BY query_id ORDER BY rel DESC) AS ipos
            FROM judged)
        SELECT query_id,
               coalesce(sum(tie_gain / log2(pos + 1)) FILTER (WHERE pos <= 10)
                        / nullif(sum(rel / log2(ipos + 1)) FILTER (WHERE ipos <= 10), 0), 0)
                   AS ndcg
        FROM w GROUP BY query_id
        """,
        "row_number for positions, avg() OVER (query, score) for the tie group's mean gain",
    ),
    "c. sorted lists": (
        f"""
        WITH l AS (
            SELECT query_id, list({{'s': score, 'g': rel}} ORDER BY score DESC) AS l,
                   {_IDCG} AS idcg
            FROM judged GROUP BY query_id)
        SELECT query_id, coalesce(
            list_sum(list_transform(list_slice(l, 1, 10), lambda x, p:
                list_avg(list_transform(list_filter(l, lambda y: y.s = x.s), lambda y: y.g))
                / log2(p + 1)))
            / nullif(idcg, 0), 0) AS ndcg
        FROM l
        """,
        "whole sorted list per query; each of the top 10 takes its tie group's mean",
    ),
    "d. top-N only (inexact)": (
        f"""
        WITH t AS (
            SELECT query_id, max_by({{'s': score, 'g': rel}}, score, 11) AS t, {_IDCG} AS idcg
            FROM judged GROUP BY query_id)
        SELECT query_id, coalesce(
            list_sum(list_transform(list_slice(t, 1, 10), lambda x, p:
                list_avg(list_transform(list_filter(t, lambda y: y.s = x.s), lambda y: y.g))
                / log2(p + 1)))
            / nullif(idcg, 0), 0) AS ndcg
        FROM t
        """,
        "max_by(.., 11) + max(rel, 10); ties averaged inside the top 11 only",
    ),
    "e. top-N + boundary pass": (
        f"""
        WITH t AS (
            SELECT query_id, max_by({{'s': score, 'g': rel}}, score, 11) AS t, {_IDCG} AS idcg
            FROM judged GROUP BY query_id),
        boundary AS (
            SELECT query_id, t[10].s AS s10 FROM t
            WHERE len(t) > 10 AND t[10].s = t[11].s),
        grp AS (
            SELECT j.query_id, avg(j.rel) AS mean_gain
            FROM judged j JOIN boundary b ON j.query_id = b.query_id AND j.score = b.s10
            GROUP BY j.query_id)
        SELECT t.query_id, coalesce(
            list_sum(list_transform(list_slice(t.t, 1, 10), lambda x, p:
                CASE WHEN x.s = b.s10 THEN g.mean_gain
                     ELSE list_avg(list_transform(list_filter(t.t, lambda y: y.s = x.s),
                                                  lambda y: y.g)) END
                / log2(p + 1)))
            / nullif(t.idcg, 0), 0) AS ndcg
        FROM t LEFT JOIN boundary b USING (query_id) LEFT JOIN grp g USING (query_id)
        """,
        "d, plus a second scan joined to the queries whose tie group straddles position 10",
    ),
    "f. tie groups then top-N": (
        f"""
        WITH grp AS (
            SELECT query_id, score, count(*) AS c, avg(rel) AS mean_gain
            FROM judged GROUP BY query_id, score),
        top AS (
            SELECT query_id, max_by({{'c': c, 'm': mean_gain}}, score, 10) AS t
            FROM grp GROUP BY query_id),
        ideal AS (SELECT query_id, {_IDCG} AS idcg FROM judged GROUP BY query_id)
        SELECT query_id, coalesce(
            list_sum(list_transform(t, lambda x, i:
                x.m * coalesce(list_sum(list_transform(
                    range((1 + coalesce(list_sum(list_transform(list_slice(t, 1, i - 1),
                                                                lambda y: y.c)), 0))::BIGINT,
                          least(1 + coalesce(list_sum(list_transform(list_slice(t, 1, i),
                                                                     lambda y: y.c)), 0),
                                11)::BIGINT),
                    lambda p: 1 / log2(p + 1))), 0)))
            / nullif(idcg, 0), 0) AS ndcg
        FROM top JOIN ideal USING (query_id)
        """,
        "GROUP BY (query, score) first, then the 10 best tie groups; ideal in a second aggregate",
    ),
    "g. two top-N lists + boundary pass": (
        f"""
        WITH t AS (
            SELECT query_id, max_by(rel, score, 11) AS g, max(score, 11) AS s, {_IDCG} AS idcg
            FROM judged GROUP BY query_id),
        boundary AS (
            SELECT query_id, s[10] AS s10 FROM t WHERE len(s) > 10 AND s[10] = s[11]),
        grp AS (
            SELECT j.query_id, avg(j.rel) AS mean_gain
            FROM judged j JOIN boundary b ON j.query_id = b.query_id AND j.score = b.s10
            GROUP BY j.query_id)
        SELECT t.query_id, coalesce(CASE
            WHEN len(list_distinct(t.s)) = len(t.s) THEN
                list_sum(list_transform(list_slice(t.g, 1, 10), lambda x, p: x / log2(p + 1)))
            ELSE list_sum(list_transform(list_slice(t.g, 1, 10), lambda x, p:
                CASE WHEN t.s[p] = b.s10 THEN grp.mean_gain
                     ELSE list_avg(list_filter(t.g, lambda y, j: t.s[j] = t.s[p])) END
                / log2(p + 1)))
            END / nullif(t.idcg, 0), 0) AS ndcg
        FROM t LEFT JOIN boundary b USING (query_id) LEFT JOIN grp USING (query_id)
        """,
        (
            "e without structs: max_by(rel, score, 11) and max(score, 11) (both score-descending), "
            "a no-tie fast path, the boundary pass only for straddling tie groups"
        ),
    ),
    "h. single pass: top-N lists + all keys": (
        f"""
        WITH t AS (
            SELECT query_id, max_by(rel, score, 11) AS g, max(score, 11) AS s,
                   list(score) AS all_s,
                   list({{'s': score, 'g': rel}}) FILTER (WHERE rel > 0) AS positive,
                   {_IDCG} AS idcg
            FROM judged GROUP BY query_id)
        SELECT query_id, coalesce(CASE
            WHEN len(list_distinct(s)) = len(s) THEN
                list_sum(list_transform(list_slice(g, 1, 10), lambda x, p: x / log2(p + 1)))
            ELSE list_sum(list_transform(list_slice(g, 1, 10), lambda x, p:
                CASE WHEN len(s) > 10 AND s[p] = s[10] AND s[10] = s[11] THEN
                    coalesce(list_sum(list_transform(list_filter(positive, lambda y: y.s = s[10]),
                                                     lambda y: y.g)), 0)
                    / len(list_filter(all_s, lambda y: y = s[10]))
                ELSE list_avg(list_filter(g, lambda y, j: s[j] = s[p])) END
                / log2(p + 1)))
            END / nullif(idcg, 0), 0) AS ndcg
        FROM t
        """,
        (
            "g in one aggregate pass: the boundary group's size from list(score) of every row and "
            "its gain from the positive rows (unbounded state, as an aggregate macro must keep)"
        ),
    ),
    "i. top keys + gained rows + all keys": (
        """
        WITH t AS (
            SELECT query_id, min(-score, 11) AS keys, list(-score) AS all_keys,
                   list({'r': -score, 'g': rel}) FILTER (WHERE rel > 0) AS gained,
                   max(rel, 10) FILTER (WHERE rel > 0) AS ideal, least(10, count(*)) AS m
            FROM judged GROUP BY query_id),
        b AS (
            SELECT *, keys[m] AS km, len(keys) > m AND keys[m + 1] = keys[m] AS straddle FROM t)
        SELECT query_id, coalesce(list_sum(list_transform(list_filter(gained, lambda x: x.r <= km),
            lambda x: CASE
                WHEN straddle AND x.r = km THEN x.g
                    * list_sum(list_transform(range(list_position(keys, km), m + 1),
                                              lambda q: 1 / log2(q + 1)))
                    / len(list_filter(all_keys, lambda y: y = km))
                WHEN keys[list_position(keys, x.r) + 1] IS DISTINCT FROM x.r THEN
                    x.g / log2(list_position(keys, x.r) + 1)
                ELSE x.g * list_avg(list_transform(
                    range(list_position(keys, x.r), len(keys) + 2 - list_position(list_reverse(keys), x.r)),
                    lambda q: 1 / log2(q + 1)))
            END)) / nullif(list_sum(list_transform(ideal, lambda x, p: x / log2(p + 1))), 0), 0)
            AS ndcg
        FROM b
        """,
        (
            "h placed by key: the top 11 rank keys, the rows with a gain (each at its key's "
            "position, a tied row at its group's mean discount), every key for a straddling group"
        ),
    ),
    "floor: top-k": (
        (
            "SELECT query_id, list_sum(max_by(rel, score, 10)) + list_sum(max(rel, 10)) AS ndcg "
            "FROM judged GROUP BY query_id"
        ),
        "not an NDCG: the top-10 grades by score and overall, per query",
    ),
}


NOTES = """
## Findings

- Exact on tie-heavy data (to about 3e-16): a, b, c, e, f, g, h, i. Not exact: d, which averages a
  tie group only over its members inside the top 11, so a group straddling position 10 gets the
  wrong mean (error up to about 0.1 per query on the tie-heavy data; 1e-7 on the mean of the
  benchmark data, where about 5 % of queries have a tie across positions 10 and 11 and 29 % a
  tie somewhere in their top 11).
- No single pass with bounded state can be exact: the tie group at position 10 can be any size
  and its score (the 10th best) is known only after the whole group has been read, so its size
  and gain sum cannot be accumulated on the way. Exactness needs either unbounded per-query state
  (whole sorted lists: a, c; or, cheaper, the unsorted keys of every row plus the positive rows:
  h), a pre-aggregation by (query, score) (f: a hash aggregate with about one group per row,
  slower than the lists), or a second pass limited to the queries whose top 11 ends in a tie
  (e, g): a join of the data with the few (query, 10th score) pairs.
- An aggregate macro (`ndcg(rel, rnk, 10)` under the user's GROUP BY) is one expression, so it
  cannot run a second pass: h and i are the shapes it can take. A table macro (ndcg_report, or
  any macro that reads the table itself) can take g.
- The top-N aggregates do not sort whole groups, which is what makes d, e, g and h fast. A struct
  payload in max_by ({s, g}) costs more than two plain top-N lists (max_by(rel, score, 11) and
  max(score, 11), both in score-descending order, so position p of one matches position p of the
  other up to the order inside a tie group, which averaging ignores): g is e without the struct.
- What is left between g and the floor: the 11th element, the score list, the IDCG lambda, the
  tie check and the second scan for boundary ties.
- i is the shape the ndcg aggregate now takes (a. adds the input checks and the other gains and
  conventions): no grade list at all. DCG@10 is summed over the rows with a gain, each placed by
  its key in the top 11 keys (list_position), so the common row costs one lookup and only a
  tied row averages discounts; there is no per-position tie scan. Most grades are 0, so the
  gained rows are few. i reads the ideal with a heap over positive grades; the macro sorts the
  gains of the same gained rows instead (judged rows it did not return among them), which
  needs no aggregate of its own.
"""


def _commit() -> str:
    """The checkout's commit, marked dirty when sql/ has uncommitted changes."""
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "sql"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return (head or "unknown") + (" + uncommitted sql/ changes" if dirty else "")


def _connect(path: Path | None, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    con = duckdb_ndcg.register(duckdb.connect())
    if memory_limit is not None:
        spill = HERE / "data" / "spill"
        spill.mkdir(parents=True, exist_ok=True)
        con.execute("SET memory_limit = ?", [memory_limit])
        con.execute("SET temp_directory = ?", [str(spill)])
    if path is not None:
        literal = "'" + str(path).replace("'", "''") + "'"
        con.execute(f"CREATE VIEW judged AS SELECT * FROM read_parquet({literal})")
    return con


def exactness(n_queries: int = 3000, length: int = 30, seed: int = 7) -> dict[str, float]:
    """Largest per-query difference from scikit-learn on tie-heavy queries, per formulation."""
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, length + 1, size=n_queries)  # some shorter than k + 1
    qid = np.repeat(np.arange(n_queries), sizes)
    score = rng.integers(0, 5, size=qid.size).astype(np.float64)
    rel = rng.choice(4, size=qid.size, p=(0.6, 0.2, 0.15, 0.05))
    item = np.arange(qid.size)
    truth = np.array(
        [
            ndcg_score(rel[qid == q][None, :], score[qid == q][None, :], k=K)
            for q in range(n_queries)
        ]
    )
    con = _connect(None)
    con.register("judged_df", {"query_id": qid, "item_id": item, "score": score, "rel": rel})
    con.execute("CREATE TABLE judged AS SELECT * FROM judged_df")
    out = {}
    for name, (sql, _) in FORMULATIONS.items():
        if name.startswith("floor"):
            continue
        got = dict(con.execute(f"SELECT query_id, ndcg FROM ({sql})").fetchall())
        out[name] = float(max(abs(got[q] - truth[q]) for q in range(n_queries)))
    return out


def timings(
    path: Path, reps: int, names: list[str], memory_limit: str | None = None
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names:
            con = _connect(path, memory_limit)
            start = time.perf_counter()
            try:
                con.execute(f"SELECT avg(ndcg), count(*) FROM ({FORMULATIONS[name][0]})").fetchone()
            except duckdb.OutOfMemoryException as exc:
                print(f"[{rep + 1}/{reps}] {name}: out of memory: {exc}", flush=True)
                times[name].append(float("nan"))
                continue
            finally:
                con.close()
            times[name].append(time.perf_counter() - start)
            print(f"[{rep + 1}/{reps}] {name}: {times[name][-1]:.3f} s", flush=True)
    return times


def means(path: Path) -> dict[str, float]:
    con = _connect(path)
    return {
        name: con.execute(f"SELECT avg(ndcg) FROM ({sql})").fetchone()[0]
        for name, (sql, _) in FORMULATIONS.items()
        if not name.startswith("floor")
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "formulations.md")
    parser.add_argument("--memory-limit", default=None, help="time only, under this limit")
    parser.add_argument("--only", nargs="+", default=list(FORMULATIONS), metavar="NAME")
    args = parser.parse_args()
    path = HERE / "data" / f"judged_{args.rows}.parquet"
    if not path.exists():
        raise SystemExit(f"missing {path}: run python benchmarks/generate.py {args.rows}")
    unknown = [n for n in args.only if n not in FORMULATIONS]
    if unknown:
        raise SystemExit(f"unknown --only {unknown}; choose from {list(FORMULATIONS)}")
    if args.memory_limit is not None:  # a quick check of which formulations spill or fail
        times = timings(path, args.reps, args.only, args.memory_limit)
        for name, got in times.items():
            print(f"{name}: {statistics.median(got):.3f} s under memory_limit {args.memory_limit}")
        return
    exact = exactness()
    print("max |diff| vs scikit-learn:", exact, flush=True)
    avg = means(path)
    times = timings(path, args.reps, list(FORMULATIONS))
    floor = statistics.median(times["floor: top-k"])
    ref = avg["a. current macro"]
    lines = [
        f"# Exact NDCG@{K} with averaged ties: SQL formulations on DuckDB {duckdb.__version__}",
        "",
        (
            f"Command: `python benchmarks/formulations.py {' '.join(sys.argv[1:])}`; macros of "
            f"commit {_commit()} (a. is the ndcg macro as it was then)."
        ),
        "",
        (
            f"Data: `judged_{args.rows}.parquet` ({args.rows:,} rows, 100 candidates per query, scores "
            "with 3 decimals). Median of "
            f"{args.reps} runs, interleaved, in one process (fresh connection per run); the "
            "top-k floor is `max_by(rel, score, 10)` and `max(rel, 10)` per query; the minimum "
            "over runs is shown too, as the machine is shared (others' tests add noise). Exactness: "
            "largest per-query |difference| from scikit-learn `ndcg_score(k=10)` on 3,000 tie-heavy "
            "queries (2 to 30 items, integer scores 0..4)."
        ),
        "",
        (
            "| formulation | median s | x top-k floor | min s | min x floor | max diff vs sklearn (ties) "
            "| mean - macro mean (bench data) | what it does |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, (_, what) in FORMULATIONS.items():
        med = statistics.median(times[name])
        diff = exact.get(name)
        dmean = avg[name] - ref if name in avg else None
        lines.append(
            f"| {name} | {med:.3f} | {med / floor:.2f} | {min(times[name]):.3f} | "
            f"{min(times[name]) / min(times['floor: top-k']):.2f} | "
            f"{'—' if diff is None else f'{diff:.2g}'} | "
            f"{'—' if dmean is None else f'{dmean:.2g}'} | {what} |"
        )
    text = "\n".join(lines) + "\n" + NOTES
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
