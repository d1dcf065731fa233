"""``measures :=`` on run_report, ndcg_report, ndcg_summary and compare_summary: each macro's
overload that scores measure strings (measures_report, event_measures, event_measures_summary,
compare_measures), with the report options the measures do not read refused by name.

Oracles: hand-worked numbers (test_event_measures' log: NDCG@3 and AP per query), ir_measures
0.4.3 on the same qrels and run, and the macros the overloads stand for."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import duckdb
import ir_measures
import pytest
from test_event_measures import AP, NDCG3, SHOWN, _log

import duckdb_ndcg
from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.macros import macros, signatures

DEVICE = {q: d for q, _, _, d in SHOWN}
# ranker B: q1's list reversed, q2 and q3 as A's
SHOWN_B = [("q1", "c", 1, "web"), ("q1", "b", 2, "web"), ("q1", "a", 3, "web"),
           *(r for r in SHOWN if r[0] != "q1")]
# each overload: a call without measures' text, and the call of the macro it stands for
CALLS = {
    "run_report": ("run_report('run'{})", "measures_report('run', {})"),
    "ndcg_report": ("ndcg_report('shown', 'ev'{})", "event_measures('shown', 'ev', {})"),
    "ndcg_summary": ("ndcg_summary('shown', 'ev'{})",
                     "event_measures_summary('shown', 'ev', {})"),
    "compare_summary": ("compare_summary('shown', 'shown_b', 'ev'{})",
                        "compare_measures('shown', 'shown_b', 'ev', {})"),
}
# the options each overload does not read, with a value other than the default
UNREAD = {
    "run_report": {"k": "10", "metrics": "['dcg']", "ties": "'key'", "gain": "'exponential'",
                   "log_base": "10", "empty_ideal": "1.0", "full_ideal": "true",
                   "threshold": "2"},
    "ndcg_report": {"k": "[5, 10]", "log_base": "10", "empty_ideal": "NULL",
                    "duplicates": "'allow'", "metrics": "['ndcg', 'err']", "threshold": "2",
                    "max_grade": "3"},
    "ndcg_summary": {"k": "NULL", "log_base": "10", "empty_ideal": "1.0",
                     "duplicates": "'allow'", "conf": "0.9", "metrics": "'err'",
                     "threshold": "2", "max_grade": "3"},
    "compare_summary": {"k": "5", "query_set": "'either'", "missing": "'error'",
                        "log_base": "10", "empty_ideal": "1.0", "duplicates": "'allow'"},
}


def _connected() -> duckdb.DuckDBPyConnection:
    con = _log(duckdb_ndcg.register(duckdb.connect()))
    con.execute("CREATE TABLE shown_b AS FROM shown LIMIT 0")
    con.executemany("INSERT INTO shown_b VALUES (?, ?, ?, ?)", SHOWN_B)
    con.execute("CREATE TABLE run AS FROM judged_run('shown', 'ev')")
    return con


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    """One connection for the tests that only read (registering costs up to 2.6 s on 1.4)."""
    return _connected()


def _rows(con: duckdb.DuckDBPyConnection, call: str) -> list[tuple]:
    return con.sql(f"FROM {call}").fetchall()


@pytest.mark.versions
@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_overload_gives_its_macros_rows(con, name: str) -> None:
    # the grammar passed on: trec_eval's names (ranx would read map@3 as its own)
    measures = "'ndcg_cut.3 map P.2 num_ret', grammar := 'trec_eval'"
    call, target = CALLS[name]
    rows = _rows(con, call.format(f", measures := {measures}"))
    assert len(rows) == (4 if name.endswith("summary") else 12)
    assert rows == _rows(con, target.format(measures))


def test_report_and_summary_by_hand_and_ir_measures(con) -> None:
    got = _rows(con, "ndcg_report('shown', 'ev', measures := 'nDCG@3 AP', "
                     "slice_by := ['device'])")
    expected = [(q, DEVICE[q], m, v) for q in ("q1", "q2", "q3")
                for m, v in (("nDCG@3", NDCG3[q]), ("AP", AP[q]))]
    assert [r[:3] for r in got] == [r[:3] for r in expected]
    assert [r[3] for r in got] == pytest.approx([r[3] for r in expected], abs=1e-12)
    # ir_measures on the judged run as qrels and run (rnk as a descending score)
    run = con.sql("FROM run").fetchall()
    qrels = [ir_measures.Qrel(q, i, int(rel)) for q, i, rel, _ in run if rel is not None]
    scored = [ir_measures.ScoredDoc(q, i, -rnk) for q, i, _, rnk in run if rnk is not None]
    oracle = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.nDCG @ 3, ir_measures.AP], qrels, scored)}
    assert {(q, m): v for q, _, m, v in got} == pytest.approx(oracle, abs=1e-9)
    summary = _rows(con, "ndcg_summary('shown', 'ev', measures := 'nDCG@3 AP')")
    assert [(m, q) for m, _, q in summary] == [("nDCG@3", 3), ("AP", 3)]
    assert [v for _, v, _ in summary] == pytest.approx([sum(NDCG3.values()) / 3,
                                                        sum(AP.values()) / 3])
    scored = _rows(con, "run_report('run', measures := 'AP')")
    assert [r[:2] for r in scored] == [(q, "AP") for q in ("q1", "q2", "q3")]
    assert [r[2] for r in scored] == pytest.approx([AP[q] for q in ("q1", "q2", "q3")])


def test_compare_summary_by_hand(con) -> None:
    """B shows q1's c (judged 0) first and b (click) second, as A does at 2: NDCG@3 the same
    except for the discount of c's 0 gain, so A and B tie on every query."""
    rows = con.sql("SELECT measure, queries, mean_a, mean_b, wins, ties, losses "
                   "FROM compare_summary('shown', 'shown_b', 'ev', measures := 'nDCG@3')"
                   ).fetchall()
    assert rows == [("nDCG@3", 3, pytest.approx(sum(NDCG3.values()) / 3),
                     pytest.approx(sum(NDCG3.values()) / 3), 0, 3, 0)]


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_an_option_the_measures_do_not_read_is_named(con, name: str) -> None:
    """One option per macro here (each call plans the measures, a second or more);
    test_every_unread_option_is_checked shows the SQL checks the others the same way."""
    option = max(UNREAD[name])
    call = CALLS[name][0].format(f", {option} := {UNREAD[name][option]}, measures := 'nDCG@3'")
    with pytest.raises(duckdb.InvalidInputException,
                       match=rf"^Invalid Input Error: duckdb_ndcg: {option} is not read with "
                             r"measures: each measure names its own cutoff"):
        _rows(con, call)


def test_every_unread_option_is_checked() -> None:
    """Each option of the macro that its measures macro does not take (every other option is
    passed on by name) is checked against the ways its default is written, in the overload."""
    for name, options in UNREAD.items():
        passed = {p.name for p in MACROS[MACROS[name].measures].params}
        assert set(options) == {p.name for p in MACROS[name].params} - passed, name
        sql = next(m.sql for m in macros() if m.name == name)
        body = sql[signatures(sql)[1][1]:]
        checked = re.findall(r"_ndcg_unless_default\('(\w+)', (\w+), ", body)
        assert sorted(checked) == sorted((o, o) for o in options), name
        named = {p.name for p in MACROS[MACROS[name].measures].params
                 if p.default is not None} & {p.name for p in MACROS[name].params}
        assert all(f"{o} := {o}" in body for o in named), name


def test_defaults_written_out_are_accepted(con) -> None:
    given = ("k := 10, log_base := 2.0, empty_ideal := 0, duplicates := 'error', "
             "metrics := 'ndcg', threshold := 1.0, max_grade := 'mapping'")
    rows = _rows(con, f"ndcg_report('shown', 'ev', {given}, measures := 'nDCG@3')")
    assert rows == [(q, "nDCG@3", pytest.approx(NDCG3[q])) for q in ("q1", "q2", "q3")]
    rows = _rows(con, "run_report('run', k := [5, 10], metrics := ['ndcg'], ties := 'average', "
                      "measures := 'AP')")
    assert rows == [(q, "AP", pytest.approx(AP[q])) for q in ("q1", "q2", "q3")]


@pytest.mark.versions
def test_a_call_without_measures_never_binds_the_overload() -> None:
    """With the measures macros gone, every call without measures still runs; with measures,
    the overload is the one bound."""
    con = _connected()  # its own: the measures macros are dropped
    before = {name: _rows(con, call.format("")) for name, (call, _) in CALLS.items()}
    for name in ("measures_report", "event_measures", "event_measures_summary",
                 "compare_measures"):
        con.execute(f"DROP MACRO TABLE {name}")
    for name, (call, _) in CALLS.items():
        after = sorted(_rows(con, call.format("")))
        assert len(after) == len(before[name]), name
        for got, want in zip(after, sorted(before[name])):  # sums over threads: the last bit
            assert [x for x in got if isinstance(x, str)] == [
                x for x in want if isinstance(x, str)], name
            assert [x for x in got if not isinstance(x, str)] == pytest.approx(
                [x for x in want if not isinstance(x, str)], rel=1e-12, abs=1e-15), name
        with pytest.raises(duckdb.CatalogException, match=MACROS[name].measures):
            _rows(con, call.format(", measures := 'nDCG@3'"))


@pytest.mark.parametrize(("measures", "words"), [
    ("'nDCG@ten'", "nDCG@ten"),
    ("NULL", "measures must name at least one measure, got NULL"),
    ("42", "measures must be text ('nDCG@10 P@5'), got 42"),
    ("['nDCG@10']", "measures must be text ('nDCG@10 P@5'), got [nDCG@10]"),
])
def test_bad_measures_are_one_line(con, measures: str, words: str) -> None:
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(words)) as error:
        _rows(con, f"ndcg_summary('shown', 'ev', measures := {measures})")
    assert "\n" not in str(error.value).strip()


def test_in_the_cli_from_a_persisted_file(duckdb_cli: Path, tmp_path: Path) -> None:
    path = tmp_path / "measures.duckdb"
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path)) as db:
        _log(db)
        sql = "SELECT * FROM ndcg_summary('shown', 'ev', measures := 'nDCG@3 AP')"
        ours = db.execute(sql).fetchall()
    assert [r[1] for r in ours] == pytest.approx([sum(NDCG3.values()) / 3,
                                                  sum(AP.values()) / 3])
    result = subprocess.run([str(duckdb_cli), "-readonly", "-json", str(path), "-c", sql],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert [tuple(r.values()) for r in json.loads(result.stdout)] == ours
    refused = subprocess.run([str(duckdb_cli), "-readonly", str(path), "-c",
                              sql.replace("measures :=", "k := 5, measures :=")],
                             capture_output=True, text=True, check=False)
    assert "k is not read with measures" in refused.stderr + refused.stdout
