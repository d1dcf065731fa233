"""The event-log report finishes under a small memory limit, with the numbers it gives without one.

The shape is a results page: many queries, ten results each, where per-query state dominates
(issue 13 measures 20M events of 2M queries under 500MB; this is the same shape at 1/10 of the
size and limit). Each case runs in a fresh process, so the limit and the spill folder are its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

# DuckDB 1.4 spills the window and hash aggregates less: measured with these 2M events, 1.4.5
# runs out under 150MB and finishes under 300MB, not always (1.5 and 2.0 finish under 100MB)
LIMIT = "400MB" if tuple(int(p) for p in duckdb.__version__.split(".")[:2]) < (1, 5) else "150MB"

SCRIPT = textwrap.dedent(
    """
    import json, sys, duckdb, duckdb_ndcg
    folder, limit = sys.argv[1], sys.argv[2]
    con = duckdb_ndcg.register(duckdb.connect())
    con.execute("SET threads = 2")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET temp_directory = '{folder}/spill'")
    # 200,000 queries x 10 shown items; two rankers; clicks, carts and purchases on 1 in 7 items
    con.execute(f'''COPY (SELECT i // 10 AS query_id, (i * 7919) % 1000003 AS item_id,
                         i % 10 + 1 AS position, ['app', 'web'][i // 10 % 2 + 1] AS device
                         FROM range(2000000) t(i)) TO '{folder}/a.parquet' ''')
    con.execute(f'''COPY (SELECT query_id, item_id, 11 - position AS position, device
                         FROM '{folder}/a.parquet') TO '{folder}/b.parquet' ''')
    con.execute(f'''COPY (SELECT query_id, item_id, 'impression' AS event_type FROM '{folder}/a.parquet'
                         UNION ALL
                         SELECT query_id, item_id,
                                ['click', 'add_to_cart', 'purchase'][(hash(item_id) % 3)::BIGINT + 1]
                         FROM '{folder}/a.parquet' WHERE hash(item_id * 31) % 7 = 0)
                   TO '{folder}/events.parquet' ''')
    for name in ("a", "b", "events"):
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM '{folder}/{name}.parquet'")
    queries = {
        "report": "SELECT avg(ndcg), sum(shown_relevant) FROM ndcg_report('a', 'events', k := [5, 10])",
        "summary": "SELECT sum(mean_ndcg * queries), sum(queries) FROM ndcg_summary('a', 'events', "
                   "k := [5, 10], slice_by := ['device'])",
        "compare": "SELECT avg(diff), count(*) FROM compare_rankers('a', 'b', 'events', k := 10)",
        # precision, recall and F1 are counted by the engine's scorer, in the same plan
        "counted": "SELECT avg(recall_at_k) + avg(precision_at_k) + avg(f1_at_k), count(*) "
                   "FROM ndcg_report('a', 'events', k := [5, 10], "
                   "metrics := ['ndcg', 'precision_at_k', 'recall_at_k', 'f1_at_k'])",
    }
    if limit != "none":
        con.execute(f"SET memory_limit = '{limit}'")
    out = {}
    for name, sql in queries.items():
        try:
            out[name] = con.execute(sql).fetchall()[0]
        except duckdb.OutOfMemoryException:
            out[name] = "out of memory"
    print(json.dumps(out))
    """
)


def _run(folder: Path, limit: str) -> dict:
    folder.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), limit],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_report_summary_and_comparison_spill_under_a_small_limit(tmp_path: Path) -> None:
    """2M events of 200,000 queries under memory_limit 150MB: same numbers as without a limit.
    The engine before this test kept per-ranking top-N states, which do not spill: out of memory
    (at once, not after a while: no time is asserted; the subprocess' timeout is a hang guard)."""
    free = _run(tmp_path / "free", "none")
    tight = _run(tmp_path / "tight", LIMIT)
    for name, want in free.items():
        got = tight[name]
        assert got != "out of memory", f"{name} ran out of memory under {LIMIT}"
        assert got[0] == pytest.approx(want[0], rel=1e-12, abs=1e-12), name
        assert got[1] == want[1], name

