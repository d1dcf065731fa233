"""Any cutoff a user can type gives the right value, with work and memory bounded by the data.

DuckDB's top-N aggregates need n < 1,000,000 and allocate n slots per group, so cutoffs above 100
read whole groups as sorted lists; these tests hold both paths to scikit-learn and to each other.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import dcg_score, ndcg_score

HUGE = ["999999", "1000000", str(2**63 - 1), "1e300"]


@pytest.fixture
def long_run(con):
    """12 queries of 120..300 rows with coarse scores, so tie groups straddle k = 150."""
    rng = np.random.default_rng(3)
    rows = []
    for q in range(12):
        n = int(rng.integers(120, 301))
        grades = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
        scores = rng.integers(0, 40, n)
        rows += [(q, float(g), -float(s)) for g, s in zip(grades, scores, strict=True)]
    con.register("frame", pd.DataFrame(rows, columns=["query_id", "rel", "rnk"]))
    con.execute("CREATE TABLE judged_run AS FROM frame")
    return con


@pytest.mark.parametrize("k", [100, 101, 150, 250])
def test_cutoffs_above_the_top_n_range_match_sklearn(long_run, k: int) -> None:
    got = long_run.execute(
        f"SELECT query_id, ndcg(rel, rnk, {k}), dcg(rel, rnk, {k}), list(rel), list(rnk) "
        "FROM judged_run GROUP BY query_id"
    ).fetchall()
    straddling = 0
    for _, ndcg, dcg, rels, rnks in got:
        y_true, y_score = np.array([rels]), -np.array([rnks])
        assert ndcg == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-9)
        assert dcg == pytest.approx(dcg_score(y_true, y_score, k=k), abs=1e-9)
        ordered = sorted(rnks)
        straddling += len(ordered) > k and ordered[k - 1] == ordered[k]
    assert straddling >= 3  # the averaged-ties path at the cut is exercised


@pytest.mark.parametrize("k", HUGE)
def test_a_cutoff_beyond_every_list_is_the_whole_list(long_run, k: str) -> None:
    """DCG over every row, IDCG over every judged row (trec_eval's cut of the ideal)."""
    rows = long_run.execute(
        f"""SELECT ndcg(rel, rnk, {k}) - ndcg(rel, rnk, full_ideal := true),
                   dcg(rel, rnk, {k}) - dcg(rel, rnk),
                   recall_at_k(rel, rnk, {k}) - recall_at_k(rel, rnk),
                   hit_rate(rel, rnk, {k}, ties := 'key', tie_key := rel)
                       - hit_rate(rel, rnk, ties := 'key', tie_key := rel),
                   idcg(rel, {k}) - idcg(rel)
            FROM judged_run GROUP BY query_id"""
    ).fetchall()
    for row in rows:
        assert row == pytest.approx((0.0,) * 5, abs=1e-12), k


@pytest.mark.parametrize("k", HUGE)
def test_list_forms_take_any_cutoff(con, k: str) -> None:
    assert con.execute(f"SELECT list_ndcg([0, 1, 3], {k}), list_dcg([3], {k})").fetchall() == [
        (pytest.approx(con.execute("SELECT list_ndcg([0, 1, 3])").fetchall()[0][0]), 3.0)
    ]


def test_curve_with_a_cutoff_range_far_beyond_the_data(con) -> None:
    """max_k := 100000 over 4 rows took 18.8 GiB: one top-N heap of k slots per (query, k)."""
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES ('q', 3, 1), ('q', 2, 2), ('q', 0, 3), "
        "('q', 1, 4)) v(query_id, rel, rnk)"
    )
    count, beyond = con.execute(
        "SELECT count(*), count(DISTINCT ndcg) FILTER (WHERE k >= 4) "
        "FROM ndcg_curve('t', max_k := 100000)"
    ).fetchall()[0]
    assert (count, beyond) == (100000, 1)
