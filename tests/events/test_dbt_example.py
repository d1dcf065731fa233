"""examples/dbt_project built with dbt-duckdb, its models checked against the ndcg aggregate."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg

PROJECT = Path(__file__).resolve().parents[2] / "examples" / "dbt_project"
BIN = Path(sys.executable).parent

# Grades by the dbt seed, re-derived here from the raw events without event_relevance or ndcg_report.
ORACLE = """
WITH grades AS (
    SELECT e.query_id, e.item_id, max(s.grade) AS rel
    FROM w.main.search_events AS e JOIN w.main.event_grades AS s USING (event_type)
    GROUP BY ALL
)
SELECT r.ranker, r.query_id, c.k, ndcg(coalesce(g.rel, 0), r.position, c.k) AS ndcg,
       count(*) AS shown
FROM w.main.search_rankings AS r
LEFT JOIN grades AS g USING (query_id, item_id)
CROSS JOIN (VALUES (5), (10)) AS c(k)
GROUP BY r.ranker, r.query_id, c.k
"""


def _dbt() -> Path:
    """The dbt executable of this environment; a failure in CI, a skip elsewhere, when missing."""
    exe = shutil.which("dbt", path=str(BIN))
    if exe is None or importlib.util.find_spec("dbt.adapters.duckdb") is None:
        message = (
            "dbt-duckdb is not installed (pip install 'dbt-core==1.10.23' 'dbt-duckdb==1.11.1')"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return Path(exe)


@pytest.fixture(scope="module", params=["dev", "no_plugin"])
def warehouse(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``dbt build`` (seed, models, data tests) of a copy of the project; the DuckDB file.

    Target ``dev`` gets the macros from the plugin, ``no_plugin`` from ``duckdb-ndcg install``.
    """
    dbt = _dbt()
    work = tmp_path_factory.mktemp(f"dbt_{request.param}") / "project"
    shutil.copytree(PROJECT, work, ignore=shutil.ignore_patterns("target", "logs", "*.duckdb*"))
    database = work / "warehouse.duckdb"
    env = {
        **os.environ,
        "NDCG_EXAMPLE_DB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_VERSION_CHECK": "false",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    steps = [
        [
            str(dbt),
            "build",
            "--profiles-dir",
            str(work),
            "--project-dir",
            str(work),
            "--target",
            request.param,
        ]
    ]
    if request.param == "no_plugin":
        steps.insert(0, [sys.executable, "-m", "duckdb_ndcg.cli", "install", str(database)])
    for step in steps:
        done = subprocess.run(
            step, cwd=work, env=env, capture_output=True, text=True, timeout=180, check=False
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "ERROR=0" in done.stdout and "PASS=12" in done.stdout, done.stdout[-2000:]
    return database


@pytest.fixture
def attached(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with this checkout's macros and the dbt warehouse attached."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute("ATTACH ? AS w (READ_ONLY)", [str(warehouse)])
        yield con


def test_query_ndcg_equals_ndcg_aggregate(attached: duckdb.DuckDBPyConnection) -> None:
    model = {
        (ranker, query, k): (value, shown)
        for ranker, query, k, value, shown in attached.execute(
            "SELECT ranker, query_id, k, ndcg, shown FROM w.main.query_ndcg"
        ).fetchall()
    }
    oracle = {
        (ranker, query, k): (value, shown)
        for ranker, query, k, value, shown in attached.execute(ORACLE).fetchall()
    }
    assert len(model) == 400 * 2 and model.keys() == oracle.keys()
    for key, (value, shown) in model.items():
        assert value == pytest.approx(oracle[key][0], abs=1e-12), key
        assert shown == oracle[key][1] == 10, key  # every row shown, whatever the cutoff
    values = [value for value, _ in model.values()]
    assert 0 < sum(0 < v < 1 for v in values) and any(v == 0 for v in values)


def test_ranker_ndcg_is_mean_of_query_ndcg(attached: duckdb.DuckDBPyConnection) -> None:
    means = attached.execute(
        "SELECT ranker, count(*), avg(ndcg) FROM w.main.query_ndcg WHERE k = 10 GROUP BY ranker"
    ).fetchall()
    model = {r: (n, m) for r, n, m in attached.execute("FROM w.main.ranker_ndcg").fetchall()}
    assert model.keys() == {"baseline", "reranked"}
    for ranker, queries, mean in means:
        assert model[ranker][0] == queries == 200
        assert model[ranker][1] == pytest.approx(mean, abs=1e-12)
    assert model["reranked"][1] > model["baseline"][1] + 0.02  # the data favours the reranker


def test_plugin_persisted_macros_for_clients_without_python_package(warehouse: Path) -> None:
    script = (
        "import sys, duckdb\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "print(con.execute('SELECT list_ndcg([3, 2, 3, 0, 1, 2])').fetchone()[0])\n"
        "print(con.execute(\"SELECT count(*) FROM ndcg_report('search_rankings', 'search_events',"
        ' k := 10)").fetchone()[0])\n'
        "assert 'duckdb_ndcg' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(warehouse)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, count = done.stdout.split()
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        expected = con.execute("SELECT list_ndcg([3, 2, 3, 0, 1, 2])").fetchone()[0]
    assert float(first) == pytest.approx(expected, abs=1e-12) and int(count) == 400
