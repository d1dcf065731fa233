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


def test_curve_stops_at_the_longest_query(con, tmp_path) -> None:
    """max_k := 1e9 over a few short rankings spilled 60 GB under a 1 GB limit (19 GB of memory
    without; max_k := 100000 over 4 rows took 18.8 GiB before that): k now runs to least(max_k,
    the most rows of any query, returned or judged only), beyond which no NDCG@k changes. The rows
    are those of max_k := that length, here under a 100 MB limit with 50 MB of spill space."""
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES ('a', 3, 1), ('a', 1, 2), ('a', 2, NULL), "
        "('a', 1, NULL), ('b', 0, 1), ('b', 2, 2)) v(query_id, rel, rnk)"
    )
    con.execute(f"SET temp_directory = '{tmp_path}'")
    con.execute("SET memory_limit = '100MB'")
    con.execute("SET max_temp_directory_size = '50MB'")
    curve = "SELECT query_id, k, ndcg FROM ndcg_curve('t', max_k := {}) ORDER BY query_id, k"
    huge = con.execute(curve.format("1e9")).fetchall()
    assert huge == con.execute(curve.format(4)).fetchall()
    assert huge == con.execute(curve.format(2**63 - 1)).fetchall()
    assert [row[:2] for row in huge] == [(q, k) for q in "ab" for k in range(1, 5)]
    # 'a' returned 2 rows: NDCG@3 and @4 still fall as its ideal takes the judged 1s
    l3, l5 = np.log2(3), np.log2(5)
    expected = [
        1.0, (3 + 1 / l3) / (3 + 2 / l3), (3 + 1 / l3) / (3 + 2 / l3 + 1 / 2),
        (3 + 1 / l3) / (3 + 2 / l3 + 1 / 2 + 1 / l5),
        0.0, (2 / l3) / 2, (2 / l3) / 2, (2 / l3) / 2,
    ]  # fmt: skip
    assert [row[2] for row in huge] == pytest.approx(expected, abs=1e-12)
    # a shorter max_k still cuts where it says
    assert con.execute(f"SELECT max(k), count(*) FROM ({curve.format(2)})").fetchall() == [(2, 4)]
