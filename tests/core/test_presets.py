"""Presets (conventions.PRESETS): each tool's conventions as a row of data, applied by
``evaluate(preset=...)`` / ``duckdb-ndcg evaluate --preset`` and ``duckdb-ndcg trec --preset``.

Oracles: scikit-learn's ndcg_score (sklearn), pytrec_eval (trec_eval), ir_measures 0.4.3
(ir_measures), ranx 0.3.21's
recorded values (tests/fixtures/measures/ranx.json, ranx), trec_eval 10's -c output
(trec_eval_c, tests/fixtures/trec_eval/out.c.txt); LightGBM and XGBoost do not run here: their
rule (2^grade - 1 gains, a query without a relevant item 1) by hand in the comments."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.conventions import PRESETS
from duckdb_ndcg.trec import trec_lines

ROOT = Path(__file__).parents[2]
TREC = ROOT / "tests" / "fixtures" / "trec_eval"


@pytest.fixture
def shown(con):
    """con (the shared connection of conftest) with the tables shown and events: q1 has equal
    scores (b, c) and an item graded but never shown (d); q2 shows nothing relevant."""
    con.execute("""CREATE TABLE shown AS SELECT * FROM (VALUES
        ('q1', 'a', 0.9, 1), ('q1', 'b', 0.5, 2), ('q1', 'c', 0.5, 3), ('q1', 'e', 0.1, 4),
        ('q2', 'x', 2.0, 1), ('q2', 'y', 1.0, 2)) t(query_id, item_id, score, position)""")
    con.execute("""CREATE TABLE events AS SELECT * FROM (VALUES
        ('q1', 'b', 'purchase'), ('q1', 'c', 'click'), ('q1', 'e', 'add_to_cart'),
        ('q1', 'd', 'purchase'), ('q2', 'z', 'click')) t(query_id, item_id, event_type)""")
    return con


def _trec(con, qrels: str, run: str, preset: str, measures: list[str]) -> dict[str, str]:
    """duckdb-ndcg trec's `all` lines under preset: name -> printed value."""
    lines = trec_lines(con, qrels, run, measures, preset=preset)
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in lines}


def test_trec_eval_c_is_minus_c(con, capsys) -> None:
    mine = _trec(con, str(TREC / "qrels.txt"), str(TREC / "run.txt"), "trec_eval_c",
                 ["num_q", "map", "gm_map", "P.5", "ndcg", "infAP", "recip_rank"])
    expected = {line.split("\t")[0].strip(): line.split("\t")[2]
                for line in (TREC / "out.c.txt").read_text().splitlines()
                if line.split("\t")[1] == "all"}
    assert mine == {name: expected[name] for name in mine} and len(mine) == 7
    plain = _trec(con, str(TREC / "qrels.txt"), str(TREC / "run.txt"), "trec_eval", ["num_q"])
    assert plain["num_q"] == "7" and mine["num_q"] == "8"  # q8 is judged, not run
    # the CLI's flag
    assert cli.main(["trec", str(TREC / "qrels.txt"), str(TREC / "run.txt"), "--preset",
                     "ir_measures", "-m", "num_q"]) == 0
    assert capsys.readouterr().out == "num_q                 \tall\t8\n"


def test_trec_eval_preset_as_pytrec_eval(con) -> None:
    """trec_eval's query set (judged and run): the mean of pytrec_eval's values, which it gives
    for the queries both judged and run."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {}, {}
    for line in (TREC / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in (TREC / "run.txt").read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    measures = {"map": "map", "P_5": "P.5", "ndcg": "ndcg", "recip_rank": "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(measures.values())).evaluate(run)
    mine = _trec(con, str(TREC / "qrels.txt"), str(TREC / "run.txt"), "trec_eval",
                 list(measures.values()))
    assert len(theirs) == 7  # q8 (judged, not run) and q9 (run, not judged) are left out
    assert mine == {name: f"{sum(v[name] for v in theirs.values()) / len(theirs):.4f}"
                    for name in measures}


def test_ir_measures_preset(con) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = str(TREC / "qrels.txt"), str(TREC / "run.txt")
    mine = _trec(con, qrels, run, "ir_measures", ["P.5", "map", "ndcg", "recip_rank", "Rprec"])
    names = {"P_5": "P@5", "map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec"}
    theirs = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(m) for m in names.values()],
        list(ir_measures.read_trec_qrels(qrels)), list(ir_measures.read_trec_run(run)))
    by_name = {str(m): v for m, v in theirs.items()}
    assert mine == {trec: f"{by_name[ir]:.4f}" for trec, ir in names.items()}


def test_ranx_preset(con, tmp_path) -> None:
    recorded = json.loads((ROOT / "tests" / "fixtures" / "measures" / "ranx.json").read_text())
    (tmp_path / "qrels").write_text("".join(
        f"{q} 0 {d} {g}\n" for q, docs in recorded["qrels"].items() for d, g in docs.items()))
    (tmp_path / "run").write_text("".join(
        f"{q} Q0 {d} 0 {s} r\n" for q, docs in recorded["run"].items() for d, s in docs.items()))
    mine = _trec(con, str(tmp_path / "qrels"), str(tmp_path / "run"), "ranx",
                 ["ndcg_cut.3", "map_cut.3", "recip_rank"])
    values = recorded["values"]
    mean = {name: sum(values[name].values()) / len(values[name]) for name in values}
    assert mine == {"ndcg_cut_3": f"{mean['ndcg@3']:.4f}", "map_cut_3": f"{mean['map@3']:.4f}",
                    "recip_rank": f"{mean['mrr']:.4f}"}


def test_sklearn_preset(shown) -> None:
    con = shown
    from sklearn.metrics import ndcg_score

    mine = dict(duckdb_ndcg.evaluate("shown", "events", con=con, score_col="score", k=3,
                                     preset="sklearn").project("query_id, ndcg").fetchall())
    # y_true of the shown items (grades: purchase 3, add_to_cart 2, click 1), their scores
    q1 = ndcg_score([[0, 3, 1, 2]], [[0.9, 0.5, 0.5, 0.1]], k=3)
    q2 = ndcg_score([[0, 0]], [[2.0, 1.0]], k=3)
    assert mine == pytest.approx({"q1": q1, "q2": q2}, abs=1e-12)
    assert q2 == 0.0
    plain = dict(duckdb_ndcg.evaluate("shown", "events", con=con, score_col="score", k=3)
                 .project("query_id, ndcg").fetchall())
    assert plain["q1"] < mine["q1"]  # without the preset, the unseen purchase d is in the ideal


@pytest.mark.parametrize("preset", ["lightgbm", "xgboost"])
def test_gbdt_presets(shown, preset: str) -> None:
    con = shown
    mine = dict(duckdb_ndcg.evaluate("shown", "events", con=con, k=3, preset=preset)
                .project("query_id, ndcg").fetchall())
    # q1 by position: a 0, b 3, c 1 (2^g - 1: 0, 7, 1); ideal of the shown items 3, 2, 1 -> 7, 3, 1
    dcg = 7 / math.log2(3) + 1 / math.log2(4)
    idcg = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    # q2: no relevant item shown: 1 (LightGBM's and XGBoost's rule)
    assert mine == pytest.approx({"q1": dcg / idcg, "q2": 1.0}, abs=1e-12)


BAD = [  # evaluate options, words of the one-line error
    ({"preset": "bogus"}, ["preset must be one of", "'sklearn'", "'bogus'"]),
    ({"preset": "sklearn", "ties": "key", "score_col": "score"}, ["preset 'sklearn' sets ties",
                                                                  "drop ties='key'"]),
    ({"preset": "lightgbm", "score_col": "score"}, ["preset 'lightgbm'", "position_col"]),
    ({"preset": "sklearn", "metrics": ["ndcg", "err"]}, ["NDCG's conventions only", "err"]),
    ({"preset": "ir_measures"}, ["preset 'ir_measures' applies to trec only"]),
    ({"preset": "elasticsearch"}, ["preset 'elasticsearch' applies to trec only"]),
]


@pytest.mark.parametrize(("options", "words"), BAD, ids=[str(b[0]) for b in BAD])
def test_bad_presets(shown, options: dict, words: list[str]) -> None:
    con = shown
    with pytest.raises(ValueError) as raised:
        duckdb_ndcg.evaluate("shown", "events", con=con, **options)
    message = str(raised.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_trec_rejects_an_evaluate_preset(capsys) -> None:
    assert cli.main(["trec", str(TREC / "qrels.txt"), str(TREC / "run.txt"), "--preset",
                     "sklearn"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--preset: preset 'sklearn' applies to evaluate only" in err


def test_every_row_states_its_source() -> None:
    for preset in PRESETS.values():
        assert preset.source and preset.ties in ("key", "average", "position")
        assert preset.queries in ("judged_and_run", "judged", "ranked", "judged_or_ranked")
        assert preset.ideal in ("judged", "ranked", "judged_cut_returned")
        assert preset.gain in ("linear", "exponential")


def test_readme_recipes_and_table(tmp_path, monkeypatch, capsys) -> None:
    """The README's presets section: its two command lines run (trec: ir_measures' query set,
    8 queries; evaluate: sklearn's NDCG@3 of the shown items), and its table is PRESETS."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Presets: each tool's conventions"):]
    section = section[:section.index("\n### ", 5)]
    trec_line, evaluate_line = section.split("```bash\n", 1)[1].split("\n```", 1)[0].splitlines()
    for preset in PRESETS.values():
        row = f"| `{preset.name}` | {preset.ties} | {preset.queries} | {preset.gain} | "
        assert row in section, row
    monkeypatch.chdir(TREC)
    assert cli.main(trec_line.split()[1:]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "ndcg                  \tall\t" in lines[-1] and len(lines) == 2
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shown.csv").write_text("query_id,item_id,score\nq1,a,0.9\nq1,b,0.5\nq1,c,0.5\n")
    (tmp_path / "events.csv").write_text(
        "query_id,item_id,event_type\nq1,b,purchase\nq1,c,click\nq1,d,purchase\n")
    assert cli.main(evaluate_line.split()[1:]) == 0
    capsys.readouterr()
    with duckdb.connect() as con:
        ((value,),) = con.execute("SELECT ndcg FROM 'ndcg.csv'").fetchall()
    from sklearn.metrics import ndcg_score

    assert value == pytest.approx(ndcg_score([[0, 3, 1]], [[0.9, 0.5, 0.5]], k=3), abs=1e-9)
