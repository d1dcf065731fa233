"""What the click models cost: click_grades, position_bias and ips_estimate against the plain
GROUP BY of the same log.

    python benchmarks/clicks.py --pages 100000 --reps 3      # results/clicks.md (1M impressions)
    python benchmarks/clicks.py --pages 1000000 --reps 1 --dbn-pages 0 --out clicks_10M.md

DBN, whose E-step walks each page once per result, is timed on the first --dbn-pages pages.

Data (generated in memory, seed fixed): PAGES result pages of 10 positions, each for one of
PAGES / 10 queries whose pool holds 30 items with a hidden attractiveness; clicks drawn from a
position-based model (attractiveness / position). The IPS log is the same rows with a uniform
propensity 1/30 and a per-query policy giving each pool item probability 1/30 at each position.
Each measurement fully consumes its query (count and a sum), median of REPS interleaved runs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import duckdb

import duckdb_ndcg

HERE = Path(__file__).resolve().parent
PAGE = "session_col := 'session_id'"
SYSTEMS = {
    "plain GROUP BY (query, item)": (
        "SELECT count(*), sum(c) FROM (SELECT query_id, item_id, avg(click) c FROM log "
        "GROUP BY ALL)"),
    "click_grades coec": "SELECT count(*), sum(rel) FROM click_grades('log')",
    "click_grades ctr": "SELECT count(*), sum(rel) FROM click_grades('log', model := 'ctr')",
    "click_grades sdbn": f"SELECT count(*), sum(rel) FROM click_grades('log', model := 'sdbn', {PAGE})",
    "click_grades pbm (50 EM steps)": (
        f"SELECT count(*), sum(rel) FROM click_grades('log', model := 'pbm', {PAGE})"),
    "position_bias pivot": (
        "SELECT count(*), sum(propensity) FROM position_bias('log', method := 'pivot')"),
    "plain GROUP BY position (IPS log)": (
        "SELECT count(*), sum(c) FROM (SELECT position, avg(click / propensity_score) c "
        "FROM log GROUP BY ALL)"),
    "ips_estimate snips": (
        "SELECT count(*), sum(estimate) FROM ips_estimate('log', 'policy', estimator := 'snips', "
        "query_col := 'query_id')"),
}


def make(con: duckdb.DuckDBPyConnection, pages: int) -> None:
    queries = max(pages // 10, 1)
    con.execute("SELECT setseed(0.42)")
    con.execute(f"""CREATE TABLE pool AS SELECT 'q' || q AS query_id, 'd' || (q * 30 + j) AS item_id,
                    j AS slot, random() AS alpha FROM range({queries}) a(q), range(30) b(j)""")
    con.execute(f"""CREATE TABLE log AS
        WITH pages AS (SELECT p AS page, 'q' || (p % {queries}) AS query_id,
                              (p * 7) % 30 AS shift FROM range({pages}) t(p))
        SELECT 's' || page AS session_id, pages.query_id, pool.item_id, k + 1 AS position,
               (random() < pool.alpha / (k + 1))::INTEGER AS click, 1 / 30 AS propensity_score
        FROM pages, range(10) r(k)
        JOIN pool ON pool.query_id = pages.query_id AND pool.slot = (shift + k * 3) % 30""")
    con.execute("""CREATE TABLE policy AS SELECT query_id, item_id, position, 1 / 30 AS probability
                   FROM pool, range(1, 11) r(position)""")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=100000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--dbn-pages", type=int, default=10000,
                        help="DBN (quadratic per page, list_reduce per result) on this many pages")
    parser.add_argument("--out", default="clicks.md", help="the file written in results/")
    args = parser.parse_args()
    con = duckdb_ndcg.register(duckdb.connect())
    make(con, args.pages)
    rows = con.execute("SELECT count(*) FROM log").fetchone()[0]
    times: dict[str, list[float]] = {name: [] for name in SYSTEMS}
    for _ in range(args.reps):
        for name, sql in SYSTEMS.items():
            start = time.perf_counter()
            con.execute(sql).fetchall()
            times[name].append(time.perf_counter() - start)
    header = (f"duckdb {duckdb.__version__}, median of {args.reps} interleaved runs, in memory; "
              "see benchmarks/clicks.py.")
    lines = [f"# click models at {rows:,} impressions ({args.pages:,} pages of 10)", "", header,
             "", "| query | seconds |", "|---|---|"]
    lines += [f"| {name} | {statistics.median(t):.2f} |" for name, t in times.items()]
    if args.dbn_pages:
        con.execute(f"CREATE VIEW log_dbn AS SELECT * FROM log WHERE "
                    f"CAST(substr(session_id, 2) AS BIGINT) < {args.dbn_pages}")
        for model in ("pbm", "dbn"):
            start = time.perf_counter()
            con.execute(f"SELECT count(*), sum(rel) FROM click_grades('log_dbn', "
                        f"model := '{model}', {PAGE})").fetchall()
            lines.append(f"| click_grades {model}, first {args.dbn_pages:,} pages only (one run) "
                         f"| {time.perf_counter() - start:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    (HERE / "results" / args.out).write_text(text)


if __name__ == "__main__":
    main()
