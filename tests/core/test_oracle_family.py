"""The metric family of issue 11 against oracles, query by query, on random runs.

trec_eval (pytrec_eval): Rprec, bpref, map_cut, recall; ranx: f1, rbp, r_precision, bpref, map@k;
ir_measures: Judged@k (its own provider) and ERR@k (gdeval, which prints 5 decimals); the
peers' own expected values for AP@k (Spark's RankingMetricsSuite: min(R, k) denominator) and
an empty query (XGBoost's AP of 1). Scores are distinct here except for the trec_eval run, which
breaks ties as trec_eval does (ties := 'key'); averaged ties are held to an enumeration of every
tied order at the end.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

KEY = "ties := 'key', tie_key := item_id"


def _random_run(seed: int, queries: int = 300, max_grade: int = 3, ties: bool = False):
    """(frame of the FULL OUTER JOIN, qrels dict, run dict) with integer query and item ids."""
    rng = np.random.default_rng(seed)
    rows, qrels, run = [], {}, {}
    for q in range(1, queries + 1):
        n = int(rng.integers(1, 40))
        scores = rng.integers(0, 8, n) if ties else rng.permutation(n) + rng.random()
        items = [f"d{i:03d}" for i in range(n + int(rng.integers(0, 6)))]
        grades = {}
        for i, item in enumerate(items):
            if i >= n or rng.random() < 0.75:  # unreturned items are always judged
                grades[item] = int(rng.integers(0, max_grade + 1))
        qrels[str(q)] = grades
        run[str(q)] = {items[i]: float(scores[i]) for i in range(n)}
        for i, item in enumerate(items):
            rows.append((q, item, grades.get(item), -float(scores[i]) if i < n else None))
    frame = pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"])
    return frame.astype({"rel": "float64", "rnk": "float64"}), qrels, run


def _ours(con, frame, columns: dict[str, str]) -> dict[str, dict[str, float]]:
    con.register("judged_run", frame)
    sql = ", ".join(f"{expr} AS \"{name}\"" for name, expr in columns.items())
    out = con.execute(
        f"SELECT query_id, {sql} FROM judged_run GROUP BY query_id ORDER BY query_id"
    ).df()
    return {name: dict(zip(out.query_id.astype(str), out[name], strict=True)) for name in columns}


def _agree(ours: dict[str, float], theirs: dict[str, float], tol: float) -> int:
    common = sorted(set(ours) & set(theirs))
    assert len(common) >= 100
    worst = max(abs(ours[q] - theirs[q]) for q in common)
    assert worst <= tol, worst
    return len(common)


@pytest.mark.versions
def test_trec_eval_rprec_bpref_map_cut_recall(con) -> None:
    import pytrec_eval

    frame, qrels, run = _random_run(1, ties=True)
    t = "threshold := 2"
    ours = _ours(con, frame, {
        "Rprec": f"r_precision(rel, rnk, {t}, {KEY})",
        "bpref": f"bpref(rel, rnk, {t}, {KEY})",
        "map_cut_5": f"average_precision(rel, rnk, 5, {t}, {KEY})",
        "recall_5": f"recall_at_k(rel, rnk, 5, {t}, {KEY})",
    })
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"Rprec", "bpref", "map_cut.5", "recall.5"}, relevance_level=2
    )
    result = evaluator.evaluate(run)
    for measure in ours:
        _agree(ours[measure], {q: v[measure] for q, v in result.items()}, 1e-12)


RANX_METRICS = ["f1@5", "rbp.8", "rbp.5", "r-precision", "bpref", "map@5", "map"]


def ranx_inputs() -> tuple[pd.DataFrame, dict, dict]:
    """(frame, the binary qrels of the queries with a relevant item, run): what ranx was run on
    (tests/fixtures/ranx/record.py, case 'family')."""
    frame, qrels, run = _random_run(2)
    binary = {q: {d: int(g >= 1) for d, g in items.items()} for q, items in qrels.items()}
    return frame, {q: items for q, items in binary.items() if any(items.values())}, run


def test_ranx_f1_rbp_r_precision_bpref_map_at_k(con, recorded_ranx) -> None:
    frame, ranx_qrels, run = ranx_inputs()
    theirs = recorded_ranx("family", ranx_qrels, run)
    assert sorted(theirs) == sorted(RANX_METRICS)
    ours = _ours(con, frame, {
        "f1@5": "f1_at_k(rel, rnk, 5)",
        "rbp.8": "rbp(rel, rnk)",
        "rbp.5": "rbp(rel, rnk, p := 0.5)",
        "r-precision": "r_precision(rel, rnk)",
        "map@5": "average_precision(rel, rnk, 5)",
        "map": "average_precision(rel, rnk)",
        "bpref": "bpref(rel, rnk)",
        "returned": "count(rnk)",
    })
    # ranx divides P@k by the rows returned when fewer than k: compare where there are k
    full = {q for q, n in ours["returned"].items() if n >= 5}
    assert _agree({q: v for q, v in ours["f1@5"].items() if q in full}, theirs["f1@5"], 1e-12)
    for m in ("rbp.8", "rbp.5", "r-precision", "map@5", "map", "bpref"):
        _agree(ours[m], theirs[m], 1e-12)


@pytest.mark.versions
def test_ir_measures_judged_and_err(con) -> None:
    import ir_measures

    frame, qrels, run = _random_run(3, max_grade=4, queries=150)
    measures = [ir_measures.Judged @ 5, ir_measures.Judged @ 10, ir_measures.ERR @ 5,
                ir_measures.ERR @ 20]
    theirs: dict[str, dict[str, float]] = {str(m): {} for m in measures}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        theirs[str(metric.measure)][metric.query_id] = metric.value
    ours = _ours(con, frame, {
        "Judged@5": "judged_at_k(rel, rnk, 5)",
        "Judged@10": "judged_at_k(rel, rnk, 10)",
        "ERR@5": "err(rel, rnk, 5)",
        "ERR@20": "err(rel, rnk, 20)",
    })
    for m in ("Judged@5", "Judged@10"):
        _agree(ours[m], theirs[m], 1e-12)
    for m in ("ERR@5", "ERR@20"):  # gdeval prints 5 decimals
        _agree(ours[m], theirs[m], 5.1e-6)


SPARK = [  # Spark RankingMetricsSuite: (predictions, labels); meanAveragePrecisionAt(k)
    ([1, 6, 2, 7, 8, 3, 9, 10, 4, 5], [1, 2, 3, 4, 5]),
    ([4, 1, 5, 6, 2, 7, 3, 8, 9, 10], [1, 2, 3]),
    ([1, 2, 3, 4, 5], []),
]


@pytest.mark.versions
@pytest.mark.parametrize(
    ("k", "denominator", "expected"),
    [(1, "min_k", 0.333334), (2, "min_k", 0.25), (3, "min_k", 0.240741),
     ("NULL", "relevant", 0.355026), ("NULL", "min_k", 0.355026)],
)
def test_spark_mean_average_precision_at(con, k, denominator: str, expected: float) -> None:
    rows = [(q, item, 1 if item in labels else 0, p)
            for q, (predicted, labels) in enumerate(SPARK)
            for p, item in enumerate(predicted, start=1)]
    con.register("t", pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"]))
    (got,) = con.execute(
        f"SELECT avg(ap) FROM (SELECT average_precision(rel, rnk, {k}, "
        f"denominator := '{denominator}') ap FROM t GROUP BY query_id)"
    ).fetchall()[0]
    assert got == pytest.approx(expected, abs=1e-6)  # Spark's tolerance, eps = 1e-5


def test_denominators_and_empty_queries(con) -> None:
    """Hivemall divides AP@k by the relevant rows retrieved; XGBoost scores an empty query 1."""
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES (1, 1, 1), (1, 0, 2), (1, 1, 3), (1, 1, NULL), "
        "(2, 0, 1), (2, 0, 2)) v(query_id, rel, rnk)"
    )
    got = con.execute(
        "SELECT query_id, average_precision(rel, rnk, 2), "
        "average_precision(rel, rnk, 2, denominator := 'min_k'), "
        "average_precision(rel, rnk, 2, denominator := 'retrieved'), "
        "average_precision(rel, rnk, empty_ideal := 1.0), recall_at_k(rel, rnk, 2, "
        "denominator := 'min_k'), recall_at_k(rel, rnk, 2, empty_ideal := NULL), "
        "r_precision(rel, rnk, empty_ideal := NULL), f1_at_k(rel, rnk, 2, empty_ideal := NULL), "
        "hit_rate(rel, rnk, empty_ideal := NULL), reciprocal_rank(rel, rnk, empty_ideal := NULL), "
        "bpref(rel, rnk, empty_ideal := NULL) FROM t GROUP BY query_id ORDER BY query_id"
    ).fetchall()
    assert got == [
        (1, 1 / 3, 1 / 2, 1.0, pytest.approx((1 + 2 / 3) / 3), 1 / 2, 1 / 3, 2 / 3,
         pytest.approx(2 / 5), 1.0, 1.0, pytest.approx(1 / 3 * (1 + 0 + 0))),
        (2, 0.0, 0.0, 0.0, 1.0, 0.0, None, None, None, None, None, None),
    ]
    with pytest.raises(Exception, match="denominator must be 'relevant' or 'min_k', got 'x'"):
        con.execute("SELECT recall_at_k(rel, rnk, denominator := 'x') FROM t").fetchall()
    with pytest.raises(Exception, match="p must be a number between 0 and 1"):
        con.execute("SELECT rbp(rel, rnk, p := 1) FROM t").fetchall()
    with pytest.raises(Exception, match="grades between 0 and max_grade 1"):
        con.execute("SELECT err(rel + 1, rnk, max_grade := 1) FROM t").fetchall()



@pytest.mark.parametrize("ties", ["average", "key"])
def test_r_precision_of_a_query_that_returned_nothing_is_zero(con, ties: str) -> None:
    """Relevant judged rows, none returned (rnk NULL): R-precision 0, not NULL, in both tie modes
    (trec_eval's Rprec of such a query is 0)."""
    got = con.execute(
        f"SELECT r_precision(rel, rnk, ties := '{ties}', tie_key := i) "
        "FROM (VALUES (1, NULL::INT, 1), (2, NULL, 2), (0, NULL, 3)) t(rel, rnk, i)"
    ).fetchall()
    assert got == [(0.0,)]

# -- averaged ties: the exact expectation over every tied order ---------------------------------


def _orders(rels: list, rnks: list):
    """Every order of the returned rows (tied rows permuted within their group), equally likely."""
    returned = sorted((r, i) for i, r in enumerate(rnks) if r is not None)
    groups = [[i for _, i in g] for _, g in itertools.groupby(returned, key=lambda x: x[0])]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [rels[i] for group in perm for i in group]


def _py_metrics(ranking: list, rels: list, k: int) -> dict[str, float]:
    relevant = sum(1 for r in rels if r is not None and r >= 1)
    nonrel = sum(1 for r in rels if r is not None and r < 1)
    hits = [r is not None and r >= 1 for r in ranking]
    out = {
        "rbp": sum(0.2 * 0.8**i for i, h in enumerate(ranking[:k]) if h is not None and h >= 1),
        "rbp_residual": sum(0.2 * 0.8**i for i, h in enumerate(ranking[:k]) if h is None)
        + 0.8 ** min(k, len(ranking)),
        "judged": sum(h is not None for h in ranking[:k]) / min(k, len(ranking))
        if ranking else 0.0,
        "f1": 2 * sum(hits[:k]) / (k + relevant) if relevant else 0.0,
        "rprec": sum(hits[:relevant]) / relevant if relevant else 0.0,
        "recall_min_k": sum(hits[:k]) / min(relevant, k) if relevant else 0.0,
        "ap_min_k": sum(sum(hits[: p + 1]) / (p + 1) for p in range(min(k, len(hits))) if hits[p])
        / min(relevant, k) if relevant else 0.0,
    }
    b, seen = 0.0, 0
    for r in ranking:
        if r is None:
            continue
        if r >= 1:
            b += 1.0 if seen == 0 else 1 - min(seen, relevant) / min(nonrel, relevant)
        else:
            seen += 1
    out["bpref"] = b / relevant if relevant else 0.0
    return out


SQL_TIED = {
    "rbp": "rbp(rel, rnk, k := {k})",
    "rbp_residual": "rbp_residual(rel, rnk, k := {k})",
    "judged": "judged_at_k(rel, rnk, {k})",
    "f1": "f1_at_k(rel, rnk, {k})",
    "rprec": "r_precision(rel, rnk)",
    "recall_min_k": "recall_at_k(rel, rnk, {k}, denominator := 'min_k')",
    "ap_min_k": "average_precision(rel, rnk, {k}, denominator := 'min_k')",
    "bpref": "bpref(rel, rnk)",
}


@pytest.mark.parametrize("k", [1, 3, 150])
def test_family_with_averaged_ties_matches_every_tied_order(con, k: int) -> None:
    rng = np.random.default_rng(k)
    rankings = []
    for _ in range(600):
        n = int(rng.integers(1, 7))
        rnks = [float(x) for x in rng.integers(0, max(1, n - 1), n)]
        rels = [None if rng.random() < 0.15 else float(x) for x in rng.integers(0, 3, n)]
        rnks = [None if rng.random() < 0.1 else r for r in rnks]
        rankings.append((rels, rnks))
    frame = pd.DataFrame(
        [(q, rel, rnk) for q, (rels, rnks) in enumerate(rankings) for rel, rnk in zip(rels, rnks)],
        columns=["query_id", "rel", "rnk"],
    ).astype({"rel": "float64", "rnk": "float64"})
    ours = _ours(con, frame, {name: sql.format(k=k) for name, sql in SQL_TIED.items()})
    worst = 0.0
    for q, (rels, rnks) in enumerate(rankings):
        orders = list(_orders(rels, rnks))
        expected = {
            name: math.fsum(_py_metrics(o, rels, k)[name] for o in orders) / len(orders)
            for name in SQL_TIED
        }
        for name in SQL_TIED:
            worst = max(worst, abs(ours[name][str(q)] - expected[name]))
            assert ours[name][str(q)] == pytest.approx(expected[name], abs=1e-12), (name, rels, rnks)
    assert worst <= 1e-12
