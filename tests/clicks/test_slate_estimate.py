"""slate_estimate: SIPS, IIPS, RIPS and their self-normalised forms over a slate log, against obp
0.5.7 on its seeded synthetic slate log (fixtures recorded offline by
tests/fixtures/clicks/make_obp_slate_fixtures.py) and against hand-computed numbers."""

from __future__ import annotations

import re
from collections import defaultdict

import duckdb
import pytest
from clicks_data import FIXTURES, read_csv

# estimator: the suffix of the obp probability columns it weighs
SUFFIX = {"sips": "", "iips": "_item_position", "rips": "_cascade",
          "snsips": "", "sniips": "_item_position", "snrips": "_cascade"}

# Two slates of two positions: (slate, position, reward, logging probability of the slate, of the
# item at the position, of the prefix, then the new policy's three).
#   A: rewards 1, 0; logging slate 1/8, items 1/2, 1/4, prefixes 1/2, 1/8;
#      new slate 1/2, items 1, 1/2, prefixes 1, 1/2.
#   B: rewards 0, 1; logging slate 1/4, items 1/2, 1/2, prefixes 1/2, 1/4; new: all 0 but item 2 1/4.
# SIPS: w_A = 4, w_B = 0: position 1 (1 × 4) / 2 slates = 2, position 2 (0 + 1 × 0) / 2 = 0;
#   SNSIPS divides by the mean weight of all rows (4 + 4 + 0 + 0) / 4 = 2: 1 and 0.
# IIPS: w = 2, 2 | 0, 0.5: position 1 2 / 2 = 1, position 2 (1 × 0.5) / 2 = 0.25; SNIIPS divides
#   each position by its mean weight, 1 and 1.25: 1 and 0.2.
# RIPS: w = 2, 4 | 0, 0: position 1 1, position 2 0; SNRIPS: mean weights 1, 2: 1 and 0.
# ESS per position (Σw)²/Σw²: SIPS 1, 1; IIPS 1, 2.5² / 4.25; RIPS 1, 1; overall the smallest.
SLATES = [("A", 1, 1, 1 / 8, 1 / 2, 1 / 2, 1 / 2, 1.0, 1.0),
          ("A", 2, 0, 1 / 8, 1 / 4, 1 / 8, 1 / 2, 1 / 2, 1 / 2),
          ("B", 1, 0, 1 / 4, 1 / 2, 1 / 2, 0.0, 0.0, 0.0),
          ("B", 2, 1, 1 / 4, 1 / 2, 1 / 4, 0.0, 1 / 4, 0.0)]
BY_HAND = {  # estimator: (position 1, position 2, all), ess of (1, 2, all), max weight
    "sips": ((2, 0, 2), (1, 1, 1), 4),
    "snsips": ((1, 0, 1), (1, 1, 1), 4),
    "iips": ((1, 0.25, 1.25), (1, 6.25 / 4.25, 1), 2),
    "sniips": ((1, 0.2, 1.2), (1, 6.25 / 4.25, 1), 2),
    "rips": ((1, 0, 1), (1, 1, 1), 4),
    "snrips": ((1, 0, 1), (1, 1, 1), 4),
}
COLUMNS = ("slate_id, position, click, pscore, pscore_item_position, pscore_cascade, "
           "evaluation_pscore, evaluation_pscore_item_position, evaluation_pscore_cascade")


def estimate(con: duckdb.DuckDBPyConnection, logs: str, estimator: str, extra: str = "") -> list:
    suffix = SUFFIX.get(estimator, "")
    return con.execute(
        f"SELECT position, slates, rows, covered, logged_reward, estimate, relative, ess, "
        f"max_weight, warning FROM slate_estimate('{logs}', estimator := '{estimator}', "
        f"propensity_col := 'pscore{suffix}', "
        f"evaluation_col := 'evaluation_pscore{suffix}'{extra})"
    ).fetchall()


@pytest.fixture
def obp_slates(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE TABLE IF NOT EXISTS obp_slates AS "
                f"SELECT * FROM read_csv('{FIXTURES / 'obp_slate_log.csv'}')")
    return log


@pytest.mark.versions
def test_equal_obp_on_a_synthetic_slate_log(obp_slates: duckdb.DuckDBPyConnection) -> None:
    """Each of obp's six slate estimators, per position and overall, to 1e-12; the ESS and
    largest weight from the fixture's probabilities, computed here."""
    oracle = {r["position"] or None: r for r in read_csv("obp_slate_estimates.csv")}
    rows = read_csv("obp_slate_log.csv")
    for estimator, suffix in SUFFIX.items():
        weights = defaultdict(list)
        for r in rows:
            weights[r["position"]].append(float(r[f"evaluation_pscore{suffix}"])
                                          / float(r[f"pscore{suffix}"]))
        ess = {p: sum(w) ** 2 / sum(x * x for x in w) for p, w in weights.items()}
        got = estimate(obp_slates, "obp_slates", estimator)
        assert [p for p, *_ in got] == [1, 2, 3, None]
        for position, slates, n, _covered, _logged, value, _rel, got_ess, max_w, warning in got:
            key = None if position is None else str(position)
            assert slates == 300 and n == (900 if key is None else 300) and warning is None
            assert value == pytest.approx(float(oracle[key][estimator]), abs=1e-12), (
                estimator, position)
            want_ess = min(ess.values()) if key is None else ess[key]
            assert got_ess == pytest.approx(want_ess, rel=1e-12)
            want_max = max(max(w) for p, w in weights.items() if key in (None, p))
            assert max_w == pytest.approx(want_max, rel=1e-12)


@pytest.fixture
def small(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE OR REPLACE TABLE hand_slates (slate_id VARCHAR, position INTEGER, "
                "click INTEGER, pscore DOUBLE, pscore_item_position DOUBLE, pscore_cascade "
                "DOUBLE, evaluation_pscore DOUBLE, evaluation_pscore_item_position DOUBLE, "
                "evaluation_pscore_cascade DOUBLE)")
    log.executemany("INSERT INTO hand_slates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", SLATES)
    return log


@pytest.mark.versions
def test_by_hand(small: duckdb.DuckDBPyConnection) -> None:
    for estimator, (values, ess, max_weight) in BY_HAND.items():
        got = estimate(small, "hand_slates", estimator)
        # covered: w > 0 on A's rows, and for IIPS on B's second row too
        covered = (1, 2, 3) if estimator.endswith("iips") else (1, 1, 2)
        assert [row[1:4] for row in got] == [(2, 2, covered[0]), (2, 2, covered[1]),
                                             (2, 4, covered[2])]
        assert [row[0] for row in got] == [1, 2, None]
        assert [row[4] for row in got] == [0.5, 0.5, 1.0]
        assert [row[5] for row in got] == pytest.approx(values, abs=1e-15), estimator
        assert [row[7] for row in got] == pytest.approx(ess, abs=1e-15), estimator
        assert got[-1][8] == max_weight and got[-1][6] == pytest.approx(values[2] / 1.0)


BAD = [  # (id, estimator, the row replaced in slate A position 1, the error's words)
    ("propensity-0", "iips", {"pscore_item_position": 0.0},
     ("pscore_item_position of logs table s must be a probability in (0, 1] (1 rows are NULL, 0 "
     "or above 1)")),
    ("propensity-null", "rips", {"pscore_cascade": None}, "(1 rows are NULL, 0 or above 1)"),
    ("propensity-above-1", "sips", {"pscore": 1.5},
     "pscore of logs table s must be a probability in (0, 1]"),
    ("evaluation-above-1", "iips", {"evaluation_pscore_item_position": 1.5},
     ("evaluation_pscore_item_position of logs table s must be a probability in [0, 1] (1 rows "
     "are NULL, below 0 or above 1)")),
    ("evaluation-null", "sniips", {"evaluation_pscore_item_position": None},
     "evaluation_pscore_item_position of logs table s must be a probability in [0, 1]"),
    ("reward-null", "iips", {"click": None},
     "click of logs table s must be a finite number (1 rows are not)"),
    ("slate-null", "iips", {"slate_id": None},
     "logs table s has NULL in slate_id or position (1 rows)"),
    ("position-twice", "iips", {"position": 2},
     "logs table s lists 1 (slate_id, position) more than once"),
    ("slate-probability-varies", "sips", {"pscore": 0.5},
     ("estimator := 'sips' weighs the probability of the whole slate, the same on each of its "
     "rows, but pscore of logs table s differs within 1 slate_id values")),
    ("new-slate-probability-varies", "snsips", {"evaluation_pscore": 0.25},
     "but evaluation_pscore of logs table s differs within 1 slate_id values"),
    ("prefix-grows", "rips", {"pscore_cascade": 0.1},
     ("estimator := 'rips' weighs the probability of the slate down to the position, which "
     "cannot grow down a slate, but pscore_cascade of logs table s grows in 1 rows")),
    ("estimator", "dr", {},
     "estimator must be 'sips', 'iips', 'rips', 'snsips', 'sniips' or 'snrips', got 'dr'"),
]


def test_bad_input(small: duckdb.DuckDBPyConnection, check_cases) -> None:
    names = [c.strip() for c in COLUMNS.split(",")]

    def case(estimator: str, change: dict, words: str):
        def check() -> None:
            rows = [dict(zip(names, SLATES[0])) | change, *(dict(zip(names, r))
                                                            for r in SLATES[1:])]
            small.execute("CREATE OR REPLACE TABLE s AS SELECT * FROM hand_slates LIMIT 0")
            small.executemany(f"INSERT INTO s VALUES ({', '.join('?' * len(names))})",
                              [tuple(r.values()) for r in rows])
            with pytest.raises(duckdb.Error, match=re.escape(words)):
                estimate(small, "s", estimator)
        return check

    check_cases((name, case(*rest)) for name, *rest in BAD)


def test_warnings(small: duckdb.DuckDBPyConnection) -> None:
    small.execute("CREATE OR REPLACE TABLE nothing AS SELECT * REPLACE (0.0 AS evaluation_pscore) "
                  "FROM hand_slates")
    got = estimate(small, "nothing", "snsips")
    assert got[-1][5] is None and got[-1][7] == 0
    assert got[-1][9] == "the new policy covers none of the 4 logged rows"
    # 200 one-position slates, one weighing 1000, the others 0.001: ESS ≈ 1.0004 < 2
    small.execute("CREATE OR REPLACE TABLE skewed AS SELECT i AS slate_id, 1 AS position, "
                  "i % 2 AS click, CASE WHEN i = 0 THEN 0.001 ELSE 1.0 END AS pscore, "
                  "CASE WHEN i = 0 THEN 1.0 ELSE 0.001 END AS evaluation_pscore "
                  "FROM range(200) t(i)")
    got = estimate(small, "skewed", "sips")
    assert got[-1][7] == pytest.approx(1.0, abs=1e-3) and got[-1][9] == (
        "effective sample size 1.0 is below 1 % of the 200 logged slates: the estimate rests "
        "on a few slates")


def test_readme_recipe(obp_slates: duckdb.DuckDBPyConnection) -> None:
    """The README's deterministic new ranking (item 4 at position 1, item 2 at 2, item 1 at 3)
    scored by SNRIPS against the same estimate written here in Python: a row's new prefix
    probability is 1 while every row above it (and itself) matches the ranking."""
    from clicks_data import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("CREATE TABLE scored AS")
    recipe = readme[start:readme.index("```", start)]
    # the session's connection is shared: the recipe's tables under this module's names
    for name, ours in (("slates AS s", "obp_slates AS s"), ("new_ranking AS n", "slate_run AS n"),
                       ("TABLE scored", "OR REPLACE TABLE slate_scored"),
                       ("'scored'", "'slate_scored'")):
        assert name in recipe
        recipe = recipe.replace(name, ours)
    obp_slates.execute("CREATE OR REPLACE TABLE slate_run AS SELECT * FROM (VALUES (4, 1), "
                       "(2, 2), (1, 3)) v(item_id, position)")
    create, select = recipe.split(";")[:2]
    obp_slates.execute(create)
    got = obp_slates.execute(select).fetchall()

    ranking = {1: "4", 2: "2", 3: "1"}
    by_slate = defaultdict(dict)
    for r in read_csv("obp_slate_log.csv"):
        by_slate[r["slate_id"]][int(r["position"])] = r
    weights = defaultdict(list)
    for slate in by_slate.values():
        matched = True
        for position in sorted(slate):
            r = slate[position]
            matched = matched and r["item_id"] == ranking[position]
            weights[position].append((float(r["click"]), matched / float(r["pscore_cascade"])))
    n = len(by_slate)
    want = {p: sum(c * w for c, w in cw) / (sum(w for _, w in cw) / len(cw)) / n
            for p, cw in weights.items()}
    assert [p for p, *_ in got] == [1, 2, 3, None]
    assert [v for _, v, _ in got] == pytest.approx(
        [want[1], want[2], want[3], sum(want.values())], abs=1e-12)
    assert all(v > 0 for v in want.values())
