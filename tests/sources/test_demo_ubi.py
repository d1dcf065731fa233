"""``demo --source ubi``: the demo log written as OpenSearch UBI 1.3.0 indexes (NDJSON), read back by
the UBI adapter (issue 22, item 6). The oracle is scikit-learn's NDCG of each demo session computed
from the flat demo tables in Python (tests/sources/test_demo_ga4.py), which shares nothing with the
export or the adapter: the UBI query of a session is the session."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from statistics import fmean

import duckdb
import pytest
from test_demo_ga4 import _sessions_ndcg

from duckdb_ndcg import demo

APPLICATIONS = {"desktop": "shop-web", "mobile": "shop-ios", "tablet": "shop-android"}


def _oracle(con: duckdb.DuckDBPyConnection, k: int) -> dict[str, float]:
    """scikit-learn's NDCG@k per session, keyed by the session (the export's query_id)."""
    return {user.removeprefix("user-"): v for user, v in _sessions_ndcg(con, k).items()}


def test_the_export_is_ubis_schema_and_scores_as_the_demo_log(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    demo.generate(con, queries=60, seed=3)
    queries, events = demo.ubi_export(con, str(tmp_path))
    lines = (tmp_path / "ubi_queries.ndjson").read_text().splitlines()
    first = json.loads(lines[0])
    assert len(lines) == queries and isinstance(first["query_response_hit_ids"], list)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", first["timestamp"])
    acts = [json.loads(x) for x in (tmp_path / "ubi_events.ndjson").read_text().splitlines()]
    assert len(acts) == events
    # ordinals as each application counts them: the web shop from 1 (clicks only), the apps from 0
    lowest = {}
    for act in acts:
        key = (act["application"], act["action_name"] == "impression")
        lowest[key] = min(lowest.get(key, 99), act["event_attributes"]["position"]["ordinal"])
    assert lowest[("shop-ios", True)] == 0 and lowest[("shop-android", True)] == 0
    assert ("shop-web", True) not in lowest and lowest[("shop-web", False)] >= 1

    files = [str(tmp_path / f"ubi_{name}.ndjson") for name in ("queries", "events")]
    con.execute("CREATE TABLE ubi_queries AS FROM read_json(?)", [files[0]])
    con.execute("CREATE TABLE ubi_events AS FROM read_json(?)", [files[1]])
    unattributed = "SELECT count(*) FROM ubi_unattributed('ubi_queries', 'ubi_events')"
    assert con.execute(unattributed).fetchone() == (0,)
    con.execute("CREATE TABLE shown AS FROM ubi_rankings('ubi_queries', 'ubi_events')")
    con.execute("CREATE TABLE acted AS FROM ubi_events('ubi_queries', 'ubi_events')")
    got = dict(con.execute("SELECT query_id, ndcg FROM ndcg_report('shown', 'acted', k := 10)"
                           ).fetchall())  # fmt: skip
    want = _oracle(con, 10)
    assert len(want) == queries and got == pytest.approx(want, abs=1e-12)
    assert sum(v > 0 for v in want.values()) > queries / 3  # not a degenerate log


def test_cli_demo_source_ubi_prints_the_oracles_means_and_its_command_gives_them(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", "demo", "--queries", "60", "--source", "ubi",
         "--chart", "d.html"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    means = dict(re.findall(r"(shop-\w+) (\d\.\d{4}) \(\d+ queries\)", done.stdout))
    command = re.search(r"Same report:  duckdb-ndcg (evaluate ubi_demo/\S+ .*)", done.stdout)
    assert len(means) == 3 and command, done.stdout
    # the oracle: the same demo log (the CLI's default seed), scored per session by scikit-learn
    demo.generate(con, queries=60, seed=7)
    want = _oracle(con, 10)
    devices = dict(con.execute("SELECT DISTINCT session_id, device FROM demo_events").fetchall())
    for device, app in APPLICATIONS.items():
        mean = fmean(v for session, v in want.items() if devices[session] == device)
        assert means[app] == f"{mean:.4f}", (app, means[app], mean)
    again = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", *command[1].split()],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    for app, mean in means.items():
        line = next(x for x in again.stdout.splitlines() if x.strip().startswith(app))
        assert line.split()[3] == mean, (app, line)


@pytest.mark.parametrize(
    ("export", "error"),
    [("x.parquet", "--export x.parquet is a file: --source ubi writes a folder of two files"),
     ("missing/ubi", "--export missing/ubi: folder missing does not exist")],
)  # fmt: skip
def test_cli_demo_ubi_export_is_a_folder(tmp_path: Path, export: str, error: str) -> None:
    (tmp_path / "x.parquet").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", "demo", "--source", "ubi", "--export", export],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and error in done.stderr, done.stderr
