"""Grades from a value column of the events (value_grades, gain := 'value') through every surface.

Oracle: scikit-learn's ndcg_score and dcg_score (linear gain, tied scores averaged) on the grades
the documented rule gives: a value v gets the grade of the largest threshold <= v, 0 below every
threshold (numpy.searchsorted, written here apart from the macros); gain := 'value' takes the
value as the grade. Every graded item in these logs is shown, so the ideal scikit-learn ranks
(the shown items) is the report's.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from sklearn.metrics import dcg_score, ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli

ROOT = Path(__file__).resolve().parents[2]
THRESHOLDS = {30.0: 1.0, 120.0: 2.0}
TYPE_GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}  # the default


def value_grade(v: float, grades: dict[float, float] = THRESHOLDS) -> float:
    """The documented rule: the grade of the largest threshold <= v; 0 below every threshold."""
    keys = np.array(list(grades))
    i = int(np.searchsorted(keys, v, side="right"))
    return 0.0 if i == 0 else list(grades.values())[i - 1]


def expected(shown: list[tuple], events: list[tuple], how: str, collapse: str, k: int | None):
    """(ndcg, dcg) per query by scikit-learn: an event of a type graded above 0 is graded by its
    value (how = 'grades': value_grade; 'value': the value), other events by type."""
    rel: dict[tuple[str, str], float] = {}
    for q, i, t, v in events:
        g = float(TYPE_GRADES[t])
        if g > 0:
            g = value_grade(v) if how == "grades" else v
        key = (q, i)
        rel[key] = g if key not in rel else (rel[key] + g if collapse == "sum" else max(rel[key], g))
    out = {}
    for q in sorted({s[0] for s in shown}):
        rows = [s for s in shown if s[0] == q]
        y_true = np.array([[rel.get((q, i), 0.0) for _, i, _ in rows]])
        y_score = np.array([[-float(p) for _, _, p in rows]])
        if len(rows) == 1:  # scikit-learn needs two items: add one graded 0, shown last
            y_true, y_score = np.append(y_true, [[0.0]], 1), np.append(y_score, [[-1e9]], 1)
        idcg = dcg_score(y_true, y_true, k=k)
        ndcg = ndcg_score(y_true, y_score, k=k) if idcg > 0 else 0.0
        out[q] = (ndcg, dcg_score(y_true, y_score, k=k))
    return out


SHOWN = [("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 3), ("q1", "d", 4),
         ("q2", "a", 1), ("q2", "e", 2), ("q2", "f", 2), ("q3", "x", 1), ("q3", "y", 2)]
EVENTS = [("q1", "a", "impression", None), ("q1", "a", "click", 12.0),
          ("q1", "b", "click", 45.0), ("q1", "c", "purchase", 150.0),
          ("q1", "c", "click", 30.0), ("q1", "d", "add_to_cart", 119.9),
          ("q2", "e", "purchase", 120.0), ("q2", "f", "click", 29.99), ("q2", "f", "click", 31.0),
          ("q3", "x", "impression", None), ("q3", "y", "click", 0.0)]


def load(con: duckdb.DuckDBPyConnection, shown: list[tuple], events: list[tuple]) -> None:
    con.execute("CREATE OR REPLACE TABLE shown (query_id VARCHAR, item_id VARCHAR, position INT)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?)", shown)
    con.execute("CREATE OR REPLACE TABLE events (query_id VARCHAR, item_id VARCHAR, "
                "event_type VARCHAR, value DOUBLE)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", events)


def report(con: duckdb.DuckDBPyConnection, options: str, k: int | None = 10) -> dict:
    rows = con.sql(f"SELECT query_id, ndcg, dcg FROM ndcg_report('shown', 'events', "
                   f"k := {'NULL' if k is None else k}, {options})").fetchall()
    return {q: (n, d) for q, n, d in rows}


def approx(found: dict) -> dict:
    return {q: (pytest.approx(n, abs=1e-12), pytest.approx(d, abs=1e-9))
            for q, (n, d) in found.items()}


@pytest.mark.versions
def test_hand_built_log(con: duckdb.DuckDBPyConnection) -> None:
    """q1: a 12 s -> 0, b 45 -> 1, c max(150 -> 2, 30 -> 1) = 2, d 119.9 -> 1; q2 ties e and f."""
    load(con, SHOWN, EVENTS)
    grades = "value_grades := MAP {30: 1, 120: 2}"
    assert report(con, grades) == approx(expected(SHOWN, EVENTS, "grades", "max", 10))
    assert report(con, grades, k=2) == approx(expected(SHOWN, EVENTS, "grades", "max", 2))
    # by hand, q1: DCG = 1/log2(3) + 2/2 + 1/log2(5), IDCG = 2 + 1/log2(3) + 1/2
    dcg = 1 / np.log2(3) + 1 + 1 / np.log2(5)
    assert report(con, grades)["q1"][0] == pytest.approx(dcg / (2 + 1 / np.log2(3) + 0.5),
                                                         abs=1e-12)
    for collapse in ("max", "sum"):
        got = report(con, f"gain := 'value', collapse := '{collapse}'", k=None)
        assert got == approx(expected(SHOWN, EVENTS, "value", collapse, None))


def generated_log(seed: int = 7) -> tuple[list[tuple], list[tuple]]:
    rng = np.random.default_rng(seed)
    shown, events = [], []
    for q in range(80):
        n = int(rng.integers(2, 12))
        for i in range(n):
            position = int(rng.integers(1, n + 1))  # ties on purpose
            shown.append((f"q{q}", f"i{i}", position))
            for _ in range(int(rng.poisson(1.2))):
                kind = str(rng.choice(list(TYPE_GRADES)))
                value = None if kind == "impression" else round(float(rng.exponential(80)), 2)
                events.append((f"q{q}", f"i{i}", kind, value))
    return shown, events


def test_generated_log(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    shown, events = generated_log()
    load(con, shown, events)

    def case(options: str, how: str, collapse: str, k: int | None):
        return lambda: (report(con, options + f", collapse := '{collapse}'", k)
                        == approx(expected(shown, events, how, collapse, k))) or pytest.fail(
            "differs from scikit-learn")

    check_cases([
        (f"{how}-{collapse}-k{k}",
         case("value_grades := MAP {30: 1, 120: 2}" if how == "grades" else "gain := 'value'",
              how, collapse, k))
        for how in ("grades", "value") for collapse, k in (("max", 3), ("sum", None))
    ])


def test_summary_evaluate_and_event_relevance(con: duckdb.DuckDBPyConnection) -> None:
    load(con, SHOWN, EVENTS)
    oracle = expected(SHOWN, EVENTS, "grades", "max", 10)
    mean = sum(n for n, _ in oracle.values()) / len(oracle)
    (got,) = con.sql("SELECT mean_ndcg FROM ndcg_summary('shown', 'events', "
                     "value_grades := '{30=1, 120=2}')").fetchall()[0]
    assert got == pytest.approx(mean, abs=1e-12)
    rel = duckdb_ndcg.evaluate("shown", "events", con=con, value_grades={30: 1, 120: 2})
    assert {q: (n, d) for q, _, n, d, *_ in rel.fetchall()} == approx(oracle)
    by_value = expected(SHOWN, EVENTS, "value", "sum", 10)
    rel = duckdb_ndcg.evaluate("shown", "events", con=con, gain="value", collapse="sum")
    assert {q: (n, d) for q, _, n, d, *_ in rel.fetchall()} == approx(by_value)
    graded = {(q, i): r for q, i, r in con.sql(
        "SELECT * FROM event_relevance('events', value_grades := MAP {30: 1, 120: 2})").fetchall()}
    assert graded[("q1", "c")] == 2.0 and graded[("q1", "a")] == 0.0
    assert graded[("q2", "f")] == 1.0 and graded[("q1", "d")] == 1.0


def test_cli(con: duckdb.DuckDBPyConnection, tmp_path: Path,
             capsys: pytest.CaptureFixture[str]) -> None:
    load(con, SHOWN, EVENTS)
    con.execute("ALTER TABLE events RENAME value TO dwell")
    for table in ("shown", "events"):
        con.execute(f"COPY {table} TO '{tmp_path / table}.csv' (HEADER)")
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"),
                     "--value-grades", "30=1,120=2", "--value-col", "dwell", "--output", "-"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    header = out[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in out[1:]]
    oracle = expected(SHOWN, EVENTS, "grades", "max", 10)
    assert {r["query_id"]: float(r["ndcg"]) for r in rows} == {
        q: pytest.approx(n, abs=1e-12) for q, (n, _) in oracle.items()}
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"),
                     "--value-grades", "120=2,30=1", "--value-col", "dwell"])
    err = capsys.readouterr().err
    assert code == 1 and "--value-grades" in err and "increasing order" in err
    assert cli.main(["evaluate", "s.csv", "e.csv", "--value-grades", "30:1"]) == 2
    assert "--value-grades" in capsys.readouterr().err


BAD = [  # (options, item b's value instead (in view events_b), words the one error line holds)
    ("value_grades := MAP {120: 2, 30: 1}", None, "value_grades {120=2, 30=1} must list"),
    ("value_grades := MAP {'a': 1}", None, "value_grades must be a MAP from value threshold"),
    ("value_grades := 'thirty'", None, "value_grades must be a MAP from value threshold"),
    ("value_grades := MAP {30: -1}", None, "gives the negative grade -1.0"),
    ("value_grades := MAP {30: 'nan'::DOUBLE}", None, "NaN, infinite or NULL threshold"),
    ("gain := 'value', value_grades := MAP {30: 1}", None, "pass one of them"),
    ("gain := 'bogus'", None, "or 'value' (the events' value_col as the grade), got 'bogus'"),
    ("gain := 'value', value_col := 'event_type'", None, ("value_col event_type of events table "
     "events is VARCHAR")),
    ("gain := 'value'", "NULL",
     "value_col value of events table events_b is NULL, NaN, infinite or negative (NULL)"),
    ("value_grades := MAP {30: 1}", "'nan'", "(nan)"),
    ("gain := 'value'", "-5", "(-5.0)"),
]


def test_bad_input(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    load(con, SHOWN, EVENTS)

    def case(options: str, value: str | None, words: str):
        def check() -> None:
            events = "events"
            if value:
                events = "events_b"
                con.execute("CREATE OR REPLACE VIEW events_b AS SELECT * REPLACE (CASE WHEN "
                            f"item_id = 'b' THEN {value}::DOUBLE ELSE value END AS value) "
                            "FROM events")
            # ndcg_summary shares the grading step: checked on the first case (a bind each)
            first = options == BAD[0][0]
            for macro in ("ndcg_report", "ndcg_summary") if first else ("ndcg_report",):
                with pytest.raises(duckdb.Error) as raised:
                    con.sql(f"SELECT * FROM {macro}('shown', '{events}', {options})").fetchall()
                message = str(raised.value)
                assert "duckdb_ndcg: " in message and words in message, message
                assert "\n" not in message.split("duckdb_ndcg: ")[1]
        return check

    check_cases([(options, case(options, value, words)) for options, value, words in BAD])


def test_python_bad_value_grades() -> None:
    with pytest.raises(ValueError, match="value_grades must be a MAP from value threshold"):
        duckdb_ndcg.evaluate("shown", "events", value_grades={"thirty": 1})


def test_readme_recipe(con: duckdb.DuckDBPyConnection) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### Value grades: revenue, dwell time, ratings\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### Value grades: revenue, dwell time, ratings'"
    block = re.search(r"```sql\n(.*?)```", section.group(1), re.DOTALL)
    results = [con.sql(s) for s in block.group(1).split(";") if s.strip()]
    by_grades, by_value = [r.fetchall()[0][0] for r in results[-2:]]
    # by scikit-learn: a 12 s -> 0, b 45 s -> 1, c max(150, 30) -> 2; revenue c = 150 + 30
    assert by_grades == pytest.approx(ndcg_score([[0, 1, 2]], [[3, 2, 1]]), abs=1e-12)
    assert by_value == pytest.approx(ndcg_score([[0, 0, 180]], [[3, 2, 1]]), abs=1e-12)
