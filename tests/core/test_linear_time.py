"""No quadratic corners (issue 11, part 5): long rankings with averaged ties stay O(n log n).

A tie group's positions used to be found by searching the rank keys once per gained row
(list_position), so one ranking of 100,000 rows took 361 s at full depth and the report with
k := NULL 60 s on 40,000 rows. Times are CPU seconds of this process (DuckDB's threads included),
which a busy shared machine does not inflate the way it inflates wall time.
"""

from __future__ import annotations

import resource

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import dcg_score, ndcg_score


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _one_ranking(n: int, distinct: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "item_id": np.arange(n),
            "rel": rng.integers(0, 4, n).astype(float),
            "rnk": rng.integers(0, distinct, n).astype(float),
        }
    )


def test_fifty_thousand_tied_rows_at_full_depth_in_seconds(con) -> None:
    """A quadratic version takes about a minute here (20,000 rows took 9.6 s)."""
    con.register("t", _one_ranking(50_000, 5_000, seed=1))
    start = _cpu()
    got = con.execute("SELECT ndcg(rel, rnk), dcg(rel, rnk), cg(rel, rnk, 40000) FROM t").fetchall()
    assert _cpu() - start < 5.0
    frame = con.execute("SELECT rel, rnk FROM t").df()
    y_true, y_score = np.array([frame.rel]), -np.array([frame.rnk])
    assert got[0][0] == pytest.approx(ndcg_score(y_true, y_score), abs=1e-9)
    assert got[0][1] == pytest.approx(dcg_score(y_true, y_score), rel=1e-12)


def test_report_without_cutoff_is_linear_in_rows(con) -> None:
    n = 50_000
    frame = _one_ranking(n, 2_000, seed=2)
    con.register("shown", frame.assign(query_id=1, score=-frame.rnk))
    events = frame[frame.rel > 0].assign(
        query_id=1, event_type=frame.rel.map({1.0: "click", 2.0: "add_to_cart", 3.0: "purchase"})
    )
    con.register("events", events[["query_id", "item_id", "event_type"]])
    start = _cpu()
    (ndcg,) = con.execute(
        "SELECT ndcg FROM ndcg_report('shown', 'events', k := NULL, score_col := 'score')"
    ).fetchall()[0]
    assert _cpu() - start < 5.0
    y_true, y_score = np.array([frame.rel]), -np.array([frame.rnk])
    assert ndcg == pytest.approx(ndcg_score(y_true, y_score), abs=1e-9)


@pytest.mark.parametrize("k", [None, 7, 150, 999, 2500])
@pytest.mark.parametrize("distinct", [3, 40, 400])
def test_tie_heavy_rankings_match_sklearn(con, k: int | None, distinct: int) -> None:
    """Few distinct keys: tie groups of every size, many straddling k (sklearn averages ties)."""
    frames = [_one_ranking(3000, distinct, seed=s).assign(query_id=s) for s in range(4)]
    con.register("t", pd.concat(frames))
    cut = "NULL" if k is None else str(k)
    rows = con.execute(
        f"SELECT query_id, ndcg(rel, rnk, {cut}), dcg(rel, rnk, {cut}), "
        f"dcg(rel, rnk, {cut}, gain := 'exponential', log_base := 10), list(rel), list(rnk) "
        "FROM t GROUP BY query_id"
    ).fetchall()
    assert len(rows) == 4
    for _, ndcg, dcg, dcg_exp10, rels, rnks in rows:
        y_true, y_score = np.array([rels]), -np.array([rnks])
        assert ndcg == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
        assert dcg == pytest.approx(dcg_score(y_true, y_score, k=k), rel=1e-12)
        exp_gains = np.array([[2.0**g - 1 for g in rels]])
        assert dcg_exp10 == pytest.approx(
            dcg_score(exp_gains, y_score, k=k, log_base=10), rel=1e-12
        )


@pytest.mark.parametrize(
    "metric",
    [
        "average_precision(rel, rnk)",
        "reciprocal_rank(rel, rnk)",
        "hit_rate(rel, rnk, 40000)",
        "r_precision(rel, rnk)",
        "bpref(rel, rnk)",
        "bpref(rel, rnk, ties := 'key', tie_key := item_id)",
        "rbp(rel, rnk)",
        "rbp_residual(rel, rnk, k := 45000)",
    ],
)
def test_family_on_fifty_thousand_tied_rows_in_seconds(con, metric: str) -> None:
    """Tie groups from one merge: a macro argument mentioned inside a lambda body is evaluated
    again per element, which once made these quadratic (20,000 rows: 7.7 s)."""
    con.register("t", _one_ranking(50_000, 5_000, seed=3))
    start = _cpu()
    (value,) = con.execute(f"SELECT {metric} FROM t").fetchall()[0]
    assert _cpu() - start < 3.0
    assert 0.0 <= value <= 1.0
