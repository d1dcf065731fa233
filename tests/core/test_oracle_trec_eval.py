"""Every trec_eval measure we mirror, query by query, against pytrec_eval on random data.

The DuckDB table is a FULL OUTER JOIN of a run with its qrels: ``rnk = -score`` (NULL for judged
items the run did not return), ``rel`` NULL for returned items nobody judged, and
``ties := 'key', tie_key := item_id`` for trec_eval's order (score descending, then docno
descending).

trec_eval conventions pinned down here (see the ``test_trec_eval_*`` tests at the end):
- only queries present in both the run and the qrels are evaluated; a query of the run missing
  from the qrels, or of the qrels missing from the run, gets no value at all (``trec_eval -c``
  would average the latter as zeros);
- a query in the qrels with no relevant item is evaluated, every measure 0;
- ``relevance_level`` (default 1) is the binary threshold of P, recall, map, recip_rank and
  success, i.e. our ``threshold``; ndcg ignores it and uses the grades as gains.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import duckdb_ndcg

N_QUERIES = 3000
CUTS = (1, 3, 5, 10)
TREC_MEASURES = {
    "ndcg",
    "ndcg_cut.1,3,5,10",
    "P.1,3,5,10",
    "recall.5,10",
    "map",
    "map_cut.10",
    "recip_rank",
    "success.1,5,10",
}
KEY = "ties := 'key', tie_key := item_id"


def sql_measures(threshold: int) -> dict[str, str]:
    """trec_eval measure name -> our SQL aggregate over (rel, rnk, item_id)."""
    t = f"threshold := {threshold}"
    measures = {"ndcg": f"ndcg(rel, rnk, NULL, {KEY}, full_ideal := true)"}
    for k in CUTS:
        measures[f"ndcg_cut_{k}"] = f"ndcg(rel, rnk, {k}, {KEY})"
        measures[f"P_{k}"] = f"precision_at_k(rel, rnk, {k}, {t}, {KEY})"
    for k in (1, 5, 10):
        measures[f"success_{k}"] = f"hit_rate(rel, rnk, {k}, {t}, {KEY})"
    for k in (5, 10):
        measures[f"recall_{k}"] = f"recall_at_k(rel, rnk, {k}, {t}, {KEY})"
    measures["map"] = f"average_precision(rel, rnk, NULL, {t}, {KEY})"
    measures["map_cut_10"] = f"average_precision(rel, rnk, 10, {t}, {KEY})"
    measures["recip_rank"] = f"reciprocal_rank(rel, rnk, NULL, {t}, {KEY})"
    return measures


def random_collection(
    seed: int, n_queries: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """qrels and run with: ties in scores (scores from a small set), unjudged returned items,
    judged items not returned, queries without a relevant item or without any judged returned
    item, runs shorter and longer than every cutoff, item ids whose string order differs from
    their numeric order (d7 > d10), and queries only in the run or only in the qrels."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = f"q{q}"
        pool = [f"d{i}" for i in rng.permutation(int(rng.integers(1, 40)))]
        n_judged = int(rng.integers(0, len(pool) + 1))
        kind = rng.random()
        if kind < 0.1:
            grades = np.zeros(n_judged, dtype=int)  # nothing relevant
        else:
            grades = rng.choice([0, 0, 1, 2, 3, 4], size=n_judged)
        judged = dict(zip(pool[:n_judged], (int(g) for g in grades), strict=True))
        returned = rng.permutation(pool)[: int(rng.integers(0, len(pool) + 1))]
        score_levels = int(rng.integers(1, 8))  # 1 level: every returned item tied
        scores = rng.integers(0, score_levels, size=len(returned)) / 4 - 1
        if judged and kind < 0.97:
            qrels[qid] = judged
        if len(returned) and kind > 0.02:
            run[qid] = {str(d): float(s) for d, s in zip(returned, scores, strict=True)}
    return qrels, run


def joined_frame(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> pd.DataFrame:
    """The FULL OUTER JOIN of run and qrels, restricted to queries trec_eval evaluates."""
    rows = []
    for qid in qrels.keys() & run.keys():
        judged, returned = qrels[qid], run[qid]
        for item in judged.keys() | returned.keys():
            score = returned.get(item)
            rows.append((qid, item, judged.get(item), None if score is None else -score))
    frame = pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"])
    return frame.astype({"rel": "float64", "rnk": "float64"})


def evaluate_sql(
    con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, threshold: int
) -> dict[str, dict[str, float]]:
    measures = sql_measures(threshold)
    con.register("frame", frame)
    con.execute(
        "CREATE OR REPLACE TABLE judged_run AS SELECT query_id, item_id, "
        "rel::INTEGER AS rel, rnk FROM frame"
    )
    select = ", ".join(f'{sql} AS "{name}"' for name, sql in measures.items())
    result = con.execute(f"SELECT query_id, {select} FROM judged_run GROUP BY query_id").fetchall()
    return {row[0]: dict(zip(measures, row[1:], strict=True)) for row in result}


def mismatches(
    ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]
) -> list[tuple[str, str, float, float]]:
    return [
        (qid, name, ours[qid][name], value)
        for qid, values in theirs.items()
        for name, value in values.items()
        if abs(ours[qid][name] - value) > 1e-9
    ]


@pytest.fixture(scope="module")
def collection() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    return random_collection(seed=20240611, n_queries=N_QUERIES)


@pytest.fixture(scope="module")
def module_con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        yield connection


@pytest.mark.parametrize("relevance_level", [1, 2])
def test_every_query_matches_pytrec_eval(
    module_con: duckdb.DuckDBPyConnection,
    collection: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
    relevance_level: int,
) -> None:
    qrels, run = collection
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, TREC_MEASURES, relevance_level=relevance_level
    ).evaluate(run)
    ours = evaluate_sql(module_con, joined_frame(qrels, run), relevance_level)
    assert set(ours) == set(theirs)
    assert len(theirs) > N_QUERIES * 0.75
    assert sum(len(v) for v in theirs.values()) == len(theirs) * len(sql_measures(1))
    assert mismatches(ours, theirs) == []


def test_collection_covers_the_edge_cases(
    collection: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
) -> None:
    """The random data really holds the cases the oracle test claims to cover."""
    qrels, run = collection
    both = qrels.keys() & run.keys()
    frame = joined_frame(qrels, run)
    assert frame["rel"].isna().any() and frame["rnk"].isna().any()
    assert any(not any(g >= 1 for g in qrels[q].values()) for q in both)
    assert any(len(set(run[q].values())) < len(run[q]) for q in both)
    assert any(len(run[q]) < 10 for q in both) and any(len(run[q]) > 10 for q in both)
    assert run.keys() - qrels.keys() and qrels.keys() - run.keys()


QUERY = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(0, 3)),  # grade; None = unjudged
        st.one_of(st.none(), st.integers(-3, 3)),  # score; None = not returned
    ),
    min_size=1,
    max_size=12,
)


# 10 batches (up to 250 small queries; 2.5 s of binding each): the 3,000 random queries above
# sweep the space, these shrink a failure to a minimal ranking
@settings(max_examples=10, deadline=None)
@given(queries=st.lists(QUERY, min_size=1, max_size=25))
def test_small_queries_match_pytrec_eval(
    module_con: duckdb.DuckDBPyConnection, queries: list[list[tuple[int | None, int | None]]]
) -> None:
    """Hypothesis: batches of small queries (one SQL statement per batch: binding the 18
    macros costs far more than evaluating them), shrinking to a minimal failing ranking."""
    qrels, run = {}, {}
    for q, data in enumerate(queries):
        qrels[f"q{q}"] = {f"d{i}": g for i, (g, s) in enumerate(data) if g is not None}
        run[f"q{q}"] = {f"d{i}": float(s) for i, (g, s) in enumerate(data) if s is not None}
    qrels = {q: judged for q, judged in qrels.items() if judged}
    run = {q: returned for q, returned in run.items() if returned}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    ours = evaluate_sql(module_con, joined_frame(qrels, run), 1)
    assert set(ours) == set(theirs)
    assert mismatches(ours, theirs) == []


def test_trec_eval_only_evaluates_queries_in_both_run_and_qrels() -> None:
    qrels = {"both": {"a": 1}, "qrels_only": {"a": 1}, "no_relevant": {"a": 0}}
    run = {"both": {"a": 1.0}, "run_only": {"a": 1.0}, "no_relevant": {"a": 1.0}}
    result = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "map"}).evaluate(run)
    assert set(result) == {"both", "no_relevant"}
    assert result["no_relevant"] == {"ndcg": 0.0, "map": 0.0}


def test_trec_eval_relevance_level_is_threshold_and_leaves_ndcg_alone(
    con: duckdb.DuckDBPyConnection,
) -> None:
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    level1 = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "P.1"}, relevance_level=1).evaluate(run)
    level2 = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "P.1"}, relevance_level=2).evaluate(run)
    assert level1["q"]["P_1"] == 1.0 and level2["q"]["P_1"] == 0.0
    assert level1["q"]["ndcg"] == level2["q"]["ndcg"]
    ours = evaluate_sql(con, joined_frame(qrels, run), 2)["q"]
    assert (ours["P_1"], ours["ndcg"]) == (0.0, pytest.approx(level2["q"]["ndcg"], abs=1e-12))


def test_trec_eval_breaks_equal_scores_by_docno_descending(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """All scores equal: trec_eval ranks d9, d10, d1 (string order descending), not d10, d9, d1;
    so does ties := 'key', tie_key := item_id."""
    qrels = {"q": {"d9": 1}}
    run = {"q": {"d1": 0.5, "d10": 0.5, "d9": 0.5}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert theirs["q"] == {"recip_rank": 1.0}
    assert evaluate_sql(con, joined_frame(qrels, run), 1)["q"]["recip_rank"] == 1.0
    qrels = {"q": {"d1": 1}}
    assert evaluate_sql(con, joined_frame(qrels, run), 1)["q"]["recip_rank"] == 1 / 3
