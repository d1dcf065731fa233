"""paired_ttest and welch_ttest with ``shift :=``: sums of the values minus a known constant, in
fixed memory, instead of holding each group's values to centre them on their mean.

compare_summary and ab_summary pass ``shift := 0.0`` (NDCG lies in [0, 1]): their t-tests held
every query's value as a list per (slice, k) group, memory that does not spill. Oracles: scipy's
ttest_rel / ttest_ind, and the moments in exact rational arithmetic on the same doubles.
"""

from __future__ import annotations

import math
from fractions import Fraction

import duckdb
import numpy as np
import pytest
from scipy import stats


def _exact_moments(x: np.ndarray) -> tuple[Fraction, Fraction]:
    exact = [Fraction(v) for v in x]
    mean = sum(exact) / len(exact)
    return mean, sum((v - mean) ** 2 for v in exact) / (len(exact) - 1)


def _ndcg_like(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    a = rng.beta(2, 3, n)
    return np.clip(a + rng.normal(0.02, 0.2, n), 0, 1), a


@pytest.mark.versions
def test_shift_zero_equals_scipy_on_ndcg_values(con: duckdb.DuckDBPyConnection) -> None:
    rng = np.random.default_rng(7)
    for n in (2, 3, 40, 999):
        b, a = _ndcg_like(rng, n)
        if n == 40:
            a, b = np.round(a, 1), np.round(b, 1)  # ties and zero differences
        paired = con.execute(
            "SELECT paired_ttest(b, a, shift := 0.0), paired_ttest(b, a) "
            "FROM (SELECT unnest(?) b, unnest(?) a)", [b.tolist(), a.tolist()]
        ).fetchone()
        want = stats.ttest_rel(b, a)
        low, high = want.confidence_interval(0.95)
        for got in paired:  # streamed, and held as a list (the default)
            assert got["p_value"] == pytest.approx(want.pvalue, rel=1e-9, abs=1e-12), n
            assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high), abs=1e-12)
            assert got["mean_diff"] == pytest.approx(float(np.mean(b - a)), abs=1e-15)
        welch = con.execute(
            "SELECT welch_ttest(v, is_b, shift := 0.0) "
            "FROM (SELECT unnest(?) v, unnest(?) is_b)",
            [[*a, *b], [False] * n + [True] * n],
        ).fetchone()[0]
        want = stats.ttest_ind(b, a, equal_var=False)
        assert welch["p_value"] == pytest.approx(want.pvalue, rel=1e-9, abs=1e-12), n
        assert welch["df"] == pytest.approx(want.df, rel=1e-10)


@pytest.mark.parametrize("offset", [1e6, 1e12, -3e13])
def test_a_shift_near_the_values_keeps_a_large_offset_exact(
    con: duckdb.DuckDBPyConnection, offset: float
) -> None:
    """What centring on the mean gives, streamed: the differences from a shift near the values
    are exact, so nothing of the offset enters the sums."""
    rng = np.random.default_rng(27)
    n = 300
    a = offset + rng.normal(0, 1, n)
    b = a + offset / 7 + rng.normal(0.05, 0.3, n)
    got = con.execute(
        "SELECT paired_ttest(b, a, shift := ?) FROM (SELECT unnest(?) b, unnest(?) a)",
        [offset / 7, b.tolist(), a.tolist()],
    ).fetchone()[0]
    md, vd = _exact_moments(b - a)  # b - a: what SQL's b - a computes per row
    assert got["mean_diff"] == pytest.approx(float(md), rel=1e-15)
    assert got["sd_diff"] == pytest.approx(math.sqrt(vd), rel=1e-12)
    bb = offset + rng.normal(0.2, 1.5, n)
    got = con.execute(
        "SELECT welch_ttest(v, is_b, shift := ?) FROM (SELECT unnest(?) v, unnest(?) is_b)",
        [offset, [*a, *bb], [False] * n + [True] * n],
    ).fetchone()[0]
    (ma, va), (mb, vb) = _exact_moments(a), _exact_moments(bb)
    se2 = va / n + vb / n
    assert got["mean_diff"] == pytest.approx(float(mb - ma), rel=1e-12)
    assert got["t"] == pytest.approx(float((mb - ma) / Fraction(math.sqrt(se2))), rel=1e-10)


@pytest.mark.versions
def test_shift_streams_under_a_memory_limit(con: duckdb.DuckDBPyConnection) -> None:
    """20 million pairs: a list of them per group is 160 MB, over this 40 MB limit."""
    con.execute("SET memory_limit = '40MB'")
    con.execute("SET threads = 1")
    n = 20_000_000
    got = con.execute(
        "SELECT paired_ttest(b, a, shift := 0.0), welch_ttest(b, i % 2 = 0, shift := 0.0) "
        "FROM (SELECT i, (i % 10) / 10 AS a, ((i * 7) % 10) / 10 AS b FROM range(?) r(i))", [n]
    ).fetchone()
    # by hand: per block of 10, b - a over i % 10 = 0..9 is ((7i mod 10) - i) / 10: its mean is 0
    assert got[0]["n"] == n and got[0]["mean_diff"] == pytest.approx(0.0, abs=1e-12)
    assert got[1]["n_a"] + got[1]["n_b"] == n


@pytest.mark.parametrize("shift", ["'nan'::DOUBLE", "'inf'::DOUBLE", "'-inf'::DOUBLE"])
def test_a_shift_that_is_not_finite_is_an_error(con: duckdb.DuckDBPyConnection, shift: str) -> None:
    for sql in (
        f"SELECT paired_ttest(b, a, shift := {shift}) FROM (VALUES (1.0, 0.5), (0.2, 0.1)) t(b, a)",
        f"SELECT welch_ttest(v, g, shift := {shift}) FROM (VALUES (1.0, true), (0.2, false)) t(v, g)",
    ):
        with pytest.raises(duckdb.Error, match="shift must be a finite number or NULL"):
            con.execute(sql)
