#!/bin/sh
# The DuckDB command-line client reading a file the macros were installed into: no Python needed
# at query time. Usage: examples/duckdb_cli.sh [work-dir]  (needs `duckdb-ndcg` and `duckdb`).
set -eu
dir="${1:-$(mktemp -d)}"
duckdb-ndcg install "$dir/metrics.duckdb"   # DuckDB 1.4 storage by default: any 1.4+ CLI opens it
duckdb "$dir/metrics.duckdb" <<'SQL'
CREATE OR REPLACE TABLE shown AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 2)) t(query_id, item_id, position);
CREATE OR REPLACE TABLE events AS SELECT * FROM (VALUES ('q1', 'b', 'purchase')) t(query_id, item_id, event_type);
.mode csv
SELECT query_id, k, round(ndcg, 6) AS ndcg FROM ndcg_report('shown', 'events', k := 2);
SQL
