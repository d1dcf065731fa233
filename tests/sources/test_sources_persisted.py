"""The sources' attribution and the report's input checks from a persisted file, in the DuckDB
1.4 and 1.5 CLIs (no Python there): the same rows as in this process, and the same error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import duckdb
from test_attribution_growth import _export

import duckdb_ndcg

ATTRIBUTED = ("SELECT query_id, item_id, event_type, position FROM ga4_events('export', "
              "attribution := '{how}', attribution_window := INTERVAL 2 SECOND) ORDER BY ALL")


def _cli(cli: Path, path: Path, sql: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), "-readonly", "-json", str(path), "-c", sql],
                          capture_output=True, text=True, check=False)


def test_attribution_and_checks_in_the_cli(duckdb_cli: Path, tmp_path: Path) -> None:
    path = tmp_path / "ga4.duckdb"
    duckdb_ndcg.install(path)  # the oldest storage the package supports
    with duckdb.connect(str(path)) as con:
        _export(con, users=3, searches=60)
        ours = {how: con.execute(ATTRIBUTED.format(how=how)).fetchall()
                for how in ("last", "first")}
        con.execute("CREATE TABLE shown AS FROM ga4_rankings('export')")
        con.execute("CREATE TABLE events AS FROM ga4_events('export')")
    # 'first' within 2 s: the search 0.75 s before; a user's searches are 3 s apart
    assert ours["last"] == ours["first"] and len(ours["last"]) == 60
    for how, want in ours.items():
        result = _cli(duckdb_cli, path, ATTRIBUTED.format(how=how))
        assert result.returncode == 0, result.stderr
        assert [tuple(r.values()) for r in json.loads(result.stdout)] == want
    # a summary read for k alone still runs the report's checks
    result = _cli(duckdb_cli, path,
                  "SELECT k FROM ndcg_summary('shown', 'events', slice_by := ['nope'])")
    assert result.returncode != 0
    assert "has a column nope (named in slice_by)" in result.stderr + result.stdout
