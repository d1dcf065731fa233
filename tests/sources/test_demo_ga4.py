"""``demo --source ga4``: the demo log written as a GA4 BigQuery export (issue 22, item 6), read
back by the GA4 adapter. The oracle is scikit-learn's NDCG of each demo session computed from the
flat demo tables in Python (the items a session was shown, in the order of their impressions, and
its best event per item), which shares nothing with the export or the adapter."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

from duckdb_ndcg import demo

GRADES = {"click": 1, "add_to_cart": 2, "purchase": 3}


def _sessions_ndcg(con: duckdb.DuckDBPyConnection, k: int) -> dict[str, float]:
    """NDCG@k of every demo session, by scikit-learn, keyed as the export's user: 'user-<session>'."""
    shown, grades = defaultdict(list), defaultdict(dict)
    for session, item, event, _ in con.execute(
        "SELECT session_id, item_id, event_type, ts FROM demo_events ORDER BY session_id, ts, item_id"
    ).fetchall():
        if event == "impression":
            shown[session].append(item)
        else:
            grades[session][item] = max(grades[session].get(item, 0), GRADES[event])
    out = {}
    for session, items in shown.items():
        rel = [grades[session].get(i, 0) for i in items]
        score = [len(items) - p for p in range(len(items))]  # the first shown scores highest
        out[f"user-{session}"] = ndcg_score([rel], [score], k=k) if any(rel) else 0.0
    return out


def test_the_export_is_ga4s_schema_and_scores_as_the_demo_log(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    demo.generate(con, queries=60, seed=3)
    path = tmp_path / "events_demo.parquet"
    rows = demo.ga4_export(con, str(path))
    con.execute(f"CREATE VIEW ga4_export AS FROM read_parquet('{path}')")
    types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE ga4_export)").fetchall())
    assert types["event_timestamp"] == "BIGINT" and types["event_date"] == "VARCHAR"
    assert "item_list_index VARCHAR" in types["items"] and "int_value BIGINT" in types["event_params"]
    sessions, acts = con.execute(
        "SELECT count(DISTINCT session_id), count(*) FILTER (WHERE event_type <> 'impression') "
        "FROM demo_events"
    ).fetchone()
    assert rows == 2 * sessions + acts  # a search and a list view per session, an event per act
    indexes = con.execute(
        "SELECT min(x.item_list_index::INTEGER), max(x.item_list_index::INTEGER) "
        "FROM (SELECT unnest(items) AS x FROM ga4_export WHERE event_name = 'view_item_list')"
    ).fetchone()
    assert indexes == (0, 9)  # 0-based, as many sites send it
    assert con.execute("SELECT count(*) FROM ga4_unattributed('ga4_export')").fetchone() == (0,)
    con.execute("CREATE TABLE shown AS FROM ga4_rankings('ga4_export')")
    con.execute("CREATE TABLE acted AS FROM ga4_events('ga4_export')")
    got = dict(
        con.execute(
            "SELECT any_value(s.user_id), r.ndcg FROM ndcg_report('shown', 'acted', k := 10) AS r "
            "JOIN shown AS s USING (query_id) GROUP BY r.query_id, r.ndcg"
        ).fetchall()
    )
    want = _sessions_ndcg(con, 10)
    assert len(want) == sessions and got.keys() == want.keys()
    assert got == pytest.approx(want, abs=1e-12)
    assert sum(v > 0 for v in want.values()) > sessions / 3  # not a degenerate log


def test_cli_demo_source_ga4_prints_what_its_command_gives(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", "demo", "--queries", "60", "--source", "ga4",
         "--chart", "d.html"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "events_demo.parquet").is_file()
    means = dict(re.findall(r"(desktop|mobile|tablet) (\d\.\d{4}) \(\d+ searches\)", done.stdout))
    command = re.search(r"Same report:  duckdb-ndcg (evaluate events_demo\.parquet .*)", done.stdout)
    assert len(means) == 3 and command, done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", *command[1].split()],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    for device, mean in means.items():
        line = next(x for x in again.stdout.splitlines() if x.strip().startswith(device))
        assert line.split()[3] == mean, (device, line)


def test_cli_demo_export_must_be_parquet(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", "demo", "--source", "ga4", "--export", "x.csv"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "--export x.csv: use a .parquet file name" in done.stderr
