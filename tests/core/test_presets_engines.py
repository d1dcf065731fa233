"""The search engines' presets: Elasticsearch rank_eval's normalized ``dcg`` on ``duckdb-ndcg
trec --preset elasticsearch -m ndcg_cut.k``, OpenSearch Search Relevance Workbench's NDCG@k on
``evaluate(preset='opensearch_srw')`` and its P, MAP, recall and NDCG at k on ``duckdb-ndcg trec
--preset opensearch_srw -q -n``.

Neither engine runs here: the oracle is each tool's rule worked by hand in the comments (sources
in conventions.PRESETS: Elasticsearch's DiscountedCumulativeGain.java, the workbench's
Evaluation.java and JudgmentThresholdCalculator.java), on fixtures with an unrated hit, fewer
hits than k, an all-zero query, a query judged but without hits (and one with hits but no
rating), and equal scores; and the values the workbench's own EvaluationTests.java asserts."""

from __future__ import annotations

import math

import pytest

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.trec import trec_lines

LOG2_3 = math.log2(3)

QRELS = """q1 0 b 3
q1 0 c 1
q1 0 e 2
q1 0 d 3
q2 0 x 2
q2 0 y 0
q2 0 z 3
q2 0 w 1
q3 0 m 0
q3 0 n 0
q4 0 p 1
"""
RUN = """q1 Q0 a 1 0.9 r
q1 Q0 b 2 0.8 r
q1 Q0 c 3 0.7 r
q1 Q0 e 4 0.6 r
q2 Q0 x 1 2.0 r
q2 Q0 y 2 1.0 r
q3 Q0 m 1 3 r
q3 Q0 n 2 2 r
q3 Q0 o 3 1 r
q5 Q0 s 1 1.0 r
"""
# Elasticsearch rank_eval, dcg with normalize: true and k = 3 (the search size: at most 3 hits):
# q1: hits a (unrated: 0), b (3: 2^3 - 1 = 7), c (1: 1); DCG = 7 / log2(3) + 1 / log2(4); the
#     ideal is every rating sorted (3, 3, 2, 1) cut at the 3 hits: 7 + 7 / log2(3) + 3 / 2
# q2: 2 hits, x (2: 3) and y (0: 0): DCG = 3; the ideal cut at the 2 hits (not at k): ratings
#     3, 2 -> 7 + 3 / log2(3)
# q3: ratings all 0: IDCG 0 -> 0; q4: rated, no hit -> 0; q5: hits, no rating -> 0
ES = {
    "q1": (7 / LOG2_3 + 1 / 2) / (7 + 7 / LOG2_3 + 3 / 2),
    "q2": 3 / (7 + 3 / LOG2_3),
    "q3": 0.0, "q4": 0.0, "q5": 0.0,
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def test_elasticsearch_ndcg(con, files) -> None:
    lines = list(trec_lines(con, *files, ["ndcg_cut.3"], per_query=True, preset="elasticsearch"))
    expected = [f"ndcg_cut_3            \t{q}\t{v:.4f}" for q, v in ES.items()]
    expected.append(f"ndcg_cut_3            \tall\t{sum(ES.values()) / 5:.4f}")
    assert lines == expected
    # the ideal cut at k = 3 would give q2 3 / (7 + 3 / log2(3) + 1 / 2) = 0.3194
    assert lines[1].endswith("0.3374")
    # without the preset, trec_eval's ndcg_cut_3: linear gains, the ideal cut at 3, q2 only
    # (judged and run): 2 / (3 + 2 / log2(3) + 1 / 2)
    plain = list(trec_lines(con, *files, ["ndcg_cut.3"], per_query=True))
    assert plain[1] == f"ndcg_cut_3            \tq2\t{2 / (3 + 2 / LOG2_3 + 1 / 2):.4f}"
    assert len(plain) == 4  # q1, q2, q3, all


ES_BAD = [  # trec arguments after the files, exit code, words of the one error line
    (["--preset", "elasticsearch"], 2, ["ndcg_cut.k only", "drop the default official"]),
    (["--preset", "elasticsearch", "-m", "ndcg_cut.3", "-m", "P.5"], 2, ["drop P_5"]),
    (["--preset", "elasticsearch", "-m", "ndcg_cut.3", "-c"], 2, ["fixes the query set", "-c"]),
    (["--preset", "elasticsearch", "-m", "ndcg_cut.3", "-J"], 2, ["drop -J"]),
    (["--preset", "elasticsearch", "-m", "ndcg"], 2, ["drop ndcg"]),
    (["--preset", "opensearch_srw"], 2, ["'opensearch_srw' gives each query's values"]),
]


@pytest.mark.parametrize(("flags", "code", "words"), ES_BAD, ids=[" ".join(b[0]) for b in ES_BAD])
def test_elasticsearch_refusals(files, capsys, flags, code, words) -> None:
    assert cli.main(["trec", *files, *flags]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize(("qrels", "run", "words"), [
    # equal scores: Elasticsearch's own order of the hits, which the run cannot tell
    (QRELS, RUN.replace("q1 Q0 c 3 0.7", "q1 Q0 c 3 0.8"), ["query 'q1' has score 0.8"]),
    # a negative grade is trec_eval's "unjudged", an Elasticsearch rating of -1
    (QRELS + "q2 0 v -1\n", RUN, ["ratings >= 0", "'v' of query 'q2' has -1"]),
], ids=["equal scores", "negative grade"])
def test_elasticsearch_data_errors(tmp_path, capsys, qrels, run, words) -> None:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    assert cli.main(["trec", str(tmp_path / "qrels"), str(tmp_path / "run"), "--preset",
                     "elasticsearch", "-m", "ndcg_cut.3"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for word in words:
        assert word in err, err


@pytest.fixture
def shown(con):
    """Hits in the engine's order (position) and judgments as events (view 0, click 1, cart 2,
    buy 3): q1 an unrated hit a and a judged item d never shown, q2 two hits (fewer than k = 3)
    and judged items z, w never shown, q3 all judged 0."""
    con.execute("""CREATE TABLE hits AS SELECT * FROM (VALUES
        ('q1', 'a', 1), ('q1', 'b', 2), ('q1', 'c', 3), ('q1', 'e', 4),
        ('q2', 'x', 1), ('q2', 'y', 2),
        ('q3', 'm', 1), ('q3', 'n', 2), ('q3', 'o', 3)) t(query_id, item_id, position)""")
    con.execute("""CREATE TABLE judged AS SELECT * FROM (VALUES
        ('q1', 'b', 'buy'), ('q1', 'c', 'click'), ('q1', 'e', 'cart'), ('q1', 'd', 'buy'),
        ('q2', 'x', 'cart'), ('q2', 'y', 'view'), ('q2', 'z', 'buy'), ('q2', 'w', 'click'),
        ('q3', 'm', 'view')) t(query_id, item_id, event_type)""")
    return con


GRADES = {"view": 0, "click": 1, "cart": 2, "buy": 3}
# OpenSearch SRW, NDCG@3 (Evaluation.calculateNDCGAtK): DCG of 2^grade - 1 over the first 3 hits,
# IDCG of every judgment of the query sorted descending, cut at k = 3, rounded to 2 decimals:
# q1: DCG = 7 / log2(3) + 1 / 2 = 4.9165 (4.92); IDCG = 7 + 7 / log2(3) + 3 / 2 = 12.9165;
#     NDCG = 0.38064 -> 0.38
# q2: DCG = 3; IDCG = 7 + 3 / log2(3) + 1 / 2 = 9.3928 (cut at k, not at the 2 hits, which
#     would give 0.34); NDCG = 0.31940 -> 0.32
# q3: every judgment 0: IDCG 0 -> 0
SRW = {"q1": (0.38, 4.92), "q2": (0.32, 3.0), "q3": (0.0, 0.0)}


def test_srw_ndcg(shown) -> None:
    rows = duckdb_ndcg.evaluate("hits", "judged", con=shown, k=3, mapping=GRADES,
                                preset="opensearch_srw").project("query_id, ndcg, dcg")
    assert {q: (n, d) for q, n, d in rows.fetchall()} == SRW
    unrounded = dict(duckdb_ndcg.evaluate("hits", "judged", con=shown, k=3, mapping=GRADES,
                                          gain="exponential").project("query_id, ndcg").fetchall())
    assert unrounded["q1"] == pytest.approx((7 / LOG2_3 + 0.5) / (7 + 7 / LOG2_3 + 1.5), abs=1e-12)


def test_srw_cli(shown, tmp_path, capsys) -> None:
    shown.execute(f"COPY hits TO '{tmp_path / 'hits.csv'}'")
    shown.execute(f"COPY judged TO '{tmp_path / 'judged.csv'}'")
    (tmp_path / "grades.csv").write_text("event_type,grade\n" + "".join(
        f"{e},{g}\n" for e, g in GRADES.items()))
    out = tmp_path / "srw.csv"
    assert cli.main(["evaluate", str(tmp_path / "hits.csv"), str(tmp_path / "judged.csv"),
                     "--k", "3", "--mapping", str(tmp_path / "grades.csv"), "--preset",
                     "opensearch_srw", "--output", str(out)]) == 0
    capsys.readouterr()
    rows = shown.execute(f"SELECT query_id, ndcg FROM '{out}' ORDER BY 1").fetchall()
    assert rows == [(q, n) for q, (n, _) in SRW.items()]


SRW_BAD = [  # evaluate options, words of the one-line error
    ({"score_col": "position"}, ["'opensearch_srw'", "position_col"]),
    ({"gain": "linear", "ties": "key"}, ["sets ties='average'", "drop ties='key'"]),
    ({"metrics": ["ndcg", "precision_at_k"]}, ["NDCG's conventions only", "precision_at_k"]),
    ({"shape": "summary"}, ["rounded to 2 decimals", "no mean over queries"]),
    ({"empty_ideal": 1.0}, ["sets empty_ideal=0.0"]),
]


@pytest.mark.parametrize(("options", "words"), SRW_BAD, ids=[str(b[0]) for b in SRW_BAD])
def test_srw_refusals(shown, options, words) -> None:
    with pytest.raises(ValueError) as raised:
        duckdb_ndcg.evaluate("hits", "judged", con=shown, k=3, mapping=GRADES,
                             preset="opensearch_srw", **options)
    assert "\n" not in str(raised.value)
    for word in words:
        assert word in str(raised.value), raised.value


def test_elasticsearch_not_on_evaluate(shown) -> None:
    """evaluate cuts the ideal at k, Elasticsearch at the hits returned: refused, not approximated."""
    with pytest.raises(ValueError, match="preset 'elasticsearch' applies to trec only"):
        duckdb_ndcg.evaluate("hits", "judged", con=shown, k=3, mapping=GRADES,
                             preset="elasticsearch")


def _upstream_fixture(tmp_path) -> tuple[str, str]:
    """The workbench's own test data (EvaluationTests.java, search-relevance): 20 documents d1..d20
    graded i % 3 (threshold max(0.5 x 2, P90 = 2) = 2), returned in order by qA (20 hits), qB
    (d1..d5) and qC (d1..d8); g0..g9 graded 1..5 twice (threshold 5, qG); c0..c4 all 3 (threshold
    3, qK); b1..b10 graded 1 (b1..b7) and 0 (threshold 1, qb)."""
    judged = {q: {f"d{i}": i % 3 for i in range(1, 21)} for q in ("qA", "qB", "qC")}
    judged["qG"] = {f"g{i}": i % 5 + 1 for i in range(10)}
    judged["qK"] = {f"c{i}": 3 for i in range(5)}
    judged["qb"] = {f"b{i}": int(i <= 7) for i in range(1, 11)}
    hits = {"qA": 20, "qB": 5, "qC": 8, "qG": 10, "qK": 5, "qb": 10}
    (tmp_path / "qrels").write_text("".join(
        f"{q} 0 {d} {g}\n" for q, docs in judged.items() for d, g in docs.items()))
    (tmp_path / "run").write_text("".join(
        f"{q} Q0 {d} {r} {100 - r} srw\n" for q, n in hits.items()
        for r, d in enumerate(list(judged[q])[:n], start=1)))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


# the values EvaluationTests.java asserts (Precision@K, MAP@K, NDCG@K of the workbench), by
# (trec_eval name, query); P_8 of qB: 2 relevant among its 5 hits, / min(8, 5)
SRW_UPSTREAM = {
    ("P_20", "qA"): "0.3500", ("P_5", "qA"): "0.4000", ("map_cut_20", "qA"): "0.3900",
    ("ndcg_cut_20", "qA"): "0.7600", ("map_cut_5", "qB"): "0.1300", ("map_cut_8", "qB"): "0.1300",
    ("ndcg_cut_5", "qB"): "0.5100", ("ndcg_cut_8", "qB"): "0.4000", ("P_8", "qB"): "0.4000",
    ("P_5", "qC"): "0.4000", ("map_cut_5", "qC"): "0.1300", ("ndcg_cut_5", "qC"): "0.5100",
    ("P_10", "qG"): "0.2000", ("P_5", "qK"): "1.0000", ("P_10", "qb"): "0.7000",
}


def test_srw_trec_against_the_workbench_tests(con, tmp_path) -> None:
    qrels, run = _upstream_fixture(tmp_path)
    lines = list(trec_lines(con, qrels, run, ["P.5,8,10,20", "map_cut.5,8,20", "ndcg_cut.5,8,20"],
                            per_query=True, summary=False, preset="opensearch_srw"))
    values = {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2]
              for line in lines}
    assert {key: values[key] for key in SRW_UPSTREAM} == SRW_UPSTREAM
    assert len(values) == 6 * 10 and not any("\tall\t" in line for line in lines)


def test_srw_trec_by_hand(files, capsys) -> None:
    """The fixture above (k as given): q1's grades 1, 2, 3, 3 (threshold max(1.5, P90 = 3) = 3:
    b and the unreturned d relevant, R = 2); its 4 hits a (unjudged), b, c, e. P@5 = 1 / min(5,
    4) = 0.25 (trec_eval: 1 / 5); MAP@5 = (1 / 2) / 2 = 0.25; Recall@5 = 1 / 2; NDCG@3 0.38 as
    with evaluate. q2: threshold 3, no relevant hit: 0, NDCG@3 0.32. q3 (grades all 0) and q5
    (hits, no judgment): 0. q4 (judged, no hit) is not a query of the run: not printed."""
    assert cli.main(["trec", *files, "--preset", "opensearch_srw", "-q", "-n", "-m", "P.5",
                     "-m", "map_cut.5", "-m", "recall.5", "-m", "ndcg_cut.3"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    values = {(name.strip(), q): v for name, q, v in rows}
    assert values == {
        **{(m, q): "0.0000" for m in ("P_5", "recall_5", "ndcg_cut_3", "map_cut_5")
           for q in ("q2", "q3", "q5")},
        ("P_5", "q1"): "0.2500", ("map_cut_5", "q1"): "0.2500", ("recall_5", "q1"): "0.5000",
        ("ndcg_cut_3", "q1"): "0.3800", ("ndcg_cut_3", "q2"): "0.3200",
    }


SRW_TREC_BAD = [
    (["-q", "-m", "P.5"], ["give -q -n"]),
    (["-q", "-n", "-m", "P.5", "-l", "2"], ["own relevance threshold", "drop -l"]),
    (["-q", "-n", "-m", "P.5", "-c"], ["drop -c"]),
    (["-q", "-n", "-m", "recip_rank"], ["P.k, map_cut.k, recall.k and ndcg_cut.k only",
                                        "drop recip_rank"]),
]


@pytest.mark.parametrize(("flags", "words"), SRW_TREC_BAD, ids=[" ".join(b[0]) for b in SRW_TREC_BAD])
def test_srw_trec_refusals(files, capsys, flags, words) -> None:
    assert cli.main(["trec", *files, "--preset", "opensearch_srw", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    for word in words:
        assert word in err, err
