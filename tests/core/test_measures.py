"""parse_measures: ir_measures, trec_eval and ranx strings read into canonical measures, each scored
through the engine and compared with ir_measures 0.4.3 (pytrec_eval, msmarco, judged providers) and
ranx 0.3.21 (recorded offline: tests/fixtures/measures/make_ranx.py) on a small fixture (ties, unjudged rows, graded judgments, a query judged but not run,
a query without relevant rows), to 1e-9."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import ir_measures
import pytest

import duckdb_ndcg
from duckdb_ndcg.measures import MeasureError, parse_measures, scores

QRELS = {
    "q1": {"a": 3, "b": 0, "c": 1, "d": 2, "e": 1},
    "q2": {"a": 0, "x": 2},
    "q3": {"z": 0, "y": 0},  # nothing relevant
    "q4": {"m": 1},  # judged, not run
}
RUN = {  # equal scores (b, u; a, d) are ordered by item descending, as trec_eval does
    "q1": {"a": 0.5, "b": 0.9, "u": 0.9, "c": 0.1, "d": 0.5, "v": 0.3},
    "q2": {"a": 1.0, "k": 2.0, "x": 0.2},
    "q3": {"z": 1.0, "w": 0.5},
}

# (string as written, canonical labels): every grammar, aliases, presets of cutoffs
NAMES = [
    ("nDCG@10", ["nDCG@10"]),
    ("ndcg@10", ["nDCG@10"]),  # ir_measures (any case) and ranx agree
    ("MAP", ["AP"]),
    ("MRR@10", ["RR@10"]),
    ("P(rel=2)@5", ["P(rel=2)@5"]),
    ("AP(judged_only=True)", ["AP(judged_only=True)"]),
    ("nDCG(dcg='exp-log2')@10", ["nDCG(dcg='exp-log2')@10"]),
    ("RBP(p=0.9, rel=1)", ["RBP(rel=1,p=0.9)"]),
    ("Judged@10", ["Judged@10"]),
    ("Success@5", ["Success@5"]),
    ("IPrec@0.5", ["IPrec@0.5"]),
    ("NumRelRet", ["NumRet(rel=1)"]),
    ("ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
    ("P.10,5", ["P@5", "P@10"]),  # trec_eval sorts a cutoff list
    ("P_5", ["P@5"]),
    ("recip_rank", ["RR"]),
    ("success", ["Success@1", "Success@5", "Success@10"]),  # ir_measures' needs a cutoff
    ("gm_map", ["GM_AP"]),
    ("map@100", ["AP@100"]),
    ("precision@5-l2", ["P(rel=2)@5"]),
    ("ndcg_burges@10", ["nDCG(dcg='exp-log2')@10"]),
    ("ndcg@10-l2", ["nDCG(min_rel=2)@10"]),
    ("nDCG@10 MAP AP", ["nDCG@10", "AP"]),  # each once
]

# strings whose reading ir_measures itself defines: the same measure and parameters
IR_STRINGS = ["nDCG@10", "MAP", "MRR@10", "P(rel=2)@5", "AP(judged_only=True)",
              "nDCG(gains={0:0,1:1,2:3,3:7})@10", "nDCG(dcg='exp-log2')@10", "RBP(p=0.9,rel=1)",
              "Judged@10", "Success@5", "IPrec@0.5", "NumRelRet", "Rprec", "Bpref", "SetF", "NumQ",
              "infAP", "infAP(rel=2)"]
TREC_STRINGS = ["ndcg_cut.5,10", "P.5,10", "map", "recip_rank", "bpref", "Rprec", "set_P",
                "set_recall", "num_rel_ret", "num_ret", "recall.20,2000", "map_cut.5,100",
                "iprec_at_recall.0.1,0.5", "success", "ndcg", "infAP"]

BAD = [  # string, words the one-line error must hold
    ("nDCG@0", ["'nDCG@0'", "cutoff", "'0'"]),
    ("nDCG@ten", ["'nDCG@ten'", "cutoff", "'ten'"]),
    ("P(foo=1)@5", ["'P(foo=1)@5'", "does not take foo"]),
    ("Bpref@5", ["'Bpref@5'", "takes no"]),
    ("nDGC@10", ["unknown measure 'nDGC@10'", "closest: nDCG"]),
    ("recip_rnk", ["unknown measure 'recip_rnk'", "recip_rank"]),
    ("ndcg_cut.0", ["'ndcg_cut.0'", "cutoff"]),
    ("map.5", ["'map.5'", "takes no parameters"]),
    ("ndcg.1=3,2=x", ["'ndcg.1=3,2=x'", "'2=x' is not name=number"]),
    ("ndcg", ["ambiguous", "ranx", "nDCG(full_ideal=False)"]),
    ("bpref", ["ambiguous", "ranx bpref"]),
    ("RBP", ["RBP(rel=1)"]),
    ("ERR@10", ["not computed"]),
    ("precision@5-l2.5", ["'precision@5-l2.5'", "-l must be a whole grade"]),
    ("P(rel='x')@5", ["rel must be a whole number"]),
    ("SetF(beta=2)", ["beta=1"]),
    ("hits@5", ["ranx hits"]),
    ("", ["at least one"]),
]


def test_labels(check_cases) -> None:
    def case(text: str, expected: list[str]):
        return lambda: _expect([m.name for m in parse_measures(text)], expected)

    check_cases((text, case(text, expected)) for text, expected in NAMES)


def _expect(got: object, expected: object) -> None:
    assert got == expected


def test_ir_measures_reads_the_same(check_cases) -> None:
    def same(text: str):
        def check() -> None:
            (mine,) = parse_measures(text, grammar="ir_measures")
            theirs = ir_measures.parse_measure(text)
            again = ir_measures.parse_measure(mine.name)
            assert (again.NAME, again.params) == (theirs.NAME, theirs.params)
        return check

    check_cases((text, same(text)) for text in IR_STRINGS)


def test_trec_names_read_as_ir_measures_does(check_cases) -> None:
    def same(text: str):
        def check() -> None:
            # trec_eval 10 counts IPrec's level by lround, pytrec_eval by + 0.9: a parameter
            # ir_measures does not name
            mine = [ir_measures.parse_measure(m.name.replace("(rounding=10)", ""))
                    for m in parse_measures(text, "trec_eval")]
            theirs = ir_measures.parse_trec_measure(text)
            assert sorted(map(repr, mine)) == sorted(map(repr, theirs))
        return check

    check_cases((text, same(text)) for text in TREC_STRINGS)


def test_official_is_trec_evals_list() -> None:
    names = [m.trec for m in parse_measures("official", "trec_eval")]
    assert names[:9] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                         "bpref", "recip_rank"]
    assert names[9:20] == [f"iprec_at_recall_{r / 10:.2f}" for r in range(11)]
    assert names[20:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def test_bad_strings_one_line(check_cases) -> None:
    def bad(text: str, words: list[str]):
        def check() -> None:
            with pytest.raises(MeasureError) as raised:
                parse_measures(text)
            message = str(raised.value)
            assert "\n" not in message
            for word in words:
                assert word in message, message
        return check

    check_cases((text or "empty", bad(text, words)) for text, words in BAD)


@pytest.fixture(scope="module")
def judged() -> duckdb.DuckDBPyConnection:
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        _judged_table(con, "judged", QRELS, RUN)
        yield con


# measure -> the ir_measures provider that computes it as trec_eval does (pytrec_eval ignores
# RR's cutoff, so RR@k is msmarco's; Judged is the judged provider's)
VALUES = {
    "nDCG@3": "pytrec_eval", "nDCG": "pytrec_eval", "nDCG(dcg='exp-log2')@2": "pytrec_eval",
    "nDCG(gains={0:0,1:1,2:3,3:7})@4": "pytrec_eval", "P@2": "pytrec_eval",
    "P(rel=2)@3": "pytrec_eval", "R@3": "pytrec_eval", "AP": "pytrec_eval", "AP@3": "pytrec_eval",
    "RR": "pytrec_eval", "RR@1": "msmarco", "Rprec": "pytrec_eval",
    "Bpref": "pytrec_eval", "Judged@3": "judged", "Success@2": "pytrec_eval",
    "IPrec@0.5": "pytrec_eval", "IPrec@1.0": "pytrec_eval",
    "SetP": "pytrec_eval", "SetR": "pytrec_eval", "SetF": "pytrec_eval", "NumRet": "pytrec_eval",
    "NumRelRet": "pytrec_eval", "NumRel": "pytrec_eval", "AP(judged_only=True)": "pytrec_eval",
    "nDCG(judged_only=True)@3": "pytrec_eval", "P(rel=2,judged_only=True)@2": "pytrec_eval",
    "SetAP": "pytrec_eval", "SetRelP": "pytrec_eval", "SetAP(rel=2)": "pytrec_eval",
}


def _judged_table(con: duckdb.DuckDBPyConnection, name: str, qrels: dict, run: dict) -> None:
    """The judged run of qrels and run (rnk = -score): one row per (query, item)."""
    con.execute(f"CREATE TABLE {name}(query_id VARCHAR, item_id VARCHAR, rel DOUBLE, rnk DOUBLE)")
    rows = []
    for q in sorted(set(qrels) | set(run)):
        for item in sorted(set(qrels.get(q, {})) | set(run.get(q, {}))):
            score = run.get(q, {}).get(item)
            rows.append((q, item, qrels.get(q, {}).get(item), None if score is None else -score))
    con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", rows)


def test_values_match_ir_measures(judged, check_cases) -> None:
    measures = parse_measures(" ".join(VALUES), "ir_measures")
    mine = {(q, name): value for q, name, value in scores(judged, "judged", measures).fetchall()}
    assert {q for q, _ in mine} == set(QRELS) | set(RUN)
    theirs = {}  # one call per provider
    for provider in set(VALUES.values()):
        asked = [ir_measures.parse_measure(t) for t, p in VALUES.items() if p == provider]
        for result in ir_measures.providers.registry[provider].iter_calc(asked, QRELS, RUN):
            theirs[result.query_id, repr(result.measure)] = result.value

    def same(text: str, label: str):
        def check() -> None:
            # ir_measures scores a query judged but not run 0 on every measure, NumRel too
            # (trec_eval -c counts its relevant rows): compared on the queries run
            values = {q: v for (q, m), v in theirs.items()
                      if m == repr(ir_measures.parse_measure(text)) and q in RUN}
            assert len(values) == 3
            for q, value in values.items():
                assert mine[q, label] == pytest.approx(value, abs=1e-9), q
        return check

    check_cases((text, same(text, m.name)) for text, m in zip(VALUES, measures))


RANX = json.loads((Path(__file__).parents[1] / "fixtures" / "measures" / "ranx.json").read_text())


def test_values_match_ranx(judged, check_cases) -> None:
    """ranx's values, recorded by tests/fixtures/measures/make_ranx.py."""
    strings = list(RANX["values"])
    measures = parse_measures(" ".join(strings), "ranx")
    _judged_table(judged, "judged_ranx", RANX["qrels"], RANX["run"])
    mine = {(q, m): value for q, m, value in scores(judged, "judged_ranx", measures).fetchall()}

    def same(text: str, label: str):
        def check() -> None:
            assert len(RANX["values"][text]) == 3
            for q, value in RANX["values"][text].items():
                assert mine[q, label] == pytest.approx(value, abs=1e-9), q
        return check

    check_cases((text, same(text, m.name)) for text, m in zip(strings, measures))


def test_readme_recipe(capsys) -> None:
    """The README's recipe of "Measures by name" runs and prints what its comments say."""
    text = (Path(__file__).parents[2] / "README.md").read_text()
    section = text[text.index("## Measures by name"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", section.index("```python"))]
    exec(compile(code, "README", "exec"), {})  # noqa: S102
    printed = capsys.readouterr().out.splitlines()
    expected = [line[2:] for line in code.splitlines() if line.startswith("# [")]
    assert printed == expected
