"""The Segment adapter's cost: segment_rankings, segment_events and ndcg_report on generated
Segment ecommerce track calls (issue 22). A script, not a test.

    python benchmarks/segment_adapter.py --users 25000

Per user 4 searches, each one 'Products Searched', two 'Product List Viewed' pages of 10 products
(0-based positions, the second page starting again), a 'Product Clicked' on a shown product and,
every second search, an 'Order Completed' of that product and one never shown: 18 calls per user.
properties is the STRUCT read_json makes of Segment's JSON (``--json``: the JSON type, as when
the documents disagree). Each step once, wall seconds, threads as DuckDB sets them unless
``--threads``. Writes ``benchmarks/results/segment_adapter_<calls>.md``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import duckdb

import duckdb_ndcg

HERE = Path(__file__).resolve().parent

GENERATE = """
CREATE TABLE tracks AS
WITH s AS (SELECT u, k, TIMESTAMP '2023-11-14' + INTERVAL (u * 10 + k * 100000) SECOND AS t0
           FROM range({users}) a(u), range(4) b(k))
SELECT * FROM (
  SELECT 'track' AS type, 'Products Searched' AS event, 'u' || u AS userId,
         'a' || u AS anonymousId, 'm' || u || '-' || k || '-s' AS messageId,
         strftime(t0, '%Y-%m-%dT%H:%M:%S.000Z') AS timestamp,
         {{'query': 'q' || (u % 500), 'list_id': NULL, 'products': NULL, 'product_id': NULL,
           'price': NULL, 'quantity': NULL}} AS properties,
         {{'device': {{'type': 'mobile'}}}} AS context FROM s
  UNION ALL
  SELECT 'track', 'Product List Viewed', 'u' || u, 'a' || u, 'm' || u || '-' || k || '-p' || p,
         strftime(t0 + INTERVAL (p) SECOND, '%Y-%m-%dT%H:%M:%S.000Z'),
         {{'query': NULL, 'list_id': 'search_results',
           'products': [{{'product_id': 'p' || ((u * 7 + k * 13 + p * 10 + i) % 5000),
                          'position': i, 'price': 10.0, 'quantity': NULL}} for i in range(10)],
           'product_id': NULL, 'price': NULL, 'quantity': NULL}},
         {{'device': {{'type': 'mobile'}}}} FROM s, range(1, 3) c(p)
  UNION ALL
  SELECT 'track', 'Product Clicked', 'u' || u, 'a' || u, 'm' || u || '-' || k || '-c',
         strftime(t0 + INTERVAL 30 SECOND, '%Y-%m-%dT%H:%M:%S.000Z'),
         {{'query': NULL, 'list_id': NULL, 'products': NULL,
           'product_id': 'p' || ((u * 7 + k * 13 + 13) % 5000), 'price': 10.0,
           'quantity': NULL}},
         {{'device': {{'type': 'mobile'}}}} FROM s
  UNION ALL
  SELECT 'track', 'Order Completed', 'u' || u, 'a' || u, 'm' || u || '-' || k || '-o',
         strftime(t0 + INTERVAL 300 SECOND, '%Y-%m-%dT%H:%M:%S.000Z'),
         {{'query': NULL, 'list_id': NULL,
           'products': [{{'product_id': 'p' || ((u * 7 + k * 13 + 13) % 5000), 'position': NULL,
                          'price': 10.0, 'quantity': 1}},
                        {{'product_id': 'never', 'position': NULL, 'price': 1.0,
                          'quantity': 1}}],
           'product_id': NULL, 'price': NULL, 'quantity': NULL}},
         {{'device': {{'type': 'mobile'}}}} FROM s WHERE k % 2 = 0
)
"""

STEPS = [
    ("segment_rankings", "CREATE TABLE shown AS FROM segment_rankings('tracks')"),
    ("segment_events", "CREATE TABLE events AS FROM segment_events('tracks')"),
    ("segment_unattributed",
     ("CREATE TABLE missed AS SELECT reason, count(*) AS n FROM segment_unattributed('tracks') "
     "GROUP BY reason")),
    ("ndcg_report", "CREATE TABLE report AS FROM ndcg_report('shown', 'events', k := 10)"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=25_000)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--json", action="store_true", help="properties as JSON, not a STRUCT")
    args = parser.parse_args()
    con = duckdb_ndcg.register(duckdb.connect())
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    con.execute(GENERATE.format(users=args.users))
    if args.json:
        con.execute("CREATE OR REPLACE TABLE tracks AS "
                    "SELECT * REPLACE (properties::JSON AS properties) FROM tracks")
    calls = con.sql("SELECT count(*) FROM tracks").fetchall()[0][0]
    rows = []
    for name, statement in STEPS:
        start = time.perf_counter()
        con.execute(statement)
        rows.append((name, time.perf_counter() - start))
    shown, events = (con.sql(f"SELECT count(*) FROM {t}").fetchall()[0][0]
                     for t in ("shown", "events"))
    missed = dict(con.sql("SELECT reason, n FROM missed").fetchall())
    mean = con.sql("SELECT avg(ndcg) FROM report").fetchall()[0][0]
    threads = con.sql("SELECT current_setting('threads')").fetchall()[0][0]
    lines = [
        f"# Segment adapter, {calls:,} track calls (benchmarks/segment_adapter.py)", "",
        (f"DuckDB {duckdb.__version__}, {threads} thread(s), properties as "
        f"{'JSON' if args.json else 'a STRUCT'}, each step once, wall seconds; {shown:,} shown "
        f"rows, {events:,} attributed events, unattributed {missed}; mean NDCG@10 {mean:.6f}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."), "",
        "| step | seconds |", "|---|---|",
        *(f"| {name} | {seconds:.2f} |" for name, seconds in rows),
    ]
    suffix = "-json" if args.json else ""
    out = HERE / "results" / f"segment_adapter_{calls}{suffix}.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
