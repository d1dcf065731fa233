"""examples/use_from: each "Use it from..." example of the README run for real, its numbers checked.

The small examples (polars, ibis, jupysql, Harlequin) share one judged log whose NDCG values are
written here from the formulas; Spark, Node and Evidence run in their own processes (a JVM, node)
on generated logs and are checked against the macros. Outside CI a missing engine (java, node,
npm, a Python package) skips; with CI=true it fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from math import log2
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg.demo import generate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "use_from"
sys.path.insert(0, str(ROOT / "examples" / "superset"))

import build_db
import recipe

# The shared log: q1 (mobile) grades 1, 0, 3 at positions 1-3; q2 (desktop) 0, 0, 2;
# q3 (mobile) 0, 1.
Q1_AT_3 = (1 + 3 / 2) / (3 + 1 / log2(3))
Q2_AT_3 = (2 / 2) / 2
Q3_AT_3 = (1 / log2(3)) / 1
# list_ndcg([3, 2, 3, 0, 1, 2]): its DCG over the DCG of the grades sorted, [3, 3, 2, 2, 1, 0]
LIST_NDCG = (3 + 2 / log2(3) + 3 / 2 + 1 / log2(6) + 2 / log2(7)) / (
    3 + 3 / log2(3) + 2 / 2 + 2 / log2(5) + 1 / log2(6)
)


def _missing(what: str) -> None:
    """A missing engine: fail in CI, skip elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is missing")
    pytest.skip(f"{what} is missing")


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        _missing(f"Python package {module} (pip install -e '.[test]')")


def _run_example(name: str) -> dict:
    """Run an example in this process; its globals."""
    return runpy.run_path(str(EXAMPLES / name), run_name="__main__")


def test_polars() -> None:
    _needs("polars")
    import polars as pl

    found = _run_example("polars_evaluate.py")
    report, summary = found["report"], found["summary"]
    assert isinstance(report, pl.DataFrame) and isinstance(summary, pl.DataFrame)
    ndcg = {(r["query_id"], r["k"]): r["ndcg"] for r in report.iter_rows(named=True)}
    expected = {
        ("q1", 1): 1 / 3,
        ("q1", 3): Q1_AT_3,
        ("q2", 1): 0.0,
        ("q2", 3): Q2_AT_3,
        ("q3", 1): 0.0,
        ("q3", 3): Q3_AT_3,
    }
    assert ndcg.keys() == expected.keys()
    for key, value in expected.items():
        assert ndcg[key] == pytest.approx(value, abs=1e-12), key
    means = {r["device"]: (r["queries"], r["mean_ndcg"]) for r in summary.iter_rows(named=True)}
    assert means["desktop"] == (1, pytest.approx(Q2_AT_3, abs=1e-12))
    assert means["mobile"] == (2, pytest.approx((Q1_AT_3 + Q3_AT_3) / 2, abs=1e-12))


def test_ibis() -> None:
    _needs("ibis")
    found = _run_example("ibis_udaf.py")
    con, per_query, per_device = found["con"], found["per_query"], found["per_device"]
    import ibis

    assert 'NDCG("t0"."rel", "t0"."rnk", 3)' in ibis.to_sql(per_query, dialect="duckdb")
    rows = con.to_pyarrow(per_query).to_pylist()
    assert [r["query_id"] for r in rows] == ["q1", "q2", "q3"]
    for row, value in zip(rows, [Q1_AT_3, Q2_AT_3, Q3_AT_3], strict=True):
        assert row["ndcg_3"] == pytest.approx(value, abs=1e-12)
    devices = {r["device"]: r["mean_ndcg_3"] for r in con.to_pyarrow(per_device).to_pylist()}
    assert devices == {
        "desktop": pytest.approx(Q2_AT_3, abs=1e-12),
        "mobile": pytest.approx((Q1_AT_3 + Q3_AT_3) / 2, abs=1e-12),
    }


_JUPYSQL_DUMP = """
import json, runpy, sys
found = runpy.run_path(sys.argv[1], run_name="__main__")
frames = {name: found[name].DataFrame().to_dict("list") for name in ("ndcg", "per_query")}
print("RESULT " + json.dumps(frames))
"""


def test_jupysql() -> None:
    """In its own process: IPython's shell is a process-wide singleton."""
    _needs("sql")  # jupysql
    _needs("IPython")
    done = subprocess.run(
        [sys.executable, "-c", _JUPYSQL_DUMP, str(EXAMPLES / "jupysql_magic.py")],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PLOOMBER_STATS_ENABLED": "false"},  # jupysql's telemetry
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    frames = json.loads(done.stdout.split("RESULT ", 1)[1].splitlines()[0])
    assert frames["ndcg"]["ndcg"] == [pytest.approx(LIST_NDCG, abs=1e-15)]
    assert frames["per_query"]["query_id"] == ["q1", "q2"]
    assert frames["per_query"]["ndcg_3"] == [
        pytest.approx(Q1_AT_3, abs=1e-12),
        pytest.approx(1 / log2(3), abs=1e-12),
    ]


def test_harlequin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _needs("harlequin_duckdb")
    monkeypatch.setattr(sys, "argv", ["harlequin_adapter.py", str(tmp_path)])
    found = _run_example("harlequin_adapter.py")
    assert found["results"] == {
        "file": [{"ndcg": pytest.approx(LIST_NDCG, abs=1e-15)}],
        "init_path": [{"ndcg": pytest.approx(LIST_NDCG, abs=1e-15)}],
    }
    assert (tmp_path / "ndcg_macros.sql").read_text() == duckdb_ndcg.script()


_RUN_AND_DUMP = """
import json, runpy, sys
found = runpy.run_path(sys.argv[1], run_name="__main__")
print("RESULT " + json.dumps({name: found[name] for name in sys.argv[2:]}))
"""


# Spark's code generation off, as in tests/portable/conftest.py's session: Spark compiles Java for
# each query's stages before running them, most of the run on 200 queries; interpreted, the same
# plans give the same rows (Spark falls back to them itself whenever codegen fails); and the JVM
# options of tests/portable/conftest.py's session (the quick compiler, the serial collector)
_SPARK_INTERPRETED = (
    "--conf spark.sql.codegen.wholeStage=false --conf spark.sql.codegen.factoryMode=NO_CODEGEN "
    "--driver-java-options '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' pyspark-shell"
)


def test_spark() -> None:
    _needs("pyspark")
    if shutil.which("java") is None:
        _missing("java (Spark needs Java 17+)")
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_DUMP, str(EXAMPLES / "spark_portable.py"), "per_query",
         "judged"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYSPARK_SUBMIT_ARGS": _SPARK_INTERPRETED},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.split("RESULT ", 1)[1].splitlines()[0])
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        generate(con, queries=200)
        con.execute("CREATE TABLE shown AS FROM demo_rankings WHERE ranker = 'A'")
        expected = {}
        for query, k, value in con.execute(
            "SELECT query_id, k, ndcg FROM ndcg_report('shown', 'demo_events', k := [5, 10])"
        ).fetchall():
            expected.setdefault(query, {})[k] = value
    assert result["per_query"].keys() == expected.keys() and len(expected) == 200
    for query, (at_5, at_10) in result["per_query"].items():
        assert at_5 == pytest.approx(expected[query][5], abs=1e-9), query
        assert at_10 == pytest.approx(expected[query][10], abs=1e-9), query
        assert result["judged"][query] == pytest.approx(expected[query][10], abs=1e-9), query
    assert len({round(v[10], 6) for v in expected.values()}) > 50  # not a degenerate log


def test_node(tmp_path: Path) -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("node and npm (Node.js)")
    work = _npm_project("node", npm)
    shutil.copy(EXAMPLES / "node" / "ndcg.mjs", work / "ndcg.mjs")
    path = tmp_path / "metrics.duckdb"
    build_db.build(path, queries=120)
    with duckdb.connect(str(path), read_only=True) as con:
        summary = con.execute(
            "SELECT device, k, queries, mean_ndcg FROM ndcg_summary('shown', 'events', "
            "k := [5, 10], slice_by := ['device']) ORDER BY device, k"
        ).fetchall()
    done = subprocess.run(
        [node, "ndcg.mjs", str(path)], cwd=work, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["version"].startswith("v1.5.")  # the newest @duckdb/node-api runs DuckDB 1.5
    assert result["list_ndcg"] == pytest.approx(LIST_NDCG, abs=1e-15)
    got = [(r["device"], int(r["k"]), int(r["queries"]), r["mean_ndcg"]) for r in result["summary"]]
    assert [g[:3] for g in got] == [s[:3] for s in summary]
    for (_, _, _, mean), (_, _, _, expected) in zip(got, summary, strict=True):
        assert mean == pytest.approx(expected, abs=1e-12)
    measure = {r["device"]: r["mean_ndcg_10"] for r in result["measure"]}
    for device, k, _, mean in summary:
        if k == 10:
            assert measure[device] == pytest.approx(mean, abs=1e-12), device


def _npm_project(name: str, npm: str) -> Path:
    """examples/use_from/<name> copied into the cache, its npm packages installed once."""
    cache = Path(os.environ.get("DUCKDB_NDCG_CACHE", Path.home() / ".cache" / "duckdb_ndcg"))
    work = cache / name
    work.mkdir(parents=True, exist_ok=True)
    package = (EXAMPLES / name / "package.json").read_text()
    if not (work / "node_modules").is_dir() or (work / "package.json").read_text() != package:
        (work / "package.json").write_text(package)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund"],
            cwd=work, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
    return work


def test_evidence() -> None:
    """Evidence's own DuckDB connector, with @duckdb/node-api 1.4.3 (its template locks 1.4.2, where
    ndcg_summary fails; the example overrides it to the oldest DuckDB we support), runs
    the example's sources: one on a file from install() plus data, one whose initialize.sql is
    duckdb-ndcg script's output."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("node and npm (Node.js)")
    work = _npm_project("evidence", npm)
    shutil.rmtree(work / "sources", ignore_errors=True)
    shutil.copytree(EXAMPLES / "evidence" / "sources", work / "sources")
    shutil.copy(EXAMPLES / "evidence" / "run_sources.mjs", work / "run_sources.mjs")
    build_db.build(work / "sources" / "ndcg" / "ndcg.duckdb", queries=120)
    (work / "sources" / "ndcg_script" / "initialize.sql").write_text(duckdb_ndcg.script())
    with duckdb.connect(str(work / "sources" / "ndcg" / "ndcg.duckdb"), read_only=True) as con:
        expected = dict(
            con.execute(
                "SELECT device, mean_ndcg FROM ndcg_summary('shown', 'events', k := 10, "
                "slice_by := ['device'])"
            ).fetchall()
        )
    done = subprocess.run(
        [node, "run_sources.mjs"], cwd=work, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    (version,) = result["ndcg_script"]["duckdb_version.sql"]
    assert version["version"].startswith("v1.4.3"), version
    by_device = {r["device"]: r["mean_ndcg_10"] for r in result["ndcg"]["ndcg_by_device.sql"]}
    assert by_device.keys() == expected.keys()
    for device, mean in expected.items():
        assert by_device[device] == pytest.approx(mean, abs=1e-12), device
    judged = result["ndcg_script"]["judged_example.sql"]
    assert [r["query_id"] for r in judged] == ["q1", "q2"]
    assert judged[0]["ndcg_3"] == pytest.approx(Q1_AT_3, abs=1e-12)
    assert judged[1]["ndcg_3"] == pytest.approx(1 / log2(3), abs=1e-12)
    assert judged[0]["list_ndcg_6"] == pytest.approx(LIST_NDCG, abs=1e-15)


def test_readme_snippets_are_the_examples() -> None:
    """Each code block of the README's "Use it from..." section is, verbatim, part of a file that
    the tests run (named on the line before the block)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use it from", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"<!-- from (\S+) -->\n```\w*\n(.*?)```", section, flags=re.DOTALL)
    fences = section.count("```") // 2
    assert blocks and len(blocks) == fences, "every snippet needs a <!-- from <file> --> line"
    for source, code in blocks:
        # compared line by line, indentation aside (docstrings indent their commands)
        lines = [line.strip() for line in code.strip().splitlines()]
        text = [line.strip() for line in (ROOT / source).read_text(encoding="utf-8").splitlines()]
        assert any(text[i : i + len(lines)] == lines for i in range(len(text) - len(lines) + 1)), (
            f"README snippet not found verbatim in {source}: {lines[0]}"
        )


def test_readme_pooling_numbers(tmp_path: Path) -> None:
    """The README's Superset paragraph quotes the recipe's log: pooled ndcg vs the mean."""
    path = tmp_path / "ndcg.duckdb"
    build_db.build(path)  # the recipe's default, 600 queries
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "SELECT device, round(ndcg(rel, rnk, 10), 2), "
            "round(mean_ndcg(query_id, rel, rnk, 10), 2)"
            " FROM judged_run GROUP BY ROLLUP (device) ORDER BY device NULLS LAST"
        ).fetchall()
    pooled = " / ".join(f"{p:.2f}" for _, p, _ in rows[:-1]) + f" per device ({rows[-1][1]:.2f}"
    mean = " / ".join(f"{m:.2f}" for _, _, m in rows[:-1]) + f" ({rows[-1][2]:.2f})"
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"plain `ndcg` gives {pooled} overall)" in readme
    assert f"the mean over queries is {mean}" in readme


def test_superset_recipe_documents_what_the_lane_installs() -> None:
    """The recipe's pip line (README, docstring) is the install tests/bi runs (opt-in)."""
    pip_line = next(line for line in recipe.__doc__.splitlines() if "pip install" in line)
    assert pip_line.split() == ["pip", "install", *(f"'{p}'" if "=" in p or "[" in p else p
                                                    for p in recipe.SUPERSET)]  # fmt: skip
    assert f"SQL expression\n              {recipe.METRIC['expression']}\n" in recipe.__doc__


def _sklearn_mean_ndcg_per_device(con: duckdb.DuckDBPyConnection) -> dict[str, float]:
    """Mean NDCG@10 per device from scikit-learn, per query: the shown items scored by -position,
    the graded items never shown below them all (ideal only: each query shows 10, k is 10)."""
    from sklearn.metrics import ndcg_score

    rows = con.execute(
        "SELECT s.query_id, s.device, list(coalesce(g.rel, 0.0) ORDER BY s.item_id), "
        "list(-s.position ORDER BY s.item_id), "
        "(SELECT list(g2.rel) FROM event_relevance('events') g2 WHERE g2.query_id = s.query_id "
        " AND g2.item_id NOT IN (SELECT item_id FROM shown s2 WHERE s2.query_id = s.query_id)) "
        "FROM shown s LEFT JOIN event_relevance('events') g USING (query_id, item_id) "
        "GROUP BY s.query_id, s.device"
    ).fetchall()
    per_device: dict[str, list[float]] = {}
    for _, device, rels, scores, unshown in rows:
        unshown = unshown or []
        y_true = [list(rels) + list(unshown)]
        y_score = [list(scores) + [-1000.0] * len(unshown)]
        value = ndcg_score(y_true, y_score, k=10) if max(y_true[0]) > 0 else 0.0
        per_device.setdefault(device, []).append(value)
    return {d: sum(v) / len(v) for d, v in per_device.items()}


def test_readme_judged_run_recipe_slices_per_query(tmp_path: Path) -> None:
    """The README's judged_run (build_db.py) takes the device per query, so the ideal-only rows
    are in their query's group: mean_ndcg per device equals scikit-learn's per-query mean."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Superset", 1)[1].split("\n### ", 1)[0]
    assert "queries AS (SELECT DISTINCT query_id, device FROM shown)" in section
    path = tmp_path / "ndcg.duckdb"
    build_db.build(path)
    with duckdb.connect(str(path), read_only=True) as con:
        got = dict(
            con.execute(
                "SELECT device, mean_ndcg(query_id, rel, rnk, 10) FROM judged_run GROUP BY device"
            ).fetchall()
        )
        expected = _sklearn_mean_ndcg_per_device(con)
    assert got.keys() == expected.keys() == {"desktop", "mobile", "tablet"}
    for device, value in expected.items():
        assert got[device] == pytest.approx(value, abs=1e-12), device


def test_mean_ndcg_refuses_a_group_without_a_ranked_row(tmp_path: Path) -> None:
    """The slip the README warns of: the slice taken from the run side of the FULL OUTER JOIN
    puts the graded-but-unshown rows of every query in a NULL group (no row ranked there), and
    leaves the devices' ideals short (0.580 / 0.608 / 0.609 instead of 0.509 / 0.540 / 0.541 on
    the demo log). The NULL group is refused, so the chart fails instead of showing them."""
    con = duckdb_ndcg.register(duckdb.connect())
    generate(con)  # the demo log the README quotes
    con.execute(
        "CREATE TABLE shown AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A'"
    )
    con.execute(
        "CREATE TABLE run_side AS "
        "SELECT coalesce(s.query_id, g.query_id) AS query_id, "
        "coalesce(s.item_id, g.item_id) AS item_id, s.device, coalesce(g.rel, 0.0) AS rel, "
        "s.position AS rnk "
        "FROM shown s FULL OUTER JOIN event_relevance('demo_events') g USING (query_id, item_id)"
    )
    with pytest.raises(duckdb.Error, match=r"mean_ndcg: no row of the group is ranked"):
        con.execute(
            "SELECT device, mean_ndcg(query_id, rel, rnk, 10) FROM run_side GROUP BY device"
        ).fetchall()
    # the numbers the README quotes: the devices' short ideals (the NULL group filtered out, which
    # no check inside a group can see) against ndcg_summary's per-query devices
    wrong = con.execute(
        "SELECT round(mean_ndcg(query_id, rel, rnk, 10), 3) FROM run_side "
        "WHERE device IS NOT NULL GROUP BY device ORDER BY device"
    ).fetchall()
    right = con.execute(
        "SELECT round(mean_ndcg, 3) FROM ndcg_summary('shown', 'demo_events', "
        "slice_by := ['device']) ORDER BY device"
    ).fetchall()
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    quoted = " / ".join(f"{v:.3f}" for (v,) in wrong) + " per device on the demo log instead of "
    assert quoted + " / ".join(f"{v:.3f}" for (v,) in right) in readme
