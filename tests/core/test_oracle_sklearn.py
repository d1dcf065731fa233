"""Tie-averaged and list forms against scikit-learn, exponential gain against ranx, gain maps
against ir_measures, query by query on seeded random data.

scikit-learn's ``dcg_score``/``ndcg_score`` (``ignore_ties=False``, the default) average the gain
of tied scores (McSherry & Najork), as our default ``ties := 'average'`` does. Every item of a
scikit-learn sample is both ranked and judged, so its ideal is over the whole sample: for the
aggregates that is our default (k NULL cuts IDCG at the returned rows, which are all rows), and
for an explicit k both cut at k.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import ir_measures
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import dcg_score, ndcg_score

import duckdb_ndcg

N_QUERIES = 200
RANX_QUERIES = 60  # ranx builds numba dicts slowly
CUTS: tuple[int | None, ...] = (None, 1, 3, 10, 50)


@pytest.fixture(scope="module")
def module_con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        yield connection


def random_queries(seed: int, *, ties: bool, fractional: bool) -> list[tuple[np.ndarray, ...]]:
    """(grades, scores) per query, 2..15 items; about 1 in 10 queries has only zero grades."""
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(N_QUERIES):
        n = int(rng.integers(2, 16))
        if fractional:
            grades = np.round(rng.random(n) * 3, int(rng.integers(1, 4)))
        else:
            grades = rng.integers(0, 5, n).astype(float)
        if rng.random() < 0.1:
            grades = np.zeros(n)
        scores = rng.integers(0, int(rng.integers(1, 5)), n) if ties else rng.permutation(n)
        queries.append((grades, scores.astype(float)))
    return queries


def as_table(con: duckdb.DuckDBPyConnection, queries: list[tuple[np.ndarray, ...]]) -> None:
    rows = [
        (q, f"d{i}", float(g), -float(s))
        for q, (grades, scores) in enumerate(queries)
        for i, (g, s) in enumerate(zip(grades, scores, strict=True))
    ]
    con.register("frame", pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"]))
    con.execute("CREATE OR REPLACE TABLE judged_run AS FROM frame")


def per_query(con: duckdb.DuckDBPyConnection, columns: dict[str, str]) -> dict[int, dict]:
    select = ", ".join(f'{sql} AS "{name}"' for name, sql in columns.items())
    rows = con.execute(f"SELECT query_id, {select} FROM judged_run GROUP BY query_id").fetchall()
    return {row[0]: dict(zip(columns, row[1:], strict=True)) for row in rows}


def sql_k(k: int | None) -> str:
    return "NULL" if k is None else str(k)


@pytest.mark.parametrize("fractional", [False, True], ids=["integer", "fractional"])
def test_tie_averaged_aggregates_match_sklearn(
    module_con: duckdb.DuckDBPyConnection, fractional: bool
) -> None:
    queries = random_queries(7 + fractional, ties=True, fractional=fractional)
    as_table(module_con, queries)
    columns = {}
    for k in CUTS:
        columns[f"ndcg@{k}"] = f"ndcg(rel, rnk, {sql_k(k)})"
        for base in (2, 10):
            columns[f"dcg@{k}/{base}"] = f"dcg(rel, rnk, {sql_k(k)}, log_base := {base})"
    ours = per_query(module_con, columns)
    assert len(ours) == N_QUERIES
    n_ties = 0
    for q, (grades, scores) in enumerate(queries):
        n_ties += len(set(scores)) < len(scores)
        y_true, y_score = grades[None, :], scores[None, :]
        for k in CUTS:
            expected = ndcg_score(y_true, y_score, k=k)
            assert ours[q][f"ndcg@{k}"] == pytest.approx(expected, abs=1e-9), (q, k)
            for base in (2, 10):
                expected = dcg_score(y_true, y_score, k=k, log_base=base)
                assert ours[q][f"dcg@{k}/{base}"] == pytest.approx(expected, abs=1e-9), (q, k)
    assert n_ties > N_QUERIES / 2


def test_list_forms_match_sklearn(module_con: duckdb.DuckDBPyConnection) -> None:
    """list_dcg/list_ndcg take grades already in ranked order: sort by score, no ties."""
    queries = random_queries(11, ties=False, fractional=True)
    ranked = [grades[np.argsort(-scores)].tolist() for grades, scores in queries]
    columns = []
    for k in CUTS:
        columns.append(f"list_ndcg(rels, {sql_k(k)})")
        columns += [f"list_dcg(rels, {sql_k(k)}, log_base := {b})" for b in (2, 10)]
    rows = module_con.execute(
        f"SELECT {', '.join(columns)} FROM unnest($1) WITH ORDINALITY AS t(rels, q) ORDER BY q",
        [ranked],
    ).fetchall()
    for (grades, scores), row in zip(queries, rows, strict=True):
        y_true, y_score = grades[None, :], scores[None, :]
        expected = []
        for k in CUTS:
            expected.append(ndcg_score(y_true, y_score, k=k))
            expected += [dcg_score(y_true, y_score, k=k, log_base=b) for b in (2, 10)]
        assert list(row) == pytest.approx(expected, abs=1e-9)


def test_list_ndcg_ideal_matches_sklearn(module_con: duckdb.DuckDBPyConnection) -> None:
    """list_ndcg(rels, k, ideal := every judged grade) with k <= len(rels): scikit-learn sees the
    judged items that were not returned ranked below the returned ones, outside the cut."""
    rng = np.random.default_rng(13)
    cases = []
    for _ in range(N_QUERIES):
        returned = np.round(rng.random(int(rng.integers(1, 8))) * 2, 2)
        missed = np.round(rng.random(int(rng.integers(1, 8))) * 2, 2)
        cases.append((returned, missed, int(rng.integers(1, len(returned) + 1))))
    rows = module_con.execute(
        "SELECT list_ndcg(r, k, ideal := list_concat(r, m)) "
        "FROM (SELECT unnest($1) AS r, unnest($2) AS m, unnest($3) AS k, "
        "unnest(range(len($3))) AS q) ORDER BY q",
        [[c[0].tolist() for c in cases], [c[1].tolist() for c in cases], [c[2] for c in cases]],
    ).fetchall()
    for (returned, missed, k), (value,) in zip(cases, rows, strict=True):
        y_true = np.concatenate([returned, missed])[None, :]
        y_score = -np.arange(y_true.shape[1], dtype=float)[None, :]
        assert value == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-9)


def test_single_item_sklearn_refuses_we_answer(con: duckdb.DuckDBPyConnection) -> None:
    """scikit-learn needs two items per sample; a one-item ranking is NDCG 1 (or 0 if grade 0)."""
    with pytest.raises(ValueError, match="more than 1 document"):
        ndcg_score(np.array([[1.0]]), np.array([[0.5]]))
    assert con.execute("SELECT list_ndcg([2]), list_ndcg([0])").fetchone() == (1.0, 0.0)


def trec_style(queries: list[tuple[np.ndarray, ...]]) -> tuple[dict, dict]:
    qrels = {
        f"q{q}": {f"d{i}": int(g) for i, g in enumerate(grades)}
        for q, (grades, _) in enumerate(queries)
    }
    run = {
        f"q{q}": {f"d{i}": float(s) for i, s in enumerate(scores)}
        for q, (_, scores) in enumerate(queries)
    }
    return qrels, run


RANX_BURGES = ["ndcg_burges@1", "ndcg_burges@3", "ndcg_burges@10", "ndcg_burges"]


def ranx_inputs() -> tuple[list, dict, dict]:
    """(queries, qrels, run): what ranx was run on (tests/fixtures/ranx/record.py, case
    'ndcg_burges')."""
    queries = random_queries(17, ties=False, fractional=False)[:RANX_QUERIES]
    return queries, *trec_style(queries)


def test_exponential_gain_matches_ranx_ndcg_burges(
    module_con: duckdb.DuckDBPyConnection, recorded_ranx
) -> None:
    """ranx ``ndcg_burges@k``: (2^rel - 1) / log2(i + 1), IDCG over all judged items cut at k;
    bare ``ndcg_burges`` has no cut (our full_ideal). ranx's order among tied scores is its own,
    so scores are distinct here. ranx gives 0 to a query with no relevant item, as we do."""
    queries, qrels, run = ranx_inputs()
    as_table(module_con, queries)
    columns = {
        f"ndcg_burges@{k}": f"ndcg(rel, rnk, {k}, gain := 'exponential')" for k in (1, 3, 10)
    }
    columns["ndcg_burges"] = "ndcg(rel, rnk, gain := 'exponential', full_ideal := true)"
    ours = per_query(module_con, columns)
    theirs = recorded_ranx("ndcg_burges", qrels, run)
    assert sorted(theirs) == sorted(columns) == sorted(RANX_BURGES)
    for name in columns:
        assert len(theirs[name]) == RANX_QUERIES
        for q in range(RANX_QUERIES):
            assert ours[q][name] == pytest.approx(theirs[name][f"q{q}"], abs=1e-9), (name, q)


@pytest.mark.parametrize(
    ("gains", "sql_gain"),
    [
        ({0: 0, 1: 1, 2: 3, 3: 7, 4: 15}, "'exponential'"),
        ({0: 0, 1: 1, 2: 3, 3: 7, 4: 15}, "MAP {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}"),
        ({0: 0, 1: 2, 2: 3, 3: 10, 4: 11}, "MAP {0: 0, 1: 2, 2: 3, 3: 10, 4: 11}"),
        ({0: 0, 1: 2, 2: 3, 3: 10, 4: 11}, "'{0=0, 1=2, 2=3, 3=10, 4=11}'"),
    ],
    ids=["exp-vs-exponential", "exp-vs-map", "custom-map", "custom-map-text"],
)
def test_gain_maps_match_ir_measures(
    module_con: duckdb.DuckDBPyConnection, gains: dict[int, float], sql_gain: str
) -> None:
    """ir_measures ``nDCG(gains=...)@k`` (it rewrites the qrels' grades into gains and runs
    trec_eval's ndcg_cut) with ties broken as trec_eval does (score descending, docno descending).
    pytrec_eval only takes integer relevance, so ir_measures only takes integer gains: fractional
    gain maps are covered in test_conventions.py."""
    queries = random_queries(19, ties=True, fractional=False)
    as_table(module_con, queries)
    cuts = (1, 3, 10)
    key = "ties := 'key', tie_key := item_id"
    columns = {f"@{k}": f"ndcg(rel, rnk, {k}, gain := {sql_gain}, {key})" for k in cuts}
    ours = per_query(module_con, columns)
    qrels, run = trec_style(queries)
    measures = {str(ir_measures.nDCG(gains=gains) @ k): k for k in cuts}
    checked = 0
    for metric in ir_measures.iter_calc(list(map(ir_measures.parse_measure, measures)), qrels, run):
        q, k = int(metric.query_id[1:]), measures[str(metric.measure)]
        assert ours[q][f"@{k}"] == pytest.approx(metric.value, abs=1e-9), (q, k)
        checked += 1
    assert checked == N_QUERIES * len(cuts)
