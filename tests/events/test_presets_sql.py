"""``preset :=`` on ndcg_report and ndcg_summary: the third signature of each, which applies a
tool's NDCG conventions (conventions.PRESETS, the rows for the event report) as
``evaluate(preset=...)`` does.

Oracles: scikit-learn's ndcg_score (sklearn: equal scores averaged, the ideal from the scored
items' grades), hand-worked LightGBM/XGBoost and OpenSearch SRW numbers (those tools do not run
here), and the report with each PRESETS row's options given by hand. evaluate(preset=...) calls
this signature (tests/core/test_presets.py checks it against the same tools)."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

import duckdb
import numpy as np
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg.conventions import PRESETS

REPORT_PRESETS = sorted(name for name, row in PRESETS.items() if "evaluate" in row.surfaces)
# q1 scores b and c equally and grades d, never shown; q2 shows nothing relevant
SHOWN = [("q1", "a", 0.9, 1), ("q1", "b", 0.5, 2), ("q1", "c", 0.5, 3), ("q1", "e", 0.1, 4),
         ("q2", "x", 2.0, 1), ("q2", "y", 1.0, 2)]
EVENTS = [("q1", "b", "purchase"), ("q1", "c", "click"), ("q1", "e", "add_to_cart"),
          ("q1", "d", "purchase"), ("q2", "z", "click")]
L = [1 / math.log2(i + 1) for i in range(1, 6)]


def _connected() -> duckdb.DuckDBPyConnection:
    con = duckdb_ndcg.register(duckdb.connect())
    con.execute("CREATE TABLE shown (query_id VARCHAR, item_id VARCHAR, score DOUBLE, "
                "position INTEGER)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?, ?)", SHOWN)
    con.execute("CREATE TABLE events (query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", EVENTS)
    return con


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return _connected()


def _ndcg(con: duckdb.DuckDBPyConnection, call: str) -> dict[str, float]:
    return dict(con.sql(f"SELECT query_id, ndcg FROM {call}").fetchall())


def test_the_sql_presets_are_the_tables_rows(con) -> None:
    """_ndcg_preset_row holds each report preset of conventions.PRESETS as evaluate applies it,
    and no other."""
    for name, row in PRESETS.items():
        got = con.execute("SELECT _ndcg_preset_row(?)", [name]).fetchall()[0][0]
        if name not in REPORT_PRESETS:
            assert got is None, name
            continue
        assert got == {"ties": "average" if row.ties == "position" else row.ties,
                       "gain": row.gain, "empty_ideal": row.empty_ideal,
                       "ranked_ideal": row.ideal == "ranked",
                       "own_order": row.ties == "position", "rounding": row.rounding}, name


@pytest.mark.versions
def test_sklearn_is_ndcg_score(con) -> None:
    """q1's scored items graded 0 (a), 3 (b), 1 (c), 2 (e); d is not scored, so not in the
    ideal; b and c tie and are averaged. q2: no relevant scored item, 0."""
    got = _ndcg(con, "ndcg_report('shown', 'events', score_col := 'score', preset := 'sklearn')")
    q1 = ndcg_score(np.array([[0, 3, 1, 2]]), np.array([[0.9, 0.5, 0.5, 0.1]]), k=10)
    assert got == pytest.approx({"q1": q1, "q2": 0.0}, abs=1e-12)


def test_lightgbm_and_xgboost_by_hand(con) -> None:
    """Exponential gains in position order over the shown items' grades: q1 DCG 7 L2 + 1 L3 +
    3 L4 over the ideal 7 L1 + 3 L2 + 1 L3; q2 has no relevant shown item: 1."""
    q1 = (7 * L[1] + 1 * L[2] + 3 * L[3]) / (7 * L[0] + 3 * L[1] + 1 * L[2])
    for name in ("lightgbm", "xgboost"):
        got = _ndcg(con, f"ndcg_report('shown', 'events', preset := '{name}')")
        assert got == pytest.approx({"q1": q1, "q2": 1.0}, abs=1e-12), name


def test_opensearch_srw_by_hand(con) -> None:
    """Every judgment of the query in the ideal (d's purchase too), cut at k; rounded to 2."""
    ideal = 7 * L[0] + 7 * L[1] + 3 * L[2] + 1 * L[3]
    q1 = (7 * L[1] + 1 * L[2] + 3 * L[3]) / ideal
    got = _ndcg(con, "ndcg_report('shown', 'events', preset := 'opensearch_srw')")
    assert got == {"q1": round(q1, 2), "q2": 0.0}


@pytest.mark.parametrize("name", REPORT_PRESETS)
def test_each_preset_is_its_row_of_options(con, name: str) -> None:
    """The preset's rows are the report's with the options its PRESETS row names, given by hand:
    ties, gain, empty_ideal, the events of the shown pairs only for a ranked ideal, ndcg and dcg
    rounded half up; the summary likewise (a rounded preset has none)."""
    row = PRESETS[name]
    ranked = ", score_col := 'score'" if row.ties != "position" else ""
    events = "events"
    if row.ideal == "ranked":
        con.execute("CREATE OR REPLACE TABLE shown_events AS SELECT e.* FROM events e "
                    "SEMI JOIN shown s USING (query_id, item_id)")
        events = "shown_events"
    options = (f"ties := 'average', gain := '{row.gain}', empty_ideal := {row.empty_ideal}"
               f"{ranked}")
    want = con.sql(f"FROM ndcg_report('shown', '{events}', {options})").fetchall()
    if row.rounding is not None:
        def half_up(x: float) -> float:
            return math.floor(x * 10**row.rounding + 0.5) / 10**row.rounding
        want = [(q, k, half_up(n), half_up(d), *rest) for q, k, n, d, *rest in want]
    got = con.sql(f"FROM ndcg_report('shown', 'events', preset := '{name}'{ranked})").fetchall()
    assert sorted(got) == sorted(want)
    if row.rounding is None:
        got = con.sql(f"FROM ndcg_summary('shown', 'events', preset := '{name}'{ranked})")
        _same(got.fetchall(),
              con.sql(f"FROM ndcg_summary('shown', '{events}', {options})").fetchall())


def _same(got: list[tuple], want: list[tuple]) -> None:
    """Equal rows, floats to the last few bits (a summary's sums run over threads)."""
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert list(a) == pytest.approx(list(b), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("call", "words"), [
    ("ndcg_report('shown', 'events', preset := 'trec_eval')",
     ("preset 'trec_eval' applies to duckdb-ndcg trec (a run and its qrels), not to the event "
     "report")),
    ("ndcg_summary('shown', 'events', preset := 'nope')",
     ("preset must be 'sklearn', 'lightgbm', 'xgboost' or 'opensearch_srw' on the event report, "
     "got 'nope'")),
    ("ndcg_report('shown', 'events', preset := NULL)", "on the event report, got NULL"),
    ("ndcg_report('shown', 'events', preset := 'sklearn', gain := 'exponential')",
     "preset 'sklearn' sets gain := 'linear'; drop gain := 'exponential'"),
    ("ndcg_report('shown', 'events', preset := 'lightgbm', empty_ideal := NULL)",
     "preset 'lightgbm' sets empty_ideal := 1.0; drop empty_ideal := NULL"),
    ("ndcg_report('shown', 'events', preset := 'sklearn', ties := 'key')",
     "preset 'sklearn' sets ties := 'average'; drop ties := 'key'"),
    ("ndcg_report('shown', 'events', preset := 'xgboost', score_col := 'score')",
     ("preset 'xgboost' orders equal scores as xgboost does (input order), which a score column "
     "cannot tell: give the rank (position_col)")),
    ("ndcg_report('shown', 'events', preset := 'sklearn', metrics := ['ndcg', 'err'])",
     ("preset 'sklearn' fixes NDCG's conventions only: metrics must be ndcg (or judged_at_k), "
     "got [ndcg, err]")),
    ("ndcg_summary('shown', 'events', preset := 'opensearch_srw')",
     ("preset 'opensearch_srw' scores each query, rounded to 2 decimals, and has no mean over "
     "queries: use ndcg_report")),
])
def test_bad_preset_is_one_line(con, call: str, words: str) -> None:
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(words)) as error:
        con.sql(f"FROM {call}").fetchall()
    assert "\n" not in str(error.value).strip()


@pytest.mark.versions
def test_checked_on_empty_tables_and_never_bound_without_preset() -> None:
    """The preset is checked when no row is read; a call without preset does not bind the
    overload (the preset macros dropped, it still runs)."""
    con = _connected()  # its own: macros are dropped
    con.execute("CREATE TABLE none AS FROM events LIMIT 0")
    with pytest.raises(duckdb.InvalidInputException, match="got 'nope'"):
        con.sql("FROM ndcg_summary('shown', 'none', preset := 'nope')").fetchall()
    before = sorted(con.sql("FROM ndcg_report('shown', 'events')").fetchall())
    con.execute("DROP MACRO _ndcg_preset")
    con.execute("DROP MACRO _ndcg_preset_row")
    assert sorted(con.sql("FROM ndcg_report('shown', 'events')").fetchall()) == before
    with pytest.raises(duckdb.CatalogException, match="_ndcg_preset"):
        con.sql("FROM ndcg_report('shown', 'events', preset := 'sklearn')").fetchall()


def test_in_the_cli_from_a_persisted_file(duckdb_cli: Path, tmp_path: Path) -> None:
    path = tmp_path / "presets.duckdb"
    duckdb_ndcg.install(path)
    sql = ("SELECT query_id, ndcg FROM ndcg_report('shown', 'events', preset := 'lightgbm') "
           "ORDER BY query_id")
    with duckdb.connect(str(path)) as db:
        db.execute("CREATE TABLE shown AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 2)) "
                   "t(query_id, item_id, position)")
        db.execute("CREATE TABLE events AS SELECT * FROM (VALUES ('q1', 'b', 'click'), "
                   "('q1', 'z', 'purchase')) t(query_id, item_id, event_type)")
        ours = db.execute(sql).fetchall()
    assert ours == [("q1", pytest.approx(L[1] / L[0]))]  # z is not shown: not in the ideal
    result = subprocess.run([str(duckdb_cli), "-readonly", "-json", str(path), "-c", sql],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert [tuple(r.values()) for r in json.loads(result.stdout)] == ours


def test_readme_recipe(con) -> None:
    """The README's SQL lines in "Presets" run on this module's tables: scikit-learn's ndcg_score
    and the workbench's rounded NDCG worked by hand (as in the tests above)."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Presets: each tool's conventions"):]
    block = section[section.index("```sql\n") + 7:section.index("\n```", section.index("```sql"))]
    statements = [line.split(";")[0] for line in block.splitlines()]
    assert len(statements) == 2
    sklearn = ndcg_score(np.array([[0, 3, 1, 2]]), np.array([[0.9, 0.5, 0.5, 0.1]]), k=10)
    srw = (7 * L[1] + 1 * L[2] + 3 * L[3]) / (7 * L[0] + 7 * L[1] + 3 * L[2] + 1 * L[3])
    for sql, want in zip(statements, ({"q1": sklearn, "q2": 0.0}, {"q1": round(srw, 2),
                                                                   "q2": 0.0})):
        got = {r[0]: r[2] for r in con.sql(sql).fetchall()}
        assert got == pytest.approx(want, abs=1e-12), sql
