"""trec_eval's own measures (infAP, binG, G, ndcg_rel, Rndcg, rbp, rbp_resid, unj, relstring) and
its parameters ("grade=gain" pairs, p=, cutoffs, a length), ported from its m_*.c files.

Oracles: trec_eval 10 built from source, run once by tests/fixtures/trec_eval/make_fixtures.py
(out.params.txt: each measure of PARAMS on the generated qrels with grades -1 .. 3, equal scores,
unjudged returned documents and a query judged but not run, under -c), trec_eval's own test
output out.test.meas_params (../shared/peers/trec_eval), and ir_measures 0.4.3 (pytrec_eval) for
infAP, the one of them it names, to 1e-9."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from duckdb_ndcg.measures import MeasureError, parse_measures, scores
from duckdb_ndcg.trec import trec_lines

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "trec_eval"
PEERS = next((p / "shared" / "peers" / "trec_eval" for p in (ROOT.parent, ROOT.parent.parent)
              if (p / "shared" / "peers" / "trec_eval").is_dir()), ROOT / "missing")


def _recorded(name: str) -> list[str]:
    """A list of measures make_fixtures.py ran trec_eval with (PARAMS, WIDE)."""
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return getattr(module, name)


def test_parameters_as_trec_eval(con) -> None:
    """Every measure of PARAMS, -q -c: trec_eval's lines, but for one documented quirk."""
    mine = list(trec_lines(con, str(FIXTURES / "qrels.txt"), str(FIXTURES / "run.txt"),
                           _recorded("PARAMS"), per_query=True, complete=True))
    expected = (FIXTURES / "out.params.txt").read_text().splitlines()
    # trec_eval quirk: under -c a query judged but not run (q8) is scored on one made-up document
    # not in the pool, and only the measures named exactly relstring, rbp_resid, unj* ... are
    # reset after (trec_eval.c): relstring_25 shows it ('-') and rbp_resid_p=0.8 scores it
    # (0.8 + 0.2 = 1), and so their mean. Here no document: '' and 0, as without parameters.
    quirk = {("relstring_25", "q8"): "''", ("rbp_resid_p=0.8", "q8"): "0.0000",
             ("rbp_resid_p=0.8", "all"): None}

    def key(line: str) -> tuple[str, str]:
        name, query, _ = line.split("\t")
        return name.strip(), query

    assert [key(line) for line in mine] == [key(line) for line in expected]
    for line in mine:
        if key(line) in quirk and quirk[key(line)] is not None:
            assert line.split("\t")[2] == quirk[key(line)]
    assert [line for line in mine if key(line) not in quirk] == [
        line for line in expected if key(line) not in quirk]
    assert len({key(line)[0] for line in mine}) == 12


def test_wide_grades_as_trec_eval(con) -> None:
    """WIDE (grades up to 11: relstring's '>'; pooled-unjudged -2 and not-pooled rows; negative
    gains; rbp's rescaling) with -J and a measure named both without and with parameters (G):
    trec_eval's lines, every one."""
    mine = list(trec_lines(con, str(FIXTURES / "qrels_wide.txt"), str(FIXTURES / "run_wide.txt"),
                           _recorded("WIDE"), per_query=True, judged_only=True))
    assert mine == (FIXTURES / "out.wide.J.txt").read_text().splitlines()
    assert any(">" in line for line in mine if line.startswith("relstring_30"))


@pytest.mark.skipif(not PEERS.is_dir(), reason="trec_eval's test files are not checked out")
def test_trec_evals_meas_params(con) -> None:
    """out.test.meas_params: trec_eval's own test of parameters (its Makefile's command: level
    and cutoff lists, utility's coefficients, 11pt_avg's levels, ndcg's gains, the cutoff 23.4
    read as 23), line for line."""
    given = ["iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000",
             "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75",
             "ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"]
    mine = list(trec_lines(con, str(PEERS / "qrels.test"), str(PEERS / "results.test"), given,
                           per_query=True))
    assert mine == (PEERS / "out.test.meas_params").read_text().splitlines()


def test_infap_as_ir_measures(con) -> None:
    """infAP and infAP(rel=2) through scores() on the judged run with its qrels' grades (-1: in
    the pool, unjudged), against ir_measures (pytrec_eval), to 1e-9."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = str(FIXTURES / "qrels_run_only.txt"), str(FIXTURES / "run.txt")
    con.execute(f"""CREATE OR REPLACE TEMP TABLE infap_judged AS
        SELECT coalesce(r.query_id, q.query_id) AS query_id,
               coalesce(r.item_id, q.item_id) AS item_id,
               CASE WHEN q.rel >= 0 THEN q.rel END AS rel, r.rnk, q.rel AS qrels_grade
        FROM read_trec_run('{run}') r FULL OUTER JOIN read_qrels('{qrels}') q
             USING (query_id, item_id)
        WHERE coalesce(r.query_id, q.query_id) IN (SELECT query_id FROM read_qrels('{qrels}'))""")
    mine = {(q, m): v for q, m, v in scores(con, "infap_judged", "infAP infAP(rel=2)",
                                             pool_col="qrels_grade").fetchall()}
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure("infAP"), ir_measures.parse_measure("infAP(rel=2)")],
        list(ir_measures.read_trec_qrels(qrels)), list(ir_measures.read_trec_run(run)))}
    assert set(mine) == set(theirs) and len(mine) == 14
    for key, value in theirs.items():
        assert mine[key] == pytest.approx(value, abs=1e-9), key
    # the pool matters: without qrels_grade the -1 rows are "not in the pool", another number
    plain = {(q, m): v for q, m, v in scores(con, "infap_judged", "infAP").fetchall()}
    assert any(abs(plain[q, "infAP"] - mine[q, "infAP"]) > 1e-3 for q, _ in plain)


@pytest.mark.parametrize(("text", "words"), [
    ("ndcg_rel.p=0.5", ["'ndcg_rel.p=0.5'", "does not take 'p'"]),
    ("Rndcg.1", ["'Rndcg.1'", "'1' is not name=number"]),
    ("rbp.p=1.5", ["'rbp.p=1.5'", "p must be a number between 0 and 1"]),
    ("unj.0", ["'unj.0'", "cutoff must be a whole number >= 1"]),
    ("binG.2", ["'binG.2'", "takes no parameters"]),
    ("utility.2,-1,0", ["'utility.2,-1,0'", "utility takes four numbers"]),
    ("11pt_avg.0.5,1.5", ["'11pt_avg.0.5,1.5'", "recall levels between 0 and 1"]),
    ("ndcg_cut.0.5", ["'ndcg_cut.0.5'", "cutoff must be a whole number >= 1"]),
    # trec_eval 10's ndcg_cut takes cutoffs only (m_ndcg_cut.c: "change the qrels" for gains)
    ("ndcg_cut.1=3", ["'ndcg_cut.1=3'", "cutoff must be a whole number >= 1"]),
])
def test_parameters_not_read(text: str, words: list[str]) -> None:
    with pytest.raises(MeasureError) as caught:
        parse_measures(text, "trec_eval")
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_relstring_is_not_a_value(con) -> None:
    with pytest.raises(MeasureError, match="relstring is a text"):
        scores(con, "no_such_table", parse_measures("relstring", "trec_eval"))
