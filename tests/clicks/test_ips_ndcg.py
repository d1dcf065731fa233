"""ips_ndcg: propensity-weighted click DCG/NDCG of a new ranking, against hand-computed numbers
and an independent Python computation of the README's definition (Joachims et al. 2017's IPS
estimate of DCG, the ideal over the same weighted clicks) on the seeded click log."""

from __future__ import annotations

import math
import re
from collections import defaultdict

import duckdb
import pytest
from clicks_data import FIXTURES, ROOT, read_csv

# Four searches. q1: s1 clicks a (position 1) and c (3), s2 clicks b (2), s3 nothing; q2: s4
# clicks y (2). The new ranking: q1 c, a, b; q2 y, x. With p = 1 / position (eta 1) the weights
# are 1, 2, 3 at positions 1, 2, 3.
#   s1: DCG = 3 / log2(2) + 1 / log2(3) (c now 1st, a 2nd) = its ideal (3 then 1): NDCG 1.
#   s2: DCG = 2 / log2(4) = 1 (b now 3rd), ideal 2 / log2(2) = 2: NDCG 0.5.  s3: DCG 0.
#   s4: DCG = 2 (y 1st) = ideal: NDCG 1.
# q1: ips_dcg (3 + 1 / log2(3) + 1 + 0) / 3, ips_ndcg (1 + 0.5) / 2; q2: 2 and 1;
# all searches: (3 + 1 / log2(3) + 1 + 2) / 4 and (1 + 0.5 + 1) / 3.
# k := 1: s1 DCG 3 = ideal 3; s2 0 (b is 3rd) of 2; so q1 (3 + 0) / 3 = 1 and 0.5.
LOG = [("s1", "q1", "a", 1, 1), ("s1", "q1", "b", 2, 0), ("s1", "q1", "c", 3, 1),
       ("s2", "q1", "a", 1, 0), ("s2", "q1", "b", 2, 1), ("s2", "q1", "c", 3, 0),
       ("s3", "q1", "a", 1, 0), ("s4", "q2", "x", 1, 0), ("s4", "q2", "y", 2, 1)]
RUN = [("q1", "c", 1), ("q1", "a", 2), ("q1", "b", 3), ("q2", "y", 1), ("q2", "x", 2)]
L3 = 1 / math.log2(3)
BY_HAND = {  # options: [(query, searches, clicked, ips_dcg, ips_ndcg, max_weight)]
    "": [("q1", 3, 2, (4 + L3) / 3, 0.75, 3.0), ("q2", 1, 1, 2.0, 1.0, 2.0),
         (None, 4, 3, (6 + L3) / 4, 2.5 / 3, 3.0)],
    ", k := 1": [("q1", 3, 2, 1.0, 0.5, 3.0), ("q2", 1, 1, 2.0, 1.0, 2.0),
                 (None, 4, 3, 5 / 4, 2 / 3, 3.0)],
}


@pytest.fixture
def small(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE OR REPLACE TABLE ndcg_clicks (session_id VARCHAR, query_id VARCHAR, "
                "item_id VARCHAR, position INTEGER, click INTEGER)")
    log.executemany("INSERT INTO ndcg_clicks VALUES (?, ?, ?, ?, ?)", LOG)
    log.execute("CREATE OR REPLACE TABLE ndcg_run (query_id VARCHAR, item_id VARCHAR, rnk "
                "INTEGER)")
    log.executemany("INSERT INTO ndcg_run VALUES (?, ?, ?)", RUN)
    return log


def run(con: duckdb.DuckDBPyConnection, logs: str, ranking: str, extra: str = "") -> list:
    return con.execute(f"SELECT query_id, searches, clicked, ips_dcg, ips_ndcg, max_weight "
                       f"FROM ips_ndcg('{logs}', '{ranking}'{extra})").fetchall()


@pytest.mark.versions
def test_by_hand(small: duckdb.DuckDBPyConnection) -> None:
    for options, expected in BY_HAND.items():
        got = run(small, "ndcg_clicks", "ndcg_run", options)
        assert [r[:3] for r in got] == [r[:3] for r in expected], options
        assert [x for r in got for x in r[3:]] == pytest.approx(
            [x for r in expected for x in r[3:]], abs=1e-15), options


def test_query_not_ranked_warns(small: duckdb.DuckDBPyConnection) -> None:
    small.execute("CREATE OR REPLACE TABLE q1_run AS SELECT * FROM ndcg_run WHERE query_id = 'q1'")
    got = small.execute("SELECT query_id, ips_dcg, warning FROM ips_ndcg('ndcg_clicks', "
                        "'q1_run')").fetchall()
    assert got == [("q1", pytest.approx((4 + L3) / 3), None),
                   ("q2", 0.0, "the new ranking has no row for this query: it scores 0"),
                   (None, pytest.approx((4 + L3) / 4),
                    "1 of the 2 logged queries have no row in the new ranking: they score 0")]


def python_ips_ndcg(rows: list[dict], ranking: dict, k: int, p) -> dict:
    """The README's definition, written independently of the SQL: {query (None: all):
    (searches, clicked, ips_dcg, ips_ndcg)}."""
    searches = defaultdict(list)
    for r in rows:
        searches[r["session_id"], r["query_id"]].append(r)
    per = defaultdict(list)  # query -> [(dcg, ndcg or None)]
    for (_, query), shown in searches.items():
        weights = {r["item_id"]: 1 / p(int(r["position"])) for r in shown if r["click"] == "1"}
        dcg = sum(w / math.log2(1 + ranking[query][d]) for d, w in weights.items()
                  if ranking.get(query, {}).get(d, k + 1) <= k)
        ideal = sorted(weights.values(), reverse=True)[:k]
        idcg = sum(w / math.log2(2 + j) for j, w in enumerate(ideal))
        per[query].append((dcg, dcg / idcg if ideal else None))
    per[None] = [v for q in list(per) for v in per[q]]
    out = {}
    for query, values in per.items():
        ndcgs = [n for _, n in values if n is not None]
        out[query] = (len(values), len(ndcgs), sum(d for d, _ in values) / len(values),
                      sum(ndcgs) / len(ndcgs) if ndcgs else None)
    return out


@pytest.mark.versions
def test_equal_python_on_the_seeded_log(log: duckdb.DuckDBPyConnection) -> None:
    """A new ranking of the seeded log (each query's items by PyClick's PBM grade, a fixture),
    with the power law (eta 1 and 0.5) and with a propensity table (PyClick's examination
    estimate of tests/fixtures/clicks/pyclick_exam.csv): to 1e-12 against the Python above."""
    grades = read_csv("pyclick_grades.csv")
    by_query = defaultdict(list)
    for g in grades:
        by_query[g["query_id"]].append((-float(g["pbm"]), g["item_id"]))
    ranking = {q: {d: i + 1 for i, (_, d) in enumerate(sorted(items))}
               for q, items in by_query.items()}
    log.execute("CREATE OR REPLACE TABLE pbm_run (query_id VARCHAR, item_id VARCHAR, rnk "
                "INTEGER)")
    log.executemany("INSERT INTO pbm_run VALUES (?, ?, ?)",
                    [(q, d, r) for q, items in ranking.items() for d, r in items.items()])
    exam = {int(r["position"]): float(r["pbm_exam"]) for r in read_csv("pyclick_exam.csv")}
    log.execute(f"CREATE OR REPLACE TABLE pbm_exam AS SELECT position, pbm_exam AS propensity "
                f"FROM read_csv('{FIXTURES / 'pyclick_exam.csv'}')")
    rows = read_csv("log.csv")
    for options, k, p in ((", k := 5", 5, lambda pos: 1 / pos),
                          (", k := 3, eta := 0.5", 3, lambda pos: pos ** -0.5),
                          (", propensity := 'pbm_exam'", 10, exam.__getitem__)):
        want = python_ips_ndcg(rows, ranking, k, p)
        got = run(log, "log", "pbm_run", options)
        assert {r[0] for r in got} == set(want)
        for query, searches, clicked, dcg, ndcg, _ in got:
            assert (searches, clicked) == want[query][:2]
            assert [dcg, ndcg] == pytest.approx(list(want[query][2:]), abs=1e-12), (
                options, query)


def test_readme_recipe(small: duckdb.DuckDBPyConnection) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("-- clicks(session_id, query_id, item_id, position, click)")
    recipe = readme[start:readme.index("```", start)]
    # the session's connection is shared: the recipe's tables under this module's names
    for name, ours in (("'clicks'", "'ndcg_clicks'"), ("'new_run'", "'ndcg_run'"),
                       ("TABLE bias", "TABLE ndcg_bias"), ("'bias'", "'ndcg_bias'")):
        assert name in recipe
        recipe = recipe.replace(name, ours)
    statements = [s for s in recipe.split(";") if s.strip()]
    for statement in statements[:-1]:
        small.execute(statement)
    got = small.execute(statements[-1]).fetchall()
    # the bias table of the recipe: position_bias of this log (ctr_ratio) = CTR / CTR at 1:
    # position 1 1/4 clicked, 2 2/3, 3 1/2 -> 1, 8/3 (capped at 1 in the recipe), 2 -> 1, 1, 1
    assert got[-1][0] is None and got[-1][1] == pytest.approx(2.5 / 3, abs=1e-15)


BAD = [  # (id, logs rows, ranking rows, options, the error's words)
    ("propensity-0", LOG, RUN, ", propensity := 'b'", ("propensity of propensity table b must "
     "be a probability in (0, 1] at a numeric position (1 rows are NULL, 0 or above 1)")),
    ("propensity-missing", LOG, RUN, ", propensity := 'b2'",
     "position 3 of a click in logs table l has no propensity in propensity table b2"),
    ("eta-negative", LOG, RUN, ", eta := -1",
     "propensity := 'power' needs eta := <a finite number >= 0>, got -1"),
    ("propensity-null", LOG, RUN, ", propensity := NULL",
     "propensity must be 'power' or a table name, got NULL"),
    ("position-0", [("s1", "q1", "a", 0, 1)], RUN, "",
     ("propensity := 'power' reads position as whole numbers from 1, but a click in logs table "
     "l is at 0")),
    ("click-2", [("s1", "q1", "a", 1, 2)], RUN, "",
     "click of logs table l must be true/false or 1/0 (1 rows are not)"),
    ("clicked-twice", [("s1", "q1", "a", 1, 1), ("s1", "q1", "a", 2, 1)], RUN, "",
     "logs table l has 1 clicks on an item_id already clicked in the same session_id"),
    ("null-key", [("s1", None, "a", 1, 1)], RUN, "",
     ("logs table l has NULL (or a position that is not a number) in session_id, query_id, "
     "item_id or position (1 rows)")),
    ("rank-ties", LOG, [("q1", "a", 1), ("q1", "b", 1)], "",
     "rnk of ranking table r has 1 ties within a query_id"),
    ("ranked-twice", LOG, [("q1", "a", 1), ("q1", "a", 2)], "",
     "ranking table r lists 1 (query_id, item_id) more than once"),
    ("k-0", LOG, RUN, ", k := 0", "k must be a whole number >= 1, got 0"),
]


def test_bad_input(log: duckdb.DuckDBPyConnection, check_cases) -> None:
    log.execute("CREATE OR REPLACE TABLE b AS SELECT * FROM (VALUES (1, 1.0), (2, 0.0), "
                "(3, 0.5)) v(position, propensity)")
    log.execute("CREATE OR REPLACE TABLE b2 AS SELECT * FROM (VALUES (1, 1.0), (2, 0.5)) "
                "v(position, propensity)")

    def case(logs: list, ranking: list, extra: str, words: str):
        def check() -> None:
            log.execute("CREATE OR REPLACE TABLE l (session_id VARCHAR, query_id VARCHAR, "
                        "item_id VARCHAR, position INTEGER, click INTEGER)")
            log.executemany("INSERT INTO l VALUES (?, ?, ?, ?, ?)", logs)
            log.execute("CREATE OR REPLACE TABLE r (query_id VARCHAR, item_id VARCHAR, "
                        "rnk INTEGER)")
            log.executemany("INSERT INTO r VALUES (?, ?, ?)", ranking)
            with pytest.raises(duckdb.Error, match=re.escape(words)):
                run(log, "l", "r", extra)
        return check

    check_cases((name, case(*rest)) for name, *rest in BAD)
