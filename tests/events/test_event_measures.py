"""The judge and the measures of event logs: judged_run (rankings + events -> a judged run, judged
as ndcg_report judges), event_measures and event_measures_summary (measures_report over it).

Oracles: ir_measures 0.4.3 (pytrec_eval and its own providers) on qrels and a run built here
from the same rows by hand (an item's grade its best event's under the default mapping; an item
without an event unjudged), hand-worked numbers, and ndcg_report's columns."""

from __future__ import annotations

import math
import random
import re

import duckdb
import ir_measures
import pytest

import duckdb_ndcg

GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}
# q1: a (no event: unjudged), b click, c impression (judged 0); d purchased, never shown
# q2: x no event, y add_to_cart; q3: y click
SHOWN = [("q1", "a", 1, "web"), ("q1", "b", 2, "web"), ("q1", "c", 3, "web"),
         ("q2", "x", 1, "ios"), ("q2", "y", 2, "ios"), ("q3", "y", 1, "ios")]
EVENTS = [("q1", "b", "click"), ("q1", "c", "impression"), ("q1", "d", "purchase"),
          ("q2", "y", "add_to_cart"), ("q3", "y", "click")]
L3 = 1 / math.log2(3)
# NDCG@3 by hand: q1 DCG 1/log2(3), IDCG 3 + 1/log2(3); q2 2/log2(3) over 2; q3 1
NDCG3 = {"q1": L3 / (3 + L3), "q2": L3, "q3": 1.0}
AP = {"q1": 0.5 / 2, "q2": 0.5, "q3": 1.0}  # q1: b at 2 of 2 relevant (d unshown)


def _log(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    con.execute("CREATE TABLE shown (query_id VARCHAR, item_id VARCHAR, position INTEGER, "
                "device VARCHAR)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?, ?)", SHOWN)
    con.execute("CREATE TABLE ev (query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO ev VALUES (?, ?, ?)", EVENTS)
    return con


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    return _log(duckdb_ndcg.register(duckdb.connect()))


@pytest.mark.versions
def test_judged_run_and_measures_by_hand(con) -> None:
    rows = con.sql("FROM judged_run('shown', 'ev') ORDER BY query_id, rnk NULLS LAST").fetchall()
    assert rows == [("q1", "a", None, 1.0), ("q1", "b", 1.0, 2.0), ("q1", "c", 0.0, 3.0),
                    ("q1", "d", 3.0, None), ("q2", "x", None, 1.0), ("q2", "y", 2.0, 2.0),
                    ("q3", "y", 1.0, 1.0)]
    got = con.sql("FROM event_measures('shown', 'ev', 'nDCG@3 AP Judged@3 NumRet', "
                  "slice_by := 'device')").fetchall()
    expected = []
    for q, device in (("q1", "web"), ("q2", "ios"), ("q3", "ios")):
        shown = sum(1 for r in SHOWN if r[0] == q)
        judged = {"q1": 2, "q2": 1, "q3": 1}[q]
        expected += [(q, device, "nDCG@3", NDCG3[q]), (q, device, "AP", AP[q]),
                     (q, device, "Judged@3", judged / shown), (q, device, "NumRet", shown)]
    assert [r[:3] for r in got] == [r[:3] for r in expected]
    assert [r[3] for r in got] == pytest.approx([r[3] for r in expected], abs=1e-12)
    summary = con.sql("FROM event_measures_summary('shown', 'ev', 'nDCG@3 gm_map NumQ', "
                      "slice_by := ['device'])").fetchall()
    assert [r[:2] for r in summary] == [("ios", "nDCG@3"), ("ios", "GM_AP"), ("ios", "NumQ"),
                                        ("web", "nDCG@3"), ("web", "GM_AP"), ("web", "NumQ")]
    assert [r[2] for r in summary] == pytest.approx(
        [(NDCG3["q2"] + 1) / 2, math.sqrt(AP["q2"] * AP["q3"]), 2, NDCG3["q1"], AP["q1"], 1],
        abs=1e-12)
    assert [r[3] for r in summary] == [2, 2, 2, 1, 1, 1]


def _generated(seed: int = 7) -> tuple[list[tuple], list[tuple]]:
    """60 queries of 1-15 shown items; events of every type on shown and unshown items, several
    per item; some queries without any event."""
    rnd = random.Random(seed)
    shown, events = [], []
    for q in range(60):
        query = f"q{q:02d}"
        items = rnd.sample(range(40), rnd.randint(1, 15))
        shown += [(query, f"i{i}", p + 1, rnd.choice(["web", "app"])) for p, i in
                  enumerate(items)]
        if q % 10 == 9:
            continue  # no event: every shown item unjudged
        for i in rnd.sample(range(40), rnd.randint(1, 12)):
            for _ in range(rnd.randint(1, 3)):
                events.append((query, f"i{i}", rnd.choice(list(GRADES))))
    # one device per query (a slice of the rankings is per row: keep it per query here)
    device = {}
    shown = [(q, i, p, device.setdefault(q, d)) for q, i, p, d in shown]
    return shown, events


MEASURES = ("nDCG@5 nDCG@10 nDCG P@5 P(rel=2)@5 R@10 RR AP AP@5 Rprec Bpref Success@3 "
            "Judged@5 Judged@10 AP(judged_only=True) nDCG(judged_only=True)@10 NumRet NumRel "
            "NumRelRet IPrec@0.5")


def test_event_measures_equal_ir_measures_per_query() -> None:
    shown, events = _generated()
    con = duckdb_ndcg.register(duckdb.connect())
    con.execute("CREATE TABLE shown (query_id VARCHAR, item_id VARCHAR, position INTEGER, "
                "device VARCHAR)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?, ?)", shown)
    con.execute("CREATE TABLE ev (query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO ev VALUES (?, ?, ?)", events)
    mine = {(q, m): v for q, m, v in con.sql(
        f"FROM event_measures('shown', 'ev', '{MEASURES}')").fetchall()}
    qrels: dict[str, dict[str, int]] = {}
    for q, item, event in events:  # collapse 'max'
        qrels.setdefault(q, {})[item] = max(qrels.get(q, {}).get(item, 0), GRADES[event])
    run: dict[str, dict[str, float]] = {}
    for q, item, position, _ in shown:
        run.setdefault(q, {})[item] = -float(position)
    parsed = [ir_measures.parse_measure(m) for m in MEASURES.split()]
    # each measure from a named provider (iter_calc's choice can change with what is imported:
    # another provider counts NumRet differently): Judged from ir_measures' own, the rest from
    # pytrec_eval, as trec_eval computes them
    judged = [m for m in parsed if str(m).startswith("Judged")]
    theirs = {(r.query_id, repr(r.measure)): r.value
              for provider, measures in ((ir_measures.judged, judged),
                                         (ir_measures.pytrec_eval,
                                          [m for m in parsed if m not in judged]))
              for r in provider.iter_calc(measures, qrels, run)}
    labels = {repr(m): m for m in parsed}
    judged_queries = {q for q in run if q in qrels}
    assert len(judged_queries) == 54
    assert len(theirs) == 54 * len(parsed)
    for (q, label), value in theirs.items():
        assert mine[q, str(labels[label])] == pytest.approx(value, abs=1e-9), (q, label)
    # the queries without an event (ir_measures leaves them out: no qrels) are scored, as
    # every query of the rankings is: nothing relevant, NDCG 0, nothing judged
    for q in set(run) - judged_queries:
        assert mine[q, "nDCG@10"] == 0.0 and mine[q, "Judged@10"] == 0.0
    # the same numbers as the report's own columns
    report = con.sql("SELECT query_id, k, ndcg, precision_at_k FROM ndcg_report('shown', 'ev', "
                     "k := [5, 10], metrics := ['ndcg', 'precision_at_k'])").fetchall()
    for q, k, ndcg, precision in report:
        assert mine[q, f"nDCG@{k}"] == pytest.approx(ndcg, abs=1e-12)
        if k == 5:
            assert mine[q, "P@5"] == pytest.approx(precision, abs=1e-12)
    # evaluate(measures=...) runs the same macros: report and summary
    rel = duckdb_ndcg.evaluate("shown", "ev", con=con, measures="nDCG@10 NumRet", shape="summary")
    means = {m: (v, n) for m, v, n in rel.fetchall()}
    assert means["nDCG@10"][0] == pytest.approx(sum(mine[q, "nDCG@10"] for q in run) / 60)
    assert means["NumRet"] == (len(shown), 60)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        ("event_measures('shown', 'ev', 'nDCG@3', gain := 'exponential')",
         "gain must be 'linear' or 'value', got 'exponential'"),
        ("event_measures('shown', 'ev', 'nDGC@3')", "unknown measure 'nDGC@3'"),
        ("event_measures('shown', 'ev', 'nDCG@0')", "cutoff must be a whole number >= 1"),
        ("event_measures('twice', 'ev', 'nDCG@3')", "shows item_id a more than once"),
        # the engine's checks stand in its ndcg column, which the judge reads for them: DuckDB
        # 2.0 drops an unread column and its errors (this passed silently before)
        ("judged_run('shown', 'ev', slice_by := 'nope')", "has a column nope (named in slice_by)"),
        ("event_measures('shown', 'ev', 'RR', slice_by := 'nope')", "has a column nope"),
        ("judged_run('nulls', 'ev')", "has NULL in query_id, item_id or position"),
    ],
)
def test_bad_input_is_one_clear_error(con, call, words) -> None:
    con.execute("CREATE TABLE twice AS FROM (VALUES ('q1', 'a', 1), ('q1', 'a', 2)) "
                "t(query_id, item_id, position)")
    con.execute("CREATE TABLE nulls AS FROM (VALUES ('q1', NULL::VARCHAR, 1)) t(query_id, item_id, position)")
    with pytest.raises(duckdb.Error, match="duckdb_ndcg: ") as raised:
        con.sql(f"FROM {call}").fetchall()
    assert words in str(raised.value)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"k": 5}, "k=5 is not read with measures"),
        ({"metrics": ["ndcg", "err"]}, "metrics=['ndcg', 'err'] is not read"),
        ({"gain": "exponential"}, "gain='exponential' is not read with measures"),
        ({"preset": "sklearn"}, "preset='sklearn' is not read"),
        ({"duplicates": "allow"}, "duplicates='allow' is not read"),
        ({"measures": "nDGC@3"}, "unknown measure 'nDGC@3'"),
    ],
)
def test_evaluate_refuses_settings_measures_do_not_read(con, given, words) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        duckdb_ndcg.evaluate("shown", "ev", con=con, **{"measures": "nDCG@3", **given})


def test_readme_recipe(readme_sql) -> None:
    """The README's recipe ("Measures on an event log") prints what its comments say, and those
    are by hand: q1 shows a (no event: unjudged), b (click 1), c (impression: judged 0); d
    (purchase 3) is graded, not shown. nDCG@3 = (1 / log2 3) / (3 + 1 / log2 3); Judged@3 2 / 3;
    Bpref: b has no judged non-relevant item above it, d is not returned: 1 / 2. q2: x unjudged,
    y (cart 2) at 2: nDCG@3 = (2 / log2 3) / 2, Judged 1 / 2, Bpref 1. AP: q1 (1 / 2) / 2, q2
    1 / 2, so GM_AP = sqrt(1 / 8); NumRet 3 + 2. ndcg_summary with measures gives the same."""
    con = duckdb_ndcg.register(duckdb.connect())
    shown = []
    for code, comments in readme_sql("### Measures on an event log"):
        if not code.startswith("SELECT"):
            con.execute(code)
            continue
        rows = con.execute(code).fetchall()
        assert [" | ".join(str(v) for v in row) for row in rows] == comments
        shown.append(rows)
    ndcg_q1, ndcg_q2 = L3 / (3 + L3), L3
    assert shown[1] == [("q1", "nDCG@3", pytest.approx(ndcg_q1, abs=1e-15)),
                        ("q1", "Judged@3", pytest.approx(2 / 3)), ("q1", "Bpref", 0.5),
                        ("q2", "nDCG@3", pytest.approx(ndcg_q2, abs=1e-15)),
                        ("q2", "Judged@3", 0.5), ("q2", "Bpref", 1.0)]
    assert shown[2] == [("nDCG@3", pytest.approx((ndcg_q1 + ndcg_q2) / 2, abs=1e-15), 2),
                        ("GM_AP", pytest.approx(math.sqrt(1 / 8), abs=1e-15), 2),
                        ("NumRet", 5.0, 2)]
    assert shown[3] == shown[2]  # ndcg_summary(..., measures := ...): the same rows
