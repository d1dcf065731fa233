"""Apache Superset 6.1 for real: its own venv, started on 127.0.0.1, the recipe via its REST API.

Opt-in (1 to 4 minutes with the install): ``bash examples/superset/run.sh``, or
``DUCKDB_NDCG_SUPERSET=1 python -m pytest tests/bi -m superset``. The venv is kept in
``$DUCKDB_NDCG_CACHE`` (default ``~/.cache/duckdb_ndcg``) and reused while its pins match.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "examples" / "superset"
sys.path.insert(0, str(RECIPE))

import build_db
import recipe

PINS = recipe.SUPERSET  # the install the recipe documents

pytestmark = [
    pytest.mark.superset,
    pytest.mark.skipif(
        os.environ.get("DUCKDB_NDCG_SUPERSET") != "1",
        reason="Superset lane is opt-in: bash examples/superset/run.sh",
    ),
]


def _venv() -> Path:
    cache = Path(os.environ.get("DUCKDB_NDCG_CACHE", Path.home() / ".cache" / "duckdb_ndcg"))
    venv = cache / "superset-6.1"
    stamp = venv / "pins.txt"
    if stamp.is_file() and stamp.read_text() == "\n".join(PINS):
        return venv
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True, capture_output=True)
    done = subprocess.run([*pip, *PINS], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    stamp.write_text("\n".join(PINS))
    return venv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def superset(tmp_path_factory: pytest.TempPathFactory) -> Iterator[recipe.Superset]:
    venv = _venv()
    home = tmp_path_factory.mktemp("superset")
    (home / "superset_config.py").write_text(
        f"SECRET_KEY = {secrets.token_urlsafe(42)!r}\n"
        f"SQLALCHEMY_DATABASE_URI = {'sqlite:///' + str(home / 'superset.db')!r}\n"
    )
    env = {
        **os.environ,
        "SUPERSET_CONFIG_PATH": str(home / "superset_config.py"),
        "SUPERSET_HOME": str(home),
        "FLASK_APP": "superset",
    }
    superset_bin = str(venv / "bin" / "superset")
    password = secrets.token_urlsafe(16)
    for args in (
        ["db", "upgrade"],
        ["fab", "create-admin", "--username", "admin", "--firstname", "Ad", "--lastname", "Min",
         "--email", "admin@example.com", "--password", password],
        ["init"],
    ):  # fmt: skip
        done = subprocess.run(
            [superset_bin, *args], env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (args[0], done.stderr[-3000:])
    port = _free_port()
    log = (home / "server.log").open("w")
    server = subprocess.Popen(
        [superset_bin, "run", "-h", "127.0.0.1", "-p", str(port), "--with-threads"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                    if response.read() == b"OK":
                        break
            except OSError:
                pass
            assert server.poll() is None, (home / "server.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "Superset did not answer /health in 120 s"
            time.sleep(1)
        yield recipe.Superset(url, "admin", password)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def ndcg_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    """The recipe's DuckDB file and ndcg_summary's mean NDCG@10 per device, computed here."""
    path = tmp_path_factory.mktemp("data") / "ndcg.duckdb"
    build_db.build(path, queries=600)
    with duckdb.connect(str(path), read_only=True) as con:
        expected = dict(
            con.execute(
                "SELECT device, mean_ndcg FROM ndcg_summary('shown', 'events', k := 10, "
                "slice_by := ['device'])"
            ).fetchall()
        )
    assert sorted(expected) == ["desktop", "mobile", "tablet"]
    return path, expected


def test_superset_recipe_gives_ndcg_summary_per_device(
    superset: recipe.Superset, ndcg_file: tuple[Path, dict[str, float]]
) -> None:
    api = superset
    path, expected = ndcg_file
    ids = recipe.register(api, str(path))

    # the saved chart, computed by Superset from the saved metric
    chart = {row["device"]: row for row in api.chart_data(ids["chart"])}
    assert chart.keys() == expected.keys()
    for device, mean in expected.items():
        assert chart[device]["mean_ndcg_10"] == pytest.approx(mean, abs=1e-12), device
    with duckdb.connect(str(path), read_only=True) as con:
        queries = dict(con.execute("SELECT device, count(*) FROM shown GROUP BY device").fetchall())
    assert {d: chart[d]["queries"] * 10 for d in chart} == queries  # 10 rows shown per query

    # the same chart query posted to /api/v1/chart/data, as the Explore view does
    posted = api.call(
        "POST",
        "/api/v1/chart/data",
        {
            "datasource": {"id": ids["dataset"], "type": "table"},
            "queries": [{"columns": ["device"], "metrics": ["mean_ndcg_10"], "row_limit": 100}],
            "result_format": "json",
            "result_type": "full",
        },
    )["result"][0]
    assert "mean_ndcg(query_id, rel, rnk, 10)" in posted["query"]
    for row in posted["data"]:
        assert row["mean_ndcg_10"] == pytest.approx(expected[row["device"]], abs=1e-12)

    # SQL Lab: the metric's expression, ndcg_summary itself, and the pooled mistake
    by_device = api.sqllab(ids["database"], recipe.SQLLAB["mean_ndcg_by_device"])
    summary = api.sqllab(ids["database"], recipe.SQLLAB["summary_by_device"])
    pooled = api.sqllab(ids["database"], recipe.SQLLAB["pooled_ndcg_by_device"])
    assert [r["device"] for r in by_device] == sorted(expected)
    for mean_row, summary_row, pooled_row in zip(by_device, summary, pooled, strict=True):
        device = mean_row["device"]
        assert mean_row["mean_ndcg_10"] == pytest.approx(expected[device], abs=1e-12)
        assert summary_row["mean_ndcg"] == pytest.approx(expected[device], abs=1e-12)
        # pooling a device's queries into one ranking is far from the mean over queries
        assert pooled_row["pooled_ndcg_10"] < expected[device] - 0.1


def test_superset_runs_duckdb_1_5(superset: recipe.Superset) -> None:
    api = superset
    database = api.call(
        "POST",
        "/api/v1/database/",
        {"database_name": "version", "sqlalchemy_uri": "duckdb:///:memory:"},
    )["id"]
    (row,) = api.sqllab(database, "SELECT version() AS v")
    assert row["v"].startswith("v1.5."), row
