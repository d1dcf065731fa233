"""measures_report (the SQL macro) against duckdb_ndcg.measures.scores (the SQL that duckdb-ndcg
trec runs), one thread, on a judged run of ROWS rows (100 per query, a third judged, grades 0-3).

    python benchmarks/measures_sql.py [ROWS]     # ROWS: default 1000000

Prints, per measure string, the seconds of each and whether their values agree (to 1e-9).
"""

from __future__ import annotations

import sys
import time

import duckdb

import duckdb_ndcg
from duckdb_ndcg.measures import scores

STRINGS = ("NumQ", "nDCG@10", "AP", "nDCG@10 P@5 RR AP", "official")


def main(rows: int = 1_000_000) -> None:
    con = duckdb_ndcg.register(duckdb.connect())
    con.execute("SET threads = 1")
    con.execute(
        "CREATE TABLE judged AS SELECT 'q' || (i // 100) AS query_id, 'd' || (i % 100) AS item_id, "
        "CASE WHEN hash(i) % 3 = 0 THEN (hash(i) % 4)::DOUBLE END AS rel, "
        "(i % 100 + 1)::DOUBLE AS rnk FROM range(?) t(i)", [rows])
    for text in STRINGS:
        start = time.perf_counter()
        sql = con.execute("SELECT query_id, measure, value FROM measures_report('judged', ?)",
                          [text]).fetchall()
        sql_seconds = time.perf_counter() - start
        start = time.perf_counter()
        python = scores(con, "judged", text).fetchall()
        python_seconds = time.perf_counter() - start
        mine = {(q, m): v for q, m, v in sql}
        agree = len(mine) == len(python) and all(
            abs(mine[q, m] - v) <= 1e-9 for q, m, v in python)
        print(f"{text}: measures_report {sql_seconds:.1f} s, scores {python_seconds:.1f} s, "
              f"{len(sql)} values, agree: {agree}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
