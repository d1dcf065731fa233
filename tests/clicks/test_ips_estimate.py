"""ips_estimate: off-policy click-rate estimates from a logged policy's impressions, against obp
0.5.7 on its shipped Open Bandit Dataset sample (fixtures recorded offline by
tests/fixtures/clicks/make_obp_fixtures.py) and against hand-computed numbers."""

from __future__ import annotations

import re

import duckdb
import pytest
from clicks_data import FIXTURES, ROOT, read_csv

# Four logged rows (item, position, click, propensity) and a new policy (item, position,
# probability). Weights: row 1 1 / 0.5 = 2; row 2 0 (item 2 is not in the policy); rows 3 and 4
# 0.5 / 0.25 = 2. Position 1: IPS (1 × 2 + 0) / 2 = 1, SNIPS 2 / 2 = 1, ESS 2² / 2² = 1.
# Position 2: IPS (0 + 1 × 2) / 2 = 1, SNIPS 2 / 4 = 0.5, ESS 4² / 8 = 2. All: IPS 4 / 4 = 1,
# SNIPS 4 / 6, ESS 6² / 12 = 3. Clipped at 1.5: every weight 2 -> 1.5: 1.5 / 2 = 0.75 each.
LOGS = [(1, 1, 1, 0.5), (2, 1, 0, 0.5), (1, 2, 0, 0.25), (3, 2, 1, 0.25)]
POLICY = [(1, 1, 1.0), (3, 2, 0.5), (1, 2, 0.5)]
BY_HAND = {  # estimator: [(position, rows, covered, logged_ctr, estimate, ess, max_weight)]
    "ips": [(1, 2, 1, 0.5, 1.0, 1.0, 2.0), (2, 2, 2, 0.5, 1.0, 2.0, 2.0),
            (None, 4, 3, 0.5, 1.0, 3.0, 2.0)],
    "snips": [(1, 2, 1, 0.5, 1.0, 1.0, 2.0), (2, 2, 2, 0.5, 0.5, 2.0, 2.0),
              (None, 4, 3, 0.5, 4 / 6, 3.0, 2.0)],
    "clipped": [(1, 2, 1, 0.5, 0.75, 1.0, 1.5), (2, 2, 2, 0.5, 0.75, 2.0, 1.5),
                (None, 4, 3, 0.5, 0.75, 3.0, 1.5)],
}


@pytest.fixture
def obd(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    for name in ("obd_random_all", "obd_bts_policy"):
        log.execute(f"CREATE TABLE IF NOT EXISTS {name} AS "
                    f"SELECT * FROM read_csv('{FIXTURES / (name + '.csv')}')")
    return log


@pytest.mark.versions
def test_equal_obp_on_the_open_bandit_sample(obd: duckdb.DuckDBPyConnection) -> None:
    """IPW, SNIPW and clipped IPW (lambda_ 10) of obp's README policy (Bernoulli TS) on its
    random-policy logs, overall and per position, to 1e-12; the ESS and largest weight of obp's
    own weights; and the README's 1.198126... (IPW / the logged click rate)."""
    oracle = {r["position"] or None: r for r in read_csv("obp_estimates.csv")}
    for estimator, column, extra in (("ips", "ipw", ""), ("snips", "snipw", ""),
                                     ("clipped", "ipw_clipped", ", clip := 10")):
        got = estimate(obd, "obd_random_all", "obd_bts_policy",
                       f", estimator := '{estimator}'{extra}")
        assert [None if p is None else str(p) for p, *_ in got] == ["1", "2", "3", None]
        for position, rows, _covered, ctr, value, ess, max_weight, relative, warning in got:
            want = oracle[None if position is None else str(position)]
            assert rows == int(want["rows"]) and warning is None
            assert value == pytest.approx(float(want[column]), abs=1e-12), (estimator, position)
            assert ctr == pytest.approx(float(want["logged_ctr"]), abs=1e-15)
            if estimator != "clipped":
                assert ess == pytest.approx(float(want["ess"]), rel=1e-12)
                assert max_weight == pytest.approx(float(want["max_weight"]), rel=1e-12)
        if estimator == "ips":
            assert got[-1][7] == pytest.approx(1.198126315789, abs=1e-12)


def test_readme_recipe(obd: duckdb.DuckDBPyConnection) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("SELECT position, estimate, relative")
    got = obd.execute(readme[start:readme.index(";", start)]).fetchall()
    assert got[-1][0] is None and round(got[-1][2], 6) == 1.198126


@pytest.fixture
def small(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE OR REPLACE TABLE ips_logs (item_id INTEGER, position INTEGER, "
                "click INTEGER, propensity_score DOUBLE)")
    log.executemany("INSERT INTO ips_logs VALUES (?, ?, ?, ?)", LOGS)
    log.execute("CREATE OR REPLACE TABLE ips_policy (item_id INTEGER, position INTEGER, "
                "probability DOUBLE)")
    log.executemany("INSERT INTO ips_policy VALUES (?, ?, ?)", POLICY)
    return log


def estimate(con: duckdb.DuckDBPyConnection, logs: str, policy: str, extra: str = "") -> list:
    return con.execute(
        f"SELECT position, rows, covered, logged_ctr, estimate, ess, max_weight, relative, "
        f"warning FROM ips_estimate('{logs}', '{policy}'{extra})"
    ).fetchall()


@pytest.mark.versions
def test_by_hand(small: duckdb.DuckDBPyConnection) -> None:
    for estimator, expected in BY_HAND.items():
        clip = ", clip := 1.5" if estimator == "clipped" else ""
        got = estimate(small, "ips_logs", "ips_policy", f", estimator := '{estimator}'{clip}")
        assert [row[:4] for row in got] == [row[:4] for row in expected]
        assert [x for row in got for x in row[4:7]] == pytest.approx(
            [x for row in expected for x in row[4:]], abs=1e-15), estimator
        assert [row[7] for row in got] == pytest.approx([r[4] / r[3] for r in expected])
        assert [row[8] for row in got] == [None, None, None]


def test_policy_per_query(small: duckdb.DuckDBPyConnection) -> None:
    """query_col: the policy's probabilities are per query. The hand example split over two
    queries (rows 1-2 of q1, rows 3-4 of q2), each query's policy holding its rows' pairs, gives
    the same numbers; without query_col the per-query policy sums above 1 and is an error."""
    small.execute("CREATE OR REPLACE TABLE q_logs AS SELECT *, CASE WHEN position = 1 THEN 'q1' "
                  "ELSE 'q2' END AS query_id FROM ips_logs")
    small.execute("CREATE OR REPLACE TABLE q_policy AS SELECT *, CASE WHEN position = 1 THEN "
                  "'q1' ELSE 'q2' END AS query_id FROM ips_policy UNION ALL SELECT 4, 2, 0.9, "
                  "'q9'")
    got = estimate(small, "q_logs", "q_policy", ", estimator := 'snips', query_col := 'query_id'")
    assert [row[:4] for row in got] == [row[:4] for row in BY_HAND["snips"]]
    assert [x for row in got for x in row[4:7]] == pytest.approx(
        [x for row in BY_HAND["snips"] for x in row[4:]], abs=1e-15)
    with pytest.raises(duckdb.Error, match=re.escape(
            "the probabilities of policy table q_policy at position 2 sum to more than 1 (a "
            "policy per query takes query_col := <its column>)")):
        estimate(small, "q_logs", "q_policy")


def test_warnings(small: duckdb.DuckDBPyConnection) -> None:
    small.execute("CREATE OR REPLACE TABLE elsewhere AS SELECT 9 AS item_id, 1 AS position, "
                  "1.0 AS probability")
    got = estimate(small, "ips_logs", "elsewhere", ", estimator := 'snips'")
    assert got[-1][4] is None and got[-1][5] == 0
    assert got[-1][8] == "the new policy covers none of the 4 logged rows"
    # one row of 200 weighs 1000, the others 0.001: ESS (1000 + 0.199)² / (1e6 + 199e-6) ≈ 1.0004
    small.execute("CREATE OR REPLACE TABLE skewed AS SELECT i AS item_id, 1 AS position, "
                  "i % 2 AS click, CASE WHEN i = 0 THEN 0.001 ELSE 1.0 END AS propensity_score "
                  "FROM range(200) t(i)")
    small.execute("CREATE OR REPLACE TABLE skewed_policy AS SELECT i AS item_id, 1 AS position, "
                  "CASE WHEN i = 0 THEN 1.0 ELSE 0.0 END AS probability FROM range(200) t(i)")
    got = estimate(small, "skewed", "skewed_policy")
    assert got[-1][5] == pytest.approx(1.0) and got[-1][8] == (
        "effective sample size 1.0 is below 1 % of the 200 logged rows: the estimate rests on "
        "a few rows")


BAD = [  # (id, logs rows, policy rows, options, the error's words)
    ("propensity-0", "(1, 1, 1, 0.0)", "(1, 1, 1.0)", "",
     ("propensity_score of logs table l must be a probability in (0, 1] (1 rows are NULL, 0 "
      "or above 1)")),
    ("propensity-null", "(1, 1, 1, NULL)", "(1, 1, 1.0)", "", "(1 rows are NULL, 0 or above 1)"),
    ("propensity-above-1", "(1, 1, 1, 1.5)", "(1, 1, 1.0)", "", "must be a probability in (0, 1]"),
    ("click-2", "(1, 1, 2, 0.5)", "(1, 1, 1.0)", "",
     "click of logs table l must be true/false or 1/0 (1 rows are not)"),
    ("probability-above-1", "(1, 1, 1, 0.5)", "(1, 1, 1.5)", "",
     "probability of policy table p must be a probability in [0, 1] (1 rows are not)"),
    ("policy-over-one", "(1, 1, 1, 0.5)", "(1, 1, 0.7), (2, 1, 0.6)", "",
     "the probabilities of policy table p at position 1 sum to more than 1"),
    ("policy-twice", "(1, 1, 1, 0.5)", "(1, 1, 0.5), (1, 1, 0.5)", "",
     "policy table p lists 1 (item_id, position) more than once"),
    ("clip-missing", "(1, 1, 1, 0.5)", "(1, 1, 1.0)", ", estimator := 'clipped'",
     "estimator := 'clipped' needs clip := <the largest weight, a number > 0>, got NULL"),
    ("estimator", "(1, 1, 1, 0.5)", "(1, 1, 1.0)", ", estimator := 'dr'",
     "estimator must be 'ips', 'snips' or 'clipped', got 'dr'"),
]


def test_bad_input(log: duckdb.DuckDBPyConnection, check_cases) -> None:
    def case(logs: str, policy: str, extra: str, words: str):
        def check() -> None:
            log.execute(f"CREATE OR REPLACE TABLE l AS SELECT * FROM (VALUES {logs}) "
                        "v(item_id, position, click, propensity_score)")
            log.execute(f"CREATE OR REPLACE TABLE p AS SELECT * FROM (VALUES {policy}) "
                        "v(item_id, position, probability)")
            with pytest.raises(duckdb.Error, match=re.escape(words)):
                estimate(log, "l", "p", extra)
        return check

    check_cases((name, case(*rest)) for name, *rest in BAD)
