"""A result for each public macro that no other ``versions`` test reaches, by hand or by scipy on
one small sample: the mean family, f1_at_k, rbp, rbp_residual, event_match and the statistics, on
every supported DuckDB (tests/core/test_versions_selection.py). Their oracle sweeps (ranx,
ir_measures, thousands of scipy samples) run on the newest DuckDB; ranx compiles its metrics with
numba when imported, 18 s of CPU per process.
"""

from __future__ import annotations

from math import log2

import duckdb
import pytest

pytestmark = pytest.mark.versions

# Two queries, untied. q1: grades 3, 0, 1 at positions 1-3 and a 2 judged but not returned
# (relevant at threshold 1: a, c, d); q2: grades 0, 2 at positions 1-2 (relevant: b).
JUDGED = """CREATE TABLE judged AS SELECT * FROM (VALUES
    ('q1', 'a', 3.0, 1), ('q1', 'b', 0.0, 2), ('q1', 'c', 1.0, 3), ('q1', 'd', 2.0, NULL),
    ('q2', 'a', 0.0, 1), ('q2', 'b', 2.0, 2)) AS v(query_id, item_id, rel, rnk)"""

L3 = log2(3)
AT_2 = {
    # q1: 1 of 2 relevant, q2: 1 of 2
    "mean_precision_at_k(query_id, rel, rnk, 2)": (1 / 2 + 1 / 2) / 2,
    # q1: 1 of its 3 relevant, q2: its only one
    "mean_recall_at_k(query_id, rel, rnk, 2)": (1 / 3 + 1) / 2,
    "mean_hit_rate(query_id, rel, rnk, 2)": 1.0,
    "mean_reciprocal_rank(query_id, rel, rnk, 2)": (1 + 1 / 2) / 2,
    # precision at each relevant row returned, over the relevant rows: q1 1 / 3, q2 (1 / 2) / 1
    "mean_average_precision(query_id, rel, rnk, 2)": (1 / 3 + 1 / 2) / 2,
    # q1: 3 / (3 + 2 / log2 3) (the ideal over every judged row), q2: (2 / log2 3) / 2
    "mean_ndcg(query_id, rel, rnk, 2)": (3 / (3 + 2 / L3) + 1 / L3) / 2,
}


@pytest.mark.parametrize("call", sorted(AT_2))
def test_mean_family_at_2(con: duckdb.DuckDBPyConnection, call: str) -> None:
    con.execute(JUDGED)
    (got,) = con.execute(f"SELECT {call} FROM judged").fetchone()
    assert got == pytest.approx(AT_2[call], abs=1e-12)


def test_f1_at_k(con: duckdb.DuckDBPyConnection) -> None:
    """q1 at k = 2: precision 1 / 2, recall 1 / 3 (a, c, d relevant), F1 = 2PR / (P + R) = 2 / 5."""
    con.execute(JUDGED)
    (got,) = con.execute(
        "SELECT f1_at_k(rel, rnk, 2) FROM judged WHERE query_id = 'q1'"
    ).fetchone()
    assert got == pytest.approx(2 / 5, abs=1e-12)


def test_rbp_and_its_residual(con: duckdb.DuckDBPyConnection) -> None:
    """Relevant at position 1, unjudged at 2, not relevant at 3, p = 0.8: rbp (1 - p) = 0.2, the
    residual (1 - p) p for the unjudged row plus p^3 for what follows the ranking."""
    got = con.execute(
        "SELECT rbp(rel, rnk), rbp_residual(rel, rnk) "
        "FROM (VALUES (1, 1), (NULL, 2), (0, 3)) v(rel, rnk)"
    ).fetchone()
    assert got == pytest.approx((0.2, 0.2 * 0.8 + 0.8**3), abs=1e-12)


def test_event_match(con: duckdb.DuckDBPyConnection) -> None:
    """Two events of positive grade (a click on a shown item, a purchase of an unshown one) and an
    impression (grade 0, not sampled): 2 sampled, 1 matched."""
    con.execute(
        "CREATE TABLE shown AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 2)) "
        "v(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q1', 'a', 'click'), "
        "('q1', 'z', 'purchase'), ('q2', 'a', 'impression')) v(query_id, item_id, event_type)"
    )
    assert con.execute("SELECT * FROM event_match('shown', 'events')").fetchall() == [(2, 1)]


# Ten untied, non-zero paired differences (exact Wilcoxon, no ties for the sign test)
A = [0.1, 0.4, 0.35, 0.8, 0.5, 0.65, 0.2, 0.9, 0.55, 0.3]
D = [0.05, -0.02, 0.11, 0.07, -0.04, 0.09, 0.13, -0.01, 0.06, 0.08]
B = [a + d for a, d in zip(A, D, strict=True)]


@pytest.fixture
def pairs(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    con.execute("CREATE TABLE pairs AS SELECT unnest(?) AS b, unnest(?) AS a", [B, A])
    return con


def test_paired_tests_against_scipy(pairs: duckdb.DuckDBPyConnection) -> None:
    """The closed-form tests on one small sample (their sweeps over thousands of samples run on
    the newest DuckDB: tests/stats/test_closed_forms.py)."""
    stats = pytest.importorskip("scipy.stats")
    t, w, s, wtl = pairs.execute(
        "SELECT paired_ttest(b, a, conf := 0.9), wilcoxon_test(b, a), sign_test(b, a), "
        "win_tie_loss(b, a, eps := 0.03) FROM pairs"
    ).fetchone()
    want = stats.ttest_rel(B, A)
    ci = want.confidence_interval(0.9)
    assert (t["t"], t["p_value"], t["ci_low"], t["ci_high"]) == pytest.approx(
        (want.statistic, want.pvalue, ci.low, ci.high), rel=1e-9
    )
    want = stats.wilcoxon(B, A)
    assert (w["statistic"], w["p_value"]) == pytest.approx((want.statistic, want.pvalue), rel=1e-9)
    assert (s["wins"], s["losses"]) == (7, 3)
    assert s["p_value"] == pytest.approx(stats.binomtest(7, 10).pvalue, rel=1e-9)
    assert (wtl["wins"], wtl["ties"], wtl["losses"]) == (7, 2, 1)  # beyond 0.03, within, below


def test_welch_ttest_against_scipy(con: duckdb.DuckDBPyConnection) -> None:
    stats = pytest.importorskip("scipy.stats")
    con.execute(
        "CREATE TABLE arms AS SELECT unnest(?) AS v, unnest(?) AS is_b",
        [A + B[:7], [False] * len(A) + [True] * 7],
    )
    (r,) = con.execute("SELECT welch_ttest(v, is_b) FROM arms").fetchone()
    want = stats.ttest_ind(B[:7], A, equal_var=False)
    assert (r["t"], r["p_value"]) == pytest.approx((want.statistic, want.pvalue), rel=1e-9)


def test_resampling_within_monte_carlo_error(pairs: duckdb.DuckDBPyConnection) -> None:
    """randomization_test against the exact sign-flip p-value over all 2^10 flips; bootstrap_ci
    against scipy's percentile bootstrap (both Monte Carlo: 0.02 is over 5 standard errors)."""
    stats = pytest.importorskip("scipy.stats")
    r, ci = pairs.execute(
        "SELECT randomization_test(b, a, resamples := 20000), "
        "bootstrap_ci(b, a, resamples := 4000) FROM pairs"
    ).fetchone()
    observed = abs(sum(D))
    flips = [
        abs(sum(d if (mask >> i) & 1 else -d for i, d in enumerate(D))) >= observed - 1e-12
        for mask in range(2 ** len(D))
    ]
    assert r["p_value"] == pytest.approx(sum(flips) / len(flips), abs=0.02)
    want = stats.bootstrap(
        (D,), lambda x: sum(x) / len(x), vectorized=False, method="percentile",
        n_resamples=4000, random_state=1,
    ).confidence_interval
    assert (ci["ci_low"], ci["ci_high"]) == pytest.approx((want.low, want.high), abs=0.02)


def test_p_adjust_against_hand(con: duckdb.DuckDBPyConnection) -> None:
    """Holm on 0.01, 0.04, 0.03, 0.2: sorted, times 4, 3, 2, 1, running maximum, at most 1."""
    con.execute(
        "CREATE TABLE results AS SELECT unnest([0.01, 0.04, 0.03, 0.2]::DOUBLE[]) AS p_value"
    )
    got = con.execute(
        "SELECT p_value, p_adjusted, reject FROM p_adjust('results') ORDER BY p_value"
    ).fetchall()
    assert [g[0] for g in got] == pytest.approx([0.01, 0.03, 0.04, 0.2])
    assert [g[1] for g in got] == pytest.approx([0.04, 0.09, 0.09, 0.2], abs=1e-12)
    assert [g[2] for g in got] == [True, False, False, False]
