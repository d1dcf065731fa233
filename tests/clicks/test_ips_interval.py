"""The bootstrap interval of ips_estimate and slate_estimate (ci := 'bootstrap'): the
terms each resamples (checked against bootstrap_ci over terms computed here, in Python), and the
interval against obp 0.5.7's estimate_interval (the same percentile bootstrap with numpy's
draws, recorded by tests/fixtures/clicks/make_obp_fixtures.py and make_obp_slate_fixtures.py)
within Monte-Carlo error: both ends within a tenth of obp's interval width."""

from __future__ import annotations

import re

import duckdb
import pytest
from clicks_data import FIXTURES, ROOT, read_csv
from test_ips_estimate import LOGS, POLICY
from test_slate_estimate import SLATES, SUFFIX


def bootstrap(con: duckdb.DuckDBPyConnection, values: list[float], resamples: int,
              seed: int) -> tuple[float, float]:
    """bootstrap_ci's interval of the mean of ``values`` (the project's statistic, tested
    against scipy in tests/stats)."""
    con.execute("CREATE OR REPLACE TEMP TABLE terms (v DOUBLE)")
    con.executemany("INSERT INTO terms VALUES (?)", [(v,) for v in values])
    ci = con.execute(f"SELECT bootstrap_ci(v, 0, resamples := {resamples}, seed := {seed}) "
                     "FROM terms").fetchone()[0]
    return ci["ci_low"], ci["ci_high"]


@pytest.fixture
def small(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE OR REPLACE TABLE ci_logs AS SELECT * FROM (VALUES "
                + ", ".join(map(str, LOGS)) + ") v(item_id, position, click, propensity_score)")
    log.execute("CREATE OR REPLACE TABLE ci_policy AS SELECT * FROM (VALUES "
                + ", ".join(map(str, POLICY)) + ") v(item_id, position, probability)")
    return log


@pytest.mark.versions
def test_ips_resamples_the_rows_terms(small: duckdb.DuckDBPyConnection) -> None:
    """Weights by hand (test_ips_estimate): 2, 0 at position 1, 2, 2 at position 2; terms click
    × w: 2, 0 | 0, 2; clipped at 1.5: 1.5, 0 | 0, 1.5. SNIPS: the IPS interval / the mean
    weight (1, 2 and 1.5 overall)."""
    terms = {"ips": [[2.0, 0.0], [0.0, 2.0]], "clipped": [[1.5, 0.0], [0.0, 1.5]],
             "snips": [[2.0, 0.0], [0.0, 2.0]]}
    scale = {"snips": [1.0, 2.0, 1.5]}
    for estimator, (first, second) in terms.items():
        got = small.execute(
            f"SELECT ci_low, ci_high FROM ips_estimate('ci_logs', 'ci_policy', estimator := "
            f"'{estimator}', clip := 1.5, ci := 'bootstrap', resamples := 300, "
            f"seed := 7)").fetchall()
        want = [bootstrap(small, t, 300, 7) for t in (first, second, first + second)]
        want = [(lo / s, hi / s) for (lo, hi), s in zip(want, scale.get(estimator, [1] * 3))]
        assert got == [pytest.approx(w, abs=1e-15) for w in want], estimator
        assert want[2][0] < want[2][1]


@pytest.mark.versions
def test_slate_resamples_the_slates_sums(small: duckdb.DuckDBPyConnection) -> None:
    """IIPS by hand (test_slate_estimate): terms A 1 × 2, 0 × 2; B 0 × 0, 1 × 0.5. Per position
    the slates' terms (2, 0 and 0, 0.5), overall their sums per slate (2, 0.5); SNIIPS divides
    each position's terms by its mean weight (1 and 1.25)."""
    small.execute("CREATE OR REPLACE TABLE ci_slates AS SELECT * FROM (VALUES "
                  + ", ".join(map(str, SLATES)) + ") v(slate_id, position, click, pscore, "
                  "pscore_item_position, pscore_cascade, evaluation_pscore, "
                  "evaluation_pscore_item_position, evaluation_pscore_cascade)")
    for estimator, norm in (("iips", (1, 1)), ("sniips", (1, 1.25))):
        got = small.execute(
            f"SELECT ci_low, ci_high FROM slate_estimate('ci_slates', estimator := "
            f"'{estimator}', propensity_col := 'pscore_item_position', evaluation_col := "
            f"'evaluation_pscore_item_position', ci := 'bootstrap', resamples := 300, "
            f"seed := 7)").fetchall()
        first, second = [2 / norm[0], 0.0], [0.0, 0.5 / norm[1]]
        want = [bootstrap(small, t, 300, 7) for t in
                (first, second, [a + b for a, b in zip(first, second)])]
        assert got == [pytest.approx(w, abs=1e-15) for w in want], estimator


def within_obp(got: tuple[float, float], oracle: dict[str, str]) -> bool:
    low, high = float(oracle["ci_low"]), float(oracle["ci_high"])
    return abs(got[0] - low) < 0.1 * (high - low) and abs(got[1] - high) < 0.1 * (high - low)


def test_ips_near_obp(log: duckdb.DuckDBPyConnection) -> None:
    for name in ("obd_random_all", "obd_bts_policy"):
        log.execute(f"CREATE TABLE IF NOT EXISTS {name} AS "
                    f"SELECT * FROM read_csv('{FIXTURES / (name + '.csv')}')")
    oracle = {r["estimator"]: r for r in read_csv("obp_intervals.csv")}  # SNIPS: IPS's scaled, above
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("SELECT position, estimate, ci_low, ci_high")
    recipe = readme[start:readme.index(";", start)]  # IPS
    got = log.execute(recipe).fetchall()[-1]
    assert got[0] is None and got[2] < got[1] < got[3] and within_obp(got[2:], oracle["ipw"])


def test_slate_near_obp(log: duckdb.DuckDBPyConnection) -> None:
    log.execute("CREATE TABLE IF NOT EXISTS obp_slates AS "
                f"SELECT * FROM read_csv('{FIXTURES / 'obp_slate_log.csv'}')")
    oracle = {r["estimator"]: r for r in read_csv("obp_slate_intervals.csv")}
    for estimator, suffix in SUFFIX.items():
        got = log.execute(
            f"SELECT estimate, ci_low, ci_high FROM slate_estimate('obp_slates', estimator := "
            f"'{estimator}', propensity_col := 'pscore{suffix}', evaluation_col := "
            f"'evaluation_pscore{suffix}', ci := 'bootstrap', resamples := 200) "
            f"WHERE position IS NULL").fetchone()
        assert got[1] < got[0] < got[2] and within_obp(got[1:], oracle[estimator]), (
            estimator, got)


def test_seed_none_and_errors(small: duckdb.DuckDBPyConnection) -> None:
    def interval(options: str) -> list:
        return small.execute("SELECT ci_low, ci_high FROM ips_estimate('ci_logs', 'ci_policy'"
                             f"{options})").fetchall()

    assert interval("") == [(None, None)] * 3
    # 40 rows, each its own position, weight 2, every third clicked: the seed moves the ends
    small.execute("CREATE OR REPLACE TABLE many AS SELECT i AS item_id, i AS position, "
                  "(i % 3 = 0)::INTEGER AS click, 0.5 AS propensity_score FROM range(40) t(i)")
    small.execute("CREATE OR REPLACE TABLE many_policy AS SELECT i AS item_id, i AS position, "
                  "1.0 AS probability FROM range(40) t(i)")

    def overall(seed: int) -> tuple:
        return small.execute(
            "SELECT ci_low, ci_high FROM ips_estimate('many', 'many_policy', ci := "
            f"'bootstrap', resamples := 200, seed := {seed}) WHERE position IS NULL").fetchone()

    assert overall(3) == overall(3) != overall(4)
    for options, words in (
            (", ci := 'bca'", "ci must be 'none' or 'bootstrap', got 'bca'"),
            (", ci := NULL", "ci must be 'none' or 'bootstrap', got NULL"),
            (", ci := 'bootstrap', conf := 1.5", "conf must be between 0 and 1"),
            (", ci := 'bootstrap', resamples := 0", "resamples must be a whole number")):
        with pytest.raises(duckdb.Error, match=re.escape(words)):
            interval(options)
    with pytest.raises(duckdb.Error, match=re.escape(
            "ci must be 'none' or 'bootstrap', got 'bca'")):
        small.execute("SELECT * FROM slate_estimate('ci_logs', slate_col := 'item_id', "
                      "evaluation_col := 'propensity_score', ci := 'bca')").fetchall()


def test_bad_row_is_the_estimates_error(small: duckdb.DuckDBPyConnection) -> None:
    """A propensity of 0 with the interval on: the estimate's error naming the column, not the
    bootstrap's complaint about an infinite term."""
    small.execute("CREATE OR REPLACE TABLE zero_logs AS SELECT * REPLACE (CASE WHEN item_id = 3 "
                  "THEN 0.0 ELSE propensity_score END AS propensity_score) FROM ci_logs")
    with pytest.raises(duckdb.Error, match=re.escape(
            "propensity_score of logs table zero_logs must be a probability in (0, 1]")):
        small.execute("SELECT * FROM ips_estimate('zero_logs', 'ci_policy', "
                      "ci := 'bootstrap', resamples := 20)").fetchall()
