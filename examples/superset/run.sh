#!/usr/bin/env bash
# The Superset lane, opt-in: installs Apache Superset 6.1 in its own venv (kept in
# ${DUCKDB_NDCG_CACHE:-~/.cache/duckdb_ndcg}/superset-6.1), starts it on 127.0.0.1 and checks the
# recipe's chart and SQL Lab numbers against ndcg_summary. Run from a set-up checkout (.venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-.venv/bin/python}
export DUCKDB_NDCG_SUPERSET=1
start=$(date +%s)
"$PYTHON" -m pytest -q -p no:cacheprovider tests/bi -m superset "$@"
echo "Superset lane: $(( $(date +%s) - start )) s"
