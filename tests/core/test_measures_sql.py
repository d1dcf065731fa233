"""parse_measures, measures_report and measures_summary in SQL: the measure strings of
ir_measures, trec_eval and ranx read and scored by persisted macros, without Python.

The SQL reader's rows equal Python's duckdb_ndcg.measures.parse_measures (the spec) on every string
below; the values equal ir_measures 0.4.3 (its pytrec_eval, msmarco and judged providers) on a
small fixture with ties, unjudged rows, graded judgments, a query judged but not run and a query
without relevant rows, to 1e-9; the summaries equal the mean (sum, geometric mean) of ir_measures'
per-query values."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import duckdb
import ir_measures
import pytest

import duckdb_ndcg
from duckdb_ndcg.measures import parse_measures, scores

# strings across the three grammars (aliases, cutoff lists, nicknames, parameters, -lN)
STRINGS = [
    "nDCG@10", "ndcg@10", "NDCG@5", "nDCG(dcg='exp-log2')@10", "nDCG(judged_only=True)@3",
    "nDCG(cutoff=7)", "MAP", "AP@100", "AP(rel=2)", "MRR@10", "RR(rel=2)@5", "P(rel=2)@5",
    "P(rel=2,judged_only=True)@2", "Precision@3", "Recall@20", "RPrec", "Bpref(rel=2)",
    "Judged@10", "Success@5", "RBP(p=0.9, rel=1)", "RBP(rel=2,p=0.5)@10", "IPrec@0.5", "IPrec@1",
    "SetP", "SetR", "SetF(beta=1)", "SetAP", "SetRelP", "infAP(rel=2)", "NumQ", "NumRet",
    "NumRelRet", "NumRet(rel=2)", "ndcg_cut.5,10", "ndcg_cut_10", "ndcg_cut.23.4", "P.10,5",
    "P_5", "P", "recall.20,2000", "gm_map", "gm_bpref", "recip_rank", "set_F", "set_relative_P",
    "num_rel_ret", "num_nonrel_judged_ret", "success", "iprec_at_recall.0.1,0.5", "official",
    "all_trec", "precision@5-l2", "precision", "mrr@10", "hit_rate@5", "r-precision", "f1-l2",
    "ndcg_burges@10", "ndcg@10-l2", "nDCG@10 MAP AP",
]
GRAMMARS = [("ndcg", "trec_eval"), ("ndcg", "ranx"), ("recall", "ranx"), ("bpref", "trec_eval")]
COLUMNS = ("measure", "metric", "k", "threshold", "gain", "p", "recall", "rounding",
           "judged_only", "min_grade", "full_ideal", "summary")


def _python_rows(text: str, grammar: str | None) -> list[tuple]:
    rows = []
    for m in parse_measures(text, grammar):
        options = dict(m.options)
        rows.append((m.name, m.metric, options.get("k"), options.get("threshold"),
                     options.get("gain"), options.get("p"), options.get("recall"),
                     options.get("rounding"), m.judged_only, m.min_grade,
                     options.get("full_ideal"), m.summary))
    return rows


def _sql_rows(con: duckdb.DuckDBPyConnection, text: str, grammar: str | None) -> list[tuple]:
    return con.execute(f"SELECT {', '.join(COLUMNS)} FROM parse_measures($1, grammar := $2) "
                       "ORDER BY position", [text, grammar]).fetchall()


def test_sql_reads_as_python(con, check_cases) -> None:
    """Each string's rows equal Python's. The strings are read in a few batches (one SQL call
    plans for about 0.2 s): strings whose measures differ, joined by spaces, so that no measure of
    a batch is dropped as a repeat and the batch's rows are each string's rows in turn."""
    batches: list[tuple[list[str], set]] = []
    for text in STRINGS:
        mine = set(parse_measures(text))
        batch = next((b for b in batches if not b[1] & mine), None)
        if batch is None:
            batches.append(([text], mine))
        else:
            batch[0].append(text)
            batch[1].update(mine)
    read: dict[str, list[tuple]] = {}
    for texts, _ in batches:
        rows = _sql_rows(con, " ".join(texts), None)
        for text in texts:
            n = len(parse_measures(text))
            read[text], rows = rows[:n], rows[n:]
        assert not rows

    def same(text: str, grammar: str | None):
        got = read[text] if grammar is None else None
        return lambda: _equal(got if got is not None else _sql_rows(con, text, grammar),
                              _python_rows(text, grammar))

    cases = [(t, None) for t in STRINGS] + GRAMMARS
    assert len(cases) >= 60
    check_cases((f"{t} [{g}]", same(t, g)) for t, g in cases)


def _equal(got: object, expected: object) -> None:
    assert got == expected


BAD = [  # string, words the one-line error must hold
    ("nDCG@0", ["'nDCG@0'", "cutoff"]),
    ("nDCG@ten", ["'nDCG@ten'", "'ten'"]),
    ("P(foo=1)@5", ["'P(foo=1)@5'", "does not take foo"]),
    ("Bpref@5", ["'Bpref@5'", "takes no @cutoff"]),
    ("nDGC@10", ["unknown measure 'nDGC@10'", "closest: nDCG"]),
    ("ndcg_cut.0", ["'ndcg_cut.0'", "cutoff"]),
    ("map.5", ["'map.5'", "takes no parameters"]),
    ("ndcg", ["ambiguous", "ranx: nDCG(full_ideal=False)"]),
    ("ERR@10", ["'ERR@10'", "not computed"]),
    ("precision@5-l2.5", ["-l must be a whole grade"]),
    ("P(rel='x')@5", ["rel must be a whole number"]),
    ("nDCG(gains={0:0,1:1})@10", ["gains", "not in SQL"]),
    ("nDCG@10 bogus", ["unknown measure 'bogus'"]),
    ("", ["at least one"]),
]


def test_bad_strings_one_line(con, check_cases) -> None:
    def bad(text: str, words: list[str]):
        def check() -> None:
            with pytest.raises(duckdb.Error) as raised:
                con.execute("SELECT * FROM parse_measures($1)", [text]).fetchall()
            message = str(raised.value)
            assert "\n" not in message.split("Error: ", 1)[1], message
            for word in words:
                assert word in message, message
        return check

    check_cases((text or "empty", bad(text, words)) for text, words in BAD)


# the fixture of tests/core/test_measures.py: ties (b, u; a, d), unjudged rows (u, v, k, w), graded
# judgments, a query judged but not run (q4) and one without relevant rows (q3)
QRELS = {
    "q1": {"a": 3, "b": 0, "c": 1, "d": 2, "e": 1},
    "q2": {"a": 0, "x": 2},
    "q3": {"z": 0, "y": 0},
    "q4": {"m": 1},
}
RUN = {
    "q1": {"a": 0.5, "b": 0.9, "u": 0.9, "c": 0.1, "d": 0.5, "v": 0.3},
    "q2": {"a": 1.0, "k": 2.0, "x": 0.2},
    "q3": {"z": 1.0, "w": 0.5},
}
# measure -> the ir_measures provider that computes it as trec_eval does (RR@k: msmarco's, since
# pytrec_eval ignores RR's cutoff; Judged: the judged provider's)
VALUES = {
    "nDCG@3": "pytrec_eval", "nDCG": "pytrec_eval", "nDCG(dcg='exp-log2')@2": "pytrec_eval",
    "P@2": "pytrec_eval", "P(rel=2)@3": "pytrec_eval", "R@3": "pytrec_eval",
    "AP": "pytrec_eval", "AP@3": "pytrec_eval", "RR": "pytrec_eval", "RR@1": "msmarco",
    "Rprec": "pytrec_eval", "Bpref": "pytrec_eval", "Judged@3": "judged",
    "Success@2": "pytrec_eval", "IPrec@0.5": "pytrec_eval", "IPrec@1.0": "pytrec_eval",
    "SetP": "pytrec_eval", "SetR": "pytrec_eval", "SetF": "pytrec_eval",
    "NumRet": "pytrec_eval", "NumRelRet": "pytrec_eval", "NumRel": "pytrec_eval",
    "AP(judged_only=True)": "pytrec_eval", "nDCG(judged_only=True)@3": "pytrec_eval",
    "P(rel=2,judged_only=True)@2": "pytrec_eval", "SetAP": "pytrec_eval",
    "SetRelP": "pytrec_eval", "infAP": "pytrec_eval",
}

PYTHON_TOO = "nDCG@3 AP(judged_only=True) IPrec@0.5 infAP NumRel"


@pytest.fixture(scope="module")
def ir_values() -> dict[tuple[str, str], float]:
    """ir_measures' per-query value of each measure of VALUES: {(query, repr): value}."""
    theirs = {}
    for provider in set(VALUES.values()):
        asked = [ir_measures.parse_measure(t) for t, p in VALUES.items() if p == provider]
        for result in ir_measures.providers.registry[provider].iter_calc(asked, QRELS, RUN):
            theirs[result.query_id, repr(result.measure)] = result.value
    return theirs


def _judged(con: duckdb.DuckDBPyConnection) -> None:
    """The judged run of QRELS and RUN (rnk = -score): one row per (query, item)."""
    con.execute("CREATE TABLE judged(query_id VARCHAR, item_id VARCHAR, rel DOUBLE, rnk DOUBLE)")
    rows = []
    for q in sorted(set(QRELS) | set(RUN)):
        for item in sorted(set(QRELS.get(q, {})) | set(RUN.get(q, {}))):
            score = RUN.get(q, {}).get(item)
            rows.append((q, item, QRELS.get(q, {}).get(item), None if score is None else -score))
    con.executemany("INSERT INTO judged VALUES (?, ?, ?, ?)", rows)


def test_values_match_ir_measures(con, ir_values, check_cases) -> None:
    _judged(con)
    text = " ".join(VALUES)
    labels = [r[0] for r in con.execute("SELECT measure FROM parse_measures($1) ORDER BY position",
                                        [text]).fetchall()]
    mine = {(q, m): v for q, m, v in con.execute(
        "SELECT * FROM measures_report('judged', $1)", [text]).fetchall()}
    summary = {m: (v, n) for m, v, n in con.execute(
        "SELECT * FROM measures_summary('judged', $1)", [f"{text} gm_map"]).fetchall()}
    # trec_eval gm_map: exp(mean(ln(max(AP, 1e-5)))) over the queries (q4, judged, not run: 0)
    ap = {q: v for (q, m), v in ir_values.items() if m == "AP"} | {"q4": 0.0}
    gm_map = math.exp(sum(math.log(max(v, 1e-5)) for v in ap.values()) / len(ap))
    assert summary["GM_AP"] == (pytest.approx(gm_map, abs=1e-12), 4)
    # the same numbers as the Python path (duckdb-ndcg trec) on some of them (its SQL plans for
    # 0.15 s a measure)
    python = {(q, m): v for q, m, v in scores(con, "judged", PYTHON_TOO).fetchall()}
    assert len(python) == 4 * len(PYTHON_TOO.split())
    for key, value in python.items():
        assert mine[key] == pytest.approx(value, abs=1e-12), key
    assert {q for q, _ in mine} == set(QRELS) | set(RUN)

    def same(text: str, label: str):
        def check() -> None:
            # ir_measures scores a query judged but not run 0 on every measure, NumRel too
            # (trec_eval -c counts its relevant rows): compared on the queries run
            theirs = {q: v for (q, m), v in ir_values.items()
                      if m == repr(ir_measures.parse_measure(text)) and q in RUN}
            assert len(theirs) == 3
            for q, value in theirs.items():
                assert mine[q, label] == pytest.approx(value, abs=1e-9), q
            # q4, judged (one relevant row) but not run: 0, but for its count of relevant rows
            assert mine["q4", label] == (1.0 if label == "NumRel" else 0.0)
            values = [mine[q, label] for q in sorted(set(QRELS) | set(RUN))]
            expected = sum(values) if label.startswith("Num") else sum(values) / len(values)
            assert summary[label] == (pytest.approx(expected, abs=1e-12), 4)
        return check

    check_cases((text, same(text, label)) for text, label in zip(VALUES, labels))


@pytest.mark.versions
def test_readme_recipe(con, readme_sql) -> None:
    """The README's SQL recipe ("Measures by name in SQL": its measures_report(...) and
    measures_summary(...) queries) prints what its comments say, and
    those are hand-computed: q1 ranks a (2), b (0), c (unjudged); d (1) is judged, not returned.
    nDCG@10 = 2 / (2 + 1 / log2(3)); P(rel=2)@5 = 1 / 5; RR = 1. q2 ranks x (1), y (0): nDCG 1,
    P(rel=2)@5 0, RR 1. AP: q1 1 / 2 (d not returned), q2 1, so gm_map = sqrt(1 / 2)."""
    blocks = readme_sql("### Measures by name in SQL")
    shown = []
    for statement, comments in blocks:
        if not statement.startswith("SELECT"):
            con.execute(statement)
            continue
        rows = con.execute(statement).fetchall()
        assert [" | ".join(str(v) for v in row) for row in rows] == [
            " | ".join(part.strip() for part in line.split("|")) for line in comments]
        shown.append(rows)
    ndcg_q1 = 2 / (2 + 1 / math.log2(3))
    assert shown[0] == [("q1", "P(rel=2)@5", 0.2), ("q1", "RR", 1.0),
                        ("q1", "nDCG@10", pytest.approx(ndcg_q1, abs=1e-15)),
                        ("q2", "P(rel=2)@5", 0.0), ("q2", "RR", 1.0), ("q2", "nDCG@10", 1.0)]
    assert shown[1] == [("nDCG@10", pytest.approx((ndcg_q1 + 1) / 2, abs=1e-15), 2),
                        ("GM_AP", pytest.approx(math.sqrt(0.5), abs=1e-15), 2),
                        ("NumRet(rel=1)", 2.0, 2)]
    parsed = con.execute("SELECT measure, metric, k, threshold FROM parse_measures("
                         "'MAP ndcg_cut.5,10 precision@5-l2') ORDER BY position").fetchall()
    assert parsed == [("AP", "average_precision", None, None), ("nDCG@5", "ndcg", 5, None),
                      ("nDCG@10", "ndcg", 10, None), ("P(rel=2)@5", "precision_at_k", 5, 2)]


def test_bad_table_one_line(con) -> None:
    """A grade column that is not a number is an error, not grades read as NULL (unjudged)."""
    con.execute("CREATE TABLE texts AS SELECT * FROM (VALUES ('q', 'a', '2', 1)) "
                "t(query_id, item_id, rel, rnk)")
    with pytest.raises(duckdb.Error, match="duckdb_ndcg: rel of texts must be a number"):
        con.execute("SELECT * FROM measures_report('texts', 'P@5')").fetchall()


@pytest.fixture(scope="module")
def persisted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file holding the macros and the README's judged run (made once: installing the
    macros costs about a second)."""
    path = tmp_path_factory.mktemp("measures") / "measures.duckdb"
    duckdb_ndcg.install(path)
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE judged_run AS SELECT * FROM (VALUES ('q1', 'a', 2, 1), "
                    "('q1', 'b', 0, 2), ('q1', 'c', NULL, 3), ('q1', 'd', 1, NULL), "
                    "('q2', 'x', 1, 1), ('q2', 'y', 0, 2)) t(query_id, item_id, rel, rnk)")
    return path


def test_in_the_cli(duckdb_cli: Path, persisted: Path) -> None:
    """The persisted macros in the DuckDB 1.4 and 1.5 CLIs (no Python there): measures_summary on
    the README's judged run, hand-computed there (test_readme_recipe's docstring)."""
    path = persisted
    sql = ("SELECT measure, value FROM measures_summary('judged_run', "
           "'nDCG@10 P(rel=2)@5 gm_map NumRelRet', grammar := NULL)")
    result = subprocess.run([str(duckdb_cli), "-readonly", "-json", str(path), "-c", sql],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    got = [(r["measure"], float(r["value"])) for r in json.loads(result.stdout)]
    ndcg_q1 = 2 / (2 + 1 / math.log2(3))
    assert got == [("nDCG@10", pytest.approx((ndcg_q1 + 1) / 2, abs=1e-15)),
                   ("P(rel=2)@5", pytest.approx(0.1, abs=1e-15)),
                   ("GM_AP", pytest.approx(math.sqrt(0.5), abs=1e-15)),
                   ("NumRet(rel=1)", 2.0)]
