"""Judged@k of the event reports: the share of a ranking's first k items the log can grade.

An item is judged for a query when the events table has an event of a graded type for that
(query, item) — any grade, 0 included (an impression: seen, not acted on); an event type the
mapping lacks does not judge (unknown := 'ignore' drops it). Everything else in a ranking —
an offline replay's items that no user was ever shown — is unjudged: NDCG scores it 0 like a
seen-and-ignored item. Oracles: the shares below are counted by hand; one random log is checked
against ir_measures' Judged@k with the graded (query, item) pairs as qrels.
"""

from __future__ import annotations

import random

import duckdb
import ir_measures
import pytest

from duckdb_ndcg.compare import compare, verdict
from duckdb_ndcg.evaluate import evaluate

# ranker A (production) showed these; users' impressions and actions are logged as events
A = [("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 3), ("q1", "d", 4),
     ("q2", "f", 1), ("q2", "g", 2)]
# candidate B, replayed offline: e, x and y were never shown to anyone; h was bought in q2
B = [("q1", "e", 1), ("q1", "a", 2), ("q1", "x", 3), ("q1", "b", 4),
     ("q2", "h", 1), ("q2", "f", 2), ("q2", "y", 3)]
EVENTS = [("q1", i, "impression") for i in "abcd"] + [("q1", "b", "click")] + [
    ("q2", "f", "impression"), ("q2", "g", "impression"), ("q2", "h", "purchase"),
    ("q2", "y", "hover"),  # a type the mapping lacks: with unknown := 'ignore', not a judgment
]
# B's judged share by hand: q1 judged e? no, a yes, x no, b yes; q2 h yes, f yes, y no
B_JUDGED = {("q1", 3): 1 / 3, ("q1", 10): 2 / 4, ("q2", 3): 2 / 3, ("q2", 10): 2 / 3}


@pytest.fixture
def log(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    for name, rows in (("ranker_a", A), ("ranker_b", B)):
        con.execute(f"CREATE TABLE {name}(query_id VARCHAR, item_id VARCHAR, position INT)")
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", EVENTS)
    return con


IGNORE = "unknown := 'ignore'"


def test_report_column_is_the_hand_count(log: duckdb.DuckDBPyConnection) -> None:
    rows = log.sql(
        "SELECT query_id, k, judged_at_k FROM ndcg_report('ranker_b', 'events', k := [3, 10], "
        f"metrics := ['ndcg', 'judged_at_k'], {IGNORE}) ORDER BY ALL"
    ).fetchall()
    assert rows == [(q, k, pytest.approx(v, abs=1e-12)) for (q, k), v in B_JUDGED.items()]
    rows = log.sql(
        "SELECT query_id, k, judged_at_k FROM ndcg_report('ranker_a', 'events', k := [3, 10], "
        f"metrics := ['judged_at_k'], {IGNORE}) ORDER BY ALL"
    ).fetchall()
    assert rows == [("q1", 3, 1.0), ("q1", 10, 1.0), ("q2", 3, 1.0), ("q2", 10, 1.0)]


def test_report_column_beside_the_family(log: duckdb.DuckDBPyConnection) -> None:
    rel = log.sql(
        "SELECT * FROM ndcg_report('ranker_b', 'events', k := 3, "
        f"metrics := ['judged_at_k', 'precision_at_k'], {IGNORE}) ORDER BY ALL"
    )
    assert rel.columns[-2:] == ["precision_at_k", "judged_at_k"]
    assert [row[-1] for row in rel.fetchall()] == [pytest.approx(1 / 3), pytest.approx(2 / 3)]
    default = log.sql(f"SELECT * FROM ndcg_report('ranker_b', 'events', {IGNORE})")
    assert "judged_at_k" not in default.columns


def test_summary_reports_the_mean_judged_share(log: duckdb.DuckDBPyConnection) -> None:
    for ranker, expected in (
        ("ranker_b", {3: (1 / 3 + 2 / 3) / 2, 10: (2 / 4 + 2 / 3) / 2}),
        ("ranker_a", {3: 1.0, 10: 1.0}),
    ):
        rows = log.sql(
            f"SELECT k, mean_judged_at_k FROM ndcg_summary('{ranker}', 'events', k := [3, 10], "
            f"{IGNORE}) ORDER BY k"
        ).fetchall()
        assert rows == [(k, pytest.approx(v, abs=1e-12)) for k, v in expected.items()], ranker


def test_unknown_types_do_not_judge(log: duckdb.DuckDBPyConnection) -> None:
    # with 'hover' graded 0, y is judged: q2 at k 3 is 3/3
    rows = log.sql(
        "SELECT query_id, judged_at_k FROM ndcg_report('ranker_b', 'events', k := 3, "
        "metrics := ['judged_at_k'], mapping := MAP {'impression': 0, 'click': 1, "
        "'purchase': 3, 'hover': 0}) ORDER BY ALL"
    ).fetchall()
    assert rows == [("q1", pytest.approx(1 / 3)), ("q2", 1.0)]


def test_ties_average_and_key(con: duckdb.DuckDBPyConnection) -> None:
    # scores 3, 2, 2, 2, 1 for items p, q, r, s, t; judged: p, q, t. At k = 2 the tie group
    # (q, r, s) straddles the cut: 'average' counts its expected share, 1 position x 1/3 judged;
    # 'key' orders it by item descending, s first (unjudged)
    con.execute("CREATE TABLE shown AS SELECT 'q' AS query_id, i AS item_id, s AS score FROM "
                "(VALUES ('p', 3), ('q', 2), ('r', 2), ('s', 2), ('t', 1)) v(i, s)")
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, i AS item_id, "
                "'impression' AS event_type FROM (VALUES ('p'), ('q'), ('t')) v(i)")
    base = "'shown', 'events', k := [2, 3, 4, NULL], score_col := 'score'"
    for ties, expected in (
        ("average", [(1 + 1 / 3) / 2, (1 + 2 / 3) / 3, 2 / 4, 3 / 5]),
        ("key", [1 / 2, 1 / 3, 2 / 4, 3 / 5]),
    ):
        got = con.sql(f"SELECT judged_at_k FROM ndcg_report({base}, ties := '{ties}', "
                      "metrics := ['judged_at_k']) ORDER BY k NULLS LAST").fetchall()
        assert got == [(pytest.approx(v, abs=1e-12),) for v in expected], ties


def test_compare_summary_reports_each_rankers_share(log: duckdb.DuckDBPyConnection) -> None:
    rel = log.sql(f"SELECT * FROM compare_summary('ranker_a', 'ranker_b', 'events', "
                  f"k := [3, 10], {IGNORE}) ORDER BY k")
    assert rel.columns[-2:] == ["judged_a", "judged_b"]
    rows = [row[-2:] for row in rel.fetchall()]
    assert rows == [(1.0, pytest.approx((1 / 3 + 2 / 3) / 2)),
                    (1.0, pytest.approx((2 / 4 + 2 / 3) / 2))]


def test_compare_summary_share_is_over_the_compared_queries(
    log: duckdb.DuckDBPyConnection,
) -> None:
    # q3 shown by B only: with query_set 'both' it is not compared, so not in judged_b; with
    # 'either' it is (its judged@3 is 0: z was never shown), and A has no judged share for it
    log.execute("INSERT INTO ranker_b VALUES ('q3', 'z', 1)")
    for query_set, expected_b in (("both", (1 / 3 + 2 / 3) / 2), ("either", (1 / 3 + 2 / 3) / 3)):
        got = log.sql(f"SELECT judged_a, judged_b FROM compare_summary('ranker_a', 'ranker_b', "
                      f"'events', k := 3, query_set := '{query_set}', {IGNORE})").fetchall()
        assert got == [(1.0, pytest.approx(expected_b))], query_set


def test_judged_at_k_equals_ir_measures(con: duckdb.DuckDBPyConnection) -> None:
    rng = random.Random(5)
    shown, events = [], []
    for q in range(40):
        for position, item in enumerate(rng.sample(range(30), rng.randint(1, 15)), start=1):
            shown.append((f"q{q}", f"d{item:02d}", position))
        for item in rng.sample(range(30), rng.randint(0, 20)):
            events.append((f"q{q}", f"d{item:02d}", rng.choice(["impression", "click"])))
    con.execute("CREATE TABLE shown(query_id VARCHAR, item_id VARCHAR, position INT)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?)", shown)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", events)
    qrels = [ir_measures.Qrel(q, d, 1 if t == "click" else 0) for q, d, t in dict.fromkeys(events)]
    run = [ir_measures.ScoredDoc(q, d, 100.0 - p) for q, d, p in shown]
    for k in (1, 5, 10):
        expected = {m.query_id: m.value
                    for m in ir_measures.iter_calc([ir_measures.Judged @ k], qrels, run)}
        got = dict(con.sql("SELECT query_id, judged_at_k FROM ndcg_report('shown', 'events', "
                           f"k := {k}, metrics := ['judged_at_k'])").fetchall())
        # ir_measures leaves out queries without qrels; the report keeps them (judged@k 0)
        assert {q: v for q, v in got.items() if q in expected} == {
            q: pytest.approx(v, abs=1e-12) for q, v in expected.items()}
        assert all(v == 0.0 for q, v in got.items() if q not in expected)


def test_evaluate_summary_and_report(log: duckdb.DuckDBPyConnection) -> None:
    summary = evaluate("ranker_b", "events", con=log, k=[3, 10], unknown="ignore",
                       shape="summary")
    assert "mean_judged_at_k" in summary.columns
    report = evaluate("ranker_b", "events", con=log, k=3, unknown="ignore",
                      metrics=["ndcg", "judged_at_k"])
    assert report.select("judged_at_k").order("ALL").fetchall() == [
        (pytest.approx(1 / 3),), (pytest.approx(2 / 3),)]


def test_compare_and_verdict_name_the_unjudged_ranker(log: duckdb.DuckDBPyConnection) -> None:
    rel = compare("ranker_a", "ranker_b", "events", con=log, k=3, unknown="ignore")
    row = dict(zip(rel.columns, rel.fetchall()[0]))
    assert (row["judged_a"], row["judged_b"]) == (1.0, pytest.approx(0.5))
    assert verdict(row).endswith(
        "losses; B: 50 % of its top 3 judged (the rest have no event in the log and score 0)")
    same = compare("ranker_a", "ranker_a", "events", con=log, k=3, unknown="ignore")
    assert "judged" not in verdict(dict(zip(same.columns, same.fetchall()[0])))
    # just below the threshold is named, rounded down: 0.899 is 89 %, not 90 %
    both = row | {"judged_a": 0.899, "judged_b": 0.9, "k": None}
    assert verdict(both).endswith("; A: 89 % of its whole ranking judged (the rest have no "
                                  "event in the log and score 0)")


@pytest.fixture
def files(log: duckdb.DuckDBPyConnection, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for table in ("ranker_a", "ranker_b", "events"):
        log.execute(f"COPY {table} TO '{table}.csv'")


WARNING = ("warning: {who}: only {share} of its top {k} items are judged{where} (an event in "
           "events.csv grades them); the other {rest} were never shown to anyone, or shown "
           "without an event logged, and score 0 as if seen and ignored")


@pytest.mark.parametrize("summary", [True, False])
def test_cli_evaluate_warns_below_90_percent(files, capsys, summary: bool) -> None:
    from duckdb_ndcg import cli

    flags = ["--summary"] if summary else []
    assert cli.main(["evaluate", "ranker_b.csv", "events.csv", "--k", "3,10",
                     "--ignore-unknown", *flags]) == 0
    out = capsys.readouterr()
    # the worst row is named (k 3: (1/3 + 2/3) / 2 = 50 %), and how many more are below 90 %
    assert WARNING.format(who="rankings ranker_b.csv", share="50 %", k=3, where="",
                          rest="50 %") + "; 1 more (slice, k) row below 90 %" in out.err
    header = out.out.splitlines()[0].split()
    assert ("mean_judged_at_k" in header) == summary and "judged_at_k" not in header
    assert cli.main(["evaluate", "ranker_a.csv", "events.csv", "--k", "3,10",
                     "--ignore-unknown", *flags]) == 0
    assert "judged" not in capsys.readouterr().err


def test_cli_evaluate_keeps_a_judged_column_it_was_asked_for(files, capsys) -> None:
    from duckdb_ndcg import cli

    assert cli.main(["evaluate", "ranker_b.csv", "events.csv", "--k", "3", "--ignore-unknown",
                     "--metrics", "ndcg,judged_at_k"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[0].split()[-1] == "judged_at_k"
    assert "only 50 % of its top 3 items are judged" in out.err


def test_cli_compare_warns_and_says_so_in_the_verdict(files, capsys) -> None:
    from duckdb_ndcg import cli

    assert cli.main(["compare", "ranker_a.csv", "ranker_b.csv", "events.csv", "--k", "3",
                     "--ignore-unknown", "--query-set", "both"]) == 0
    out = capsys.readouterr()
    assert out.out.rstrip().endswith(
        "; B: 50 % of its top 3 judged (the rest have no event in the log and score 0)")
    assert WARNING.format(who="ranker B (ranker_b.csv)", share="50 %", k=3, where="",
                          rest="50 %") in out.err
    assert "ranker A" not in out.err
