"""The event demo: a generated e-commerce log, two rankers, a comparison and the NDCG@k chart."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

import duckdb_ndcg
from duckdb_ndcg import chart, demo

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("ndcg_event_demo.html")
con = duckdb_ndcg.register(duckdb.connect())
demo.generate(con, queries=500)
print(con.sql("""SELECT * FROM ndcg_summary('demo_rankings', 'demo_events', k := [1, 5, 10],
                                              slice_by := ['ranker'])"""))
con.execute("CREATE VIEW a AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A'")
con.execute("CREATE VIEW b AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'B'")
print(con.sql("SELECT k, any_value(mean_diff) AS mean_b_minus_a, any_value(queries) AS queries "
              "FROM compare_rankers('a', 'b', 'demo_events', k := [5, 10]) GROUP BY k ORDER BY k"))
curve = con.sql("SELECT * FROM ndcg_report('demo_rankings', 'demo_events', k := range(1, 11), "
                "slice_by := ['ranker'])")
print("chart:", chart.write(out, chart.curve_series(curve, "ranker"), "NDCG@k per ranker")[0])
