"""examples/dbt_project built with dbt-duckdb and the duckdb_ndcg dbt package (dbt/duckdb_ndcg),
its models checked value by value against the ndcg aggregate; the package checked up to date."""

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

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "dbt_project"
PACKAGE = ROOT / "dbt" / "duckdb_ndcg"
BIN = Path(sys.executable).parent

# Grades by the dbt seed, re-derived from the raw events without event_relevance or ndcg_report.
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
        message = "dbt-duckdb is not installed (pip install 'dbt-core>=1.10,<1.12' dbt-duckdb)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return Path(exe)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``dbt deps`` and ``dbt build`` (hook, seed, models, data tests) of a copy of the project
    beside a copy of the package (packages.yml names it by a relative path); the DuckDB file."""
    dbt = _dbt()
    root = tmp_path_factory.mktemp("dbt")
    work = root / "examples" / "dbt_project"
    ignore = shutil.ignore_patterns(
        "target", "logs", "dbt_packages", "package-lock.yml", "*.duckdb*"
    )
    shutil.copytree(PROJECT, work, ignore=ignore)
    shutil.copytree(PACKAGE, root / "dbt" / "duckdb_ndcg")
    database = root / "warehouse.duckdb"
    env = {
        **os.environ,
        "NDCG_EXAMPLE_DB": str(database),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_VERSION_CHECK": "false",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    for command in ("deps", "build"):
        done = subprocess.run(
            [str(dbt), command, "--profiles-dir", str(work), "--project-dir", str(work)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # the package's on-run-start hook, the seed, 4 models and 7 data tests
    assert "1 project hook" in done.stdout, done.stdout[-2000:]
    assert "ERROR=0" in done.stdout and "PASS=13" in done.stdout, done.stdout[-2000:]
    return database


@pytest.fixture
def attached(warehouse: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory connection with this checkout's macros and the dbt warehouse attached."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        # a quoted literal, not a parameter: DuckDB 1.5 cannot bind ATTACH's path
        literal = "'" + str(warehouse).replace("'", "''") + "'"
        con.execute(f"ATTACH {literal} AS w (READ_ONLY)")
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
    model = {r: (n, m, b) for r, n, m, b in attached.execute("FROM w.main.ranker_ndcg").fetchall()}
    assert model.keys() == {"baseline", "reranked"}
    for ranker, queries, mean in means:
        assert model[ranker][0] == queries == 200
        assert model[ranker][1] == pytest.approx(mean, abs=1e-12)  # avg of per-query ndcg
        assert model[ranker][2] == pytest.approx(mean, abs=1e-12)  # the mean_ndcg measure
    assert model["reranked"][1] > model["baseline"][1] + 0.02  # the data favours the reranker


def test_package_persisted_macros_for_clients_without_python_package(warehouse: Path) -> None:
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


def test_older_duckdb_clis_open_the_warehouse(duckdb_cli: Path, warehouse: Path) -> None:
    """The profile's config_options storage_compatibility_version v1.4.0: a BI tool or CLI on
    DuckDB 1.4 or 1.5 opens the warehouse dbt wrote (with DuckDB 2.x too) and calls the macros;
    and install() afterwards recognises the package's macros as ours."""
    sql = "SELECT count(*), sum(ndcg) FROM ndcg_report('search_rankings', 'search_events', k := 10)"
    done = subprocess.run(
        [str(duckdb_cli), "-readonly", "-csv", "-noheader", str(warehouse), "-c", sql],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    count, total = done.stdout.strip().split(",")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        expected = con.execute(sql).fetchone()
    assert int(count) == expected[0] == 400
    assert float(total) == pytest.approx(expected[1], abs=1e-9)
    duckdb_ndcg.install(warehouse)  # no refusal: the hook's macros carry our comment


def test_dbt_package_is_generated_from_sql() -> None:
    """dbt/duckdb_ndcg/macros/duckdb_ndcg.sql holds today's sql/ (python dbt/build_package.py)."""
    spec = importlib.util.spec_from_file_location(
        "build_package", ROOT / "dbt" / "build_package.py"
    )
    build_package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_package)
    text = build_package.TARGET.read_text(encoding="utf-8")
    assert text == build_package.render(), (
        "sql/ changed: run python dbt/build_package.py and commit dbt/duckdb_ndcg/macros/"
    )
    for m in duckdb_ndcg.macros.macros():
        assert f"CREATE OR REPLACE MACRO {m.name}(" in text
