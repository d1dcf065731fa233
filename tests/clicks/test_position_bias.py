"""position_bias: examination propensity per position, against ultr-bias-toolkit and PyClick.

ultr-bias-toolkit's and PyClick's numbers are fixtures recorded offline on the seeded log
(tests/fixtures/clicks/make_ultr_fixtures.py, make_pyclick_fixtures.py); the NULL-with-a-reason
cases and a small harvest are computed by hand.
"""

from __future__ import annotations

import re

import duckdb
import pytest
from clicks_data import ROOT, read_csv

HARVESTED = ("ctr_ratio", "pivot", "adjacent_chain")


def bias(con: duckdb.DuckDBPyConnection, table: str, method: str, extra: str = "") -> list:
    return con.execute(
        f"SELECT position, propensity, impressions, clicks, pairs, note FROM position_bias("
        f"'{table}', method := '{method}'{extra})"
    ).fetchall()


@pytest.mark.versions
def test_equal_ultr_bias_toolkit(log: duckdb.DuckDBPyConnection) -> None:
    """The naive CTR ratio, the pivot (rank 1) and the adjacent chain to 1e-12 of the toolkit."""
    oracle = read_csv("ultr_bias.csv")
    for method in HARVESTED:
        got = {p: v for p, v, *_ in bias(log, "log", method)}
        assert sorted(got) == [int(r["position"]) for r in oracle]
        worst = max(abs(got[int(r["position"])] - float(r[method])) for r in oracle)
        assert worst < 1e-12, (method, worst)


def test_pbm_examination_equals_pyclick_and_recovers_the_truth(
    log: duckdb.DuckDBPyConnection,
) -> None:
    """PBM's examination relative to position 1 equals PyClick's ratio to 1e-12; the log was drawn
    with examination 1 / position, which it recovers within 0.1 (the pivot's and the chain's
    within 0.05; the naive ratio, which credits position for relevance, also within 0.05 here
    because the generator shuffles each page)."""
    exam = {int(r["position"]): float(r["pbm_exam"]) for r in read_csv("pyclick_exam.csv")}
    got = {p: v for p, v, *_ in bias(log, "log", "pbm", ", session_col := 'session_id'")}
    assert max(abs(got[p] - exam[p] / exam[1]) for p in exam) < 1e-12
    assert max(abs(got[p] - 1 / p) for p in exam) < 0.1
    for method in HARVESTED:
        got = {p: v for p, v, *_ in bias(log, "log", method)}
        assert max(abs(got[p] - 1 / p) for p in exam) < 0.05, method


# Item a at position 1 on pages s1, s2 (clicked both times) and at 2 on s3, s4 (clicked once);
# b at 2 on s1, s2 (clicked once) and at 1 on s3, s4 (clicked both times); c at 2 on s5, s6, never
# clicked. CTR at 1: 4/4; at 2: 2/6, so the naive ratio is 1/3. Harvested over a and b, shown at
# both: (1/2 + 1/2) / (1 + 1) = 1/2 (c, never moved, is not read).
SWAPPED = [("s1", "a", 1, 1), ("s2", "a", 1, 1), ("s3", "a", 2, 1), ("s4", "a", 2, 0),
           ("s1", "b", 2, 0), ("s2", "b", 2, 1), ("s3", "b", 1, 1), ("s4", "b", 1, 1),
           ("s5", "c", 2, 0), ("s6", "c", 2, 0)]


def make(con: duckdb.DuckDBPyConnection, name: str, rows: list) -> None:
    con.execute(f"CREATE OR REPLACE TABLE {name} (session_id VARCHAR, item_id VARCHAR, "
                "position INTEGER, click INTEGER, query_id VARCHAR DEFAULT 'q')")
    con.executemany(f"INSERT INTO {name} (session_id, item_id, position, click) "
                    "VALUES (?, ?, ?, ?)", rows)


@pytest.mark.versions
def test_by_hand(log: duckdb.DuckDBPyConnection) -> None:
    make(log, "swapped", SWAPPED)
    assert bias(log, "swapped", "ctr_ratio") == [(1, 1.0, 4, 4, None, None),
                                                 (2, 1 / 3, 6, 2, None, None)]
    for method in ("pivot", "adjacent_chain"):
        assert bias(log, "swapped", method) == [(1, 1.0, 4, 4, 2, None),
                                                (2, 0.5, 6, 2, 2, None)]


# Nothing moves: a always at 1, b at 2, c at 3; clicks on a, and on b half the time.
FIXED = [(f"s{i}", d, p, int(p == 1 or (p == 2 and i % 2 == 0)))
         for i in range(4) for d, p in (("a", 1), ("b", 2), ("c", 3))]


def test_null_with_a_reason(log: duckdb.DuckDBPyConnection) -> None:
    make(log, "fixed", FIXED)
    assert bias(log, "fixed", "pivot") == [
        (1, 1.0, 4, 4, 1, None),
        (2, None, 4, 2, None, "no (query, item) was shown at both position 1 and position 2"),
        (3, None, 4, 0, None, "no (query, item) was shown at both position 1 and position 3"),
    ]
    assert bias(log, "fixed", "adjacent_chain")[1:] == [
        (2, None, 4, 2, None, "no (query, item) was shown at both position 1 and position 2"),
        (3, None, 4, 0, None, "the chain broke at position 2"),
    ]
    assert bias(log, "fixed", "ctr_ratio") == [(1, 1.0, 4, 4, None, None),
                                               (2, 0.5, 4, 2, None, None),
                                               (3, 0.0, 4, 0, None, None)]
    # no clicks at the reference: the ratio has no denominator
    make(log, "unclicked", [(s, d, p, int(p == 2)) for s, d, p, _ in SWAPPED])
    assert bias(log, "unclicked", "ctr_ratio")[1][1:] == (None, 6, 6, None,
                                                          "no clicks at position 1")
    assert bias(log, "unclicked", "pivot")[1][1:] == (
        None, 6, 6, 2, "the 2 (query, item) shown at both have no clicks at position 1")


def test_bad_method_pages_and_clicks(log: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=re.escape(
            "2 (user_query, object_id, ordinal) of ubi have more clicks than impressions "
            "(action_name = 'impression')")):  # E (a click only); boots A (2 clicks, 1 impression)
        log.execute("SELECT * FROM position_bias('ubi', query_col := 'user_query', item_col := "
                    "'object_id', position_col := 'ordinal', action_col := 'action_name', "
                    "max_rank := 3)").fetchall()
    with pytest.raises(duckdb.Error, match=re.escape(
            "method must be 'ctr_ratio', 'pivot', 'adjacent_chain' or 'pbm', got 'em'")):
        bias(log, "log", "em")
    with pytest.raises(duckdb.Error, match=re.escape(
            "method := 'pbm' reads result pages: it needs session_col")):
        bias(log, "log", "pbm")


def test_readme_recipe(log: duckdb.DuckDBPyConnection) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("SELECT position, propensity")
    query = readme[start:readme.index(";", start)].replace("'events'", "'log'")
    got = log.execute(query).fetchall()
    oracle = read_csv("ultr_bias.csv")
    assert [p for p, *_ in got] == [int(r["position"]) for r in oracle]
    assert all(v == pytest.approx(float(r["pivot"]), abs=1e-12) for (_, v, *_), r in
               zip(got, oracle))
