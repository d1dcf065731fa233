"""randomization_test against exact enumeration of all sign flips; bootstrap_ci against scipy.

Both macros draw their random signs and indices from hashes, so they are compared with their
exact or reference values within Monte-Carlo error, with the tolerance derived in each test.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]


def _exact_p(d: np.ndarray) -> float:
    """Two-sided p of the paired sign-flip test: the share of all 2^n flips reaching |sum d|."""
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    return float(np.mean(np.abs(signs @ d) >= abs(d.sum()) * (1 - 1e-12)))


def test_randomization_within_monte_carlo_error_of_exact(con: duckdb.DuckDBPyConnection) -> None:
    rng = np.random.default_rng(7)
    cases = []
    for g in range(60):
        n = int(rng.integers(4, 17))
        d = rng.normal(rng.choice([0.0, 0.2, 0.5]), 1.0, n)
        if g % 5 == 0:
            d = np.round(d, 1)  # ties and zeros
        cases.append((g, d))
    con.execute("CREATE TABLE d AS SELECT * FROM (SELECT unnest(?) g, unnest(?) d)",
                [[g for g, d in cases for _ in d], [x for _, d in cases for x in d]])
    resamples = 10_000
    got = dict(con.execute("SELECT g, randomization_test(d, 0.0, resamples := ?).p_value "
                           "FROM d GROUP BY g", [resamples]).fetchall())
    # Our p = (1 + X) / (1 + R) with X ~ Binomial(R, p_exact) when the draws are independent fair
    # coins: |p - p_exact| <= 1 / (R + 1) + z sqrt(p_exact (1 - p_exact) / R). z = 4.5 bounds each
    # of the 60 cases (a false alarm in 1 of ~2,000 runs of this test); the mean standardised error
    # over the cases, N(0, 1/60) under independence, must also stay within 4.5 / sqrt(60): a
    # correlated hash (as multi-argument hash() gives) shifts it by far more.
    zs, worst = [], 0.0
    for g, d in cases:
        exact = _exact_p(d)
        sd = np.sqrt(exact * (1 - exact) / resamples)
        err = got[g] - exact
        worst = max(worst, abs(err))
        assert abs(err) <= 1 / (resamples + 1) + 4.5 * sd, (g, got[g], exact)
        if sd > 0:
            zs.append((err - (1 - exact) / (resamples + 1)) / sd)
    print(f"randomization_test vs exact enumeration (n <= 16, R = {resamples}): max |p - p_exact|"
          f" = {worst:.5f}, mean z = {np.mean(zs):+.3f} over {len(zs)} cases")
    assert abs(np.mean(zs)) <= 4.5 / np.sqrt(len(zs))


def test_randomization_reproducible_and_order_free(con: duckdb.DuckDBPyConnection) -> None:
    rng = np.random.default_rng(8)
    d = rng.normal(0.1, 1, 30).tolist()
    con.execute("CREATE TABLE d AS SELECT unnest(?) AS d, range AS i FROM range(30)", [d])
    q = "SELECT randomization_test(d, 0, resamples := 2000, seed := {}).p_value FROM (SELECT * FROM d ORDER BY {})"
    first = con.execute(q.format(42, "i")).fetchone()[0]
    assert con.execute(q.format(42, "i DESC")).fetchone()[0] == first
    assert con.execute(q.format("'x'", "i")).fetchone()[0] != first
    boot = "SELECT bootstrap_ci(d, 0, resamples := 500, seed := {}) FROM (SELECT * FROM d ORDER BY {})"
    first = con.execute(boot.format(1, "i")).fetchone()[0]
    assert con.execute(boot.format(1, "d")).fetchone()[0] == first
    assert con.execute(boot.format(2, "i")).fetchone()[0] != first


def fisher_inputs() -> tuple[list[float], list[float]]:
    """The per-query values (control a, treatment b) ranx's Fisher test was run on
    (tests/fixtures/ranx/record.py, case 'fisher')."""
    rng = np.random.default_rng(9)
    a = rng.beta(2, 3, 40)
    b = np.clip(a + rng.normal(0.04, 0.15, 40), 0, 1)
    return a.tolist(), b.tolist()


def test_randomization_agrees_with_ranx(con: duckdb.DuckDBPyConnection, recorded_ranx) -> None:
    """ranx's Fisher test (numpy's generator, p = X / R, 20,000 permutations, its seed 42) on the
    same per-query data; its p recorded once (ranx compiles it with numba: 15 s a fresh run)."""
    a, b = fisher_inputs()
    ours = con.execute("SELECT randomization_test(b, a, resamples := 20000).p_value FROM "
                       "(SELECT unnest(?) b, unnest(?) a)", [b, a]).fetchone()[0]
    theirs = recorded_ranx("fisher", {"control": a}, {"treatment": b})["fisher"]["p"]
    # two independent estimates of the same p with R = 20000 each: 5 standard errors of their
    # difference, plus our 1 / (R + 1) offset
    assert abs(ours - theirs) <= 5 * np.sqrt(2 * theirs * (1 - theirs) / 20000) + 1 / 20001


@pytest.mark.parametrize("conf", [0.9, 0.95])
def test_bootstrap_close_to_scipy_percentile(con: duckdb.DuckDBPyConnection, conf: float) -> None:
    rng = np.random.default_rng(10)
    resamples = 20_000
    for g in range(6):
        n = int(rng.integers(20, 120))
        a = rng.beta(2, 3, n)
        b = np.clip(a + rng.normal(0.02, 0.2, n), 0, 1)
        d = b - a
        ours = con.execute(
            "SELECT bootstrap_ci(b, a, conf := ?, resamples := ?) FROM (SELECT unnest(?) b, unnest(?) a)",
            [conf, resamples, b.tolist(), a.tolist()]).fetchone()[0]
        want = stats.bootstrap((d,), np.mean, method="percentile", confidence_level=conf,
                               n_resamples=resamples, rng=np.random.default_rng(g)).confidence_interval
        # The Monte-Carlo sd of a bootstrap quantile q is sqrt(q (1 - q) / R) / f(x_q), f the
        # density of the bootstrap means, about normal with sd s / sqrt(n) (s the population sd of
        # d): at q = 0.05 (conf 0.9) 2.12 s / sqrt(n R), at 0.025 2.67 s / sqrt(n R). Two
        # independent estimates, 5 standard errors: 5 sqrt(2) 2.67 s / sqrt(n R).
        tol = 5 * np.sqrt(2) * 2.67 * d.std() / np.sqrt(n * resamples)
        assert ours["mean_diff"] == pytest.approx(d.mean(), abs=1e-12)
        assert abs(ours["ci_low"] - want.low) <= tol and abs(ours["ci_high"] - want.high) <= tol


_PEAK = """
import duckdb, duckdb_ndcg


def status(field):  # kB
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


con = duckdb_ndcg.register(duckdb.connect())
con.execute("SET threads = 1")
con.execute("SET enable_progress_bar = false")
con.execute("CREATE TABLE d AS SELECT * FROM (VALUES (0.3), (-0.1)) t(d)")
con.execute("SELECT randomization_test(d, 0.0, resamples := 1000) FROM d").fetchall()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size starts again from the current one
before = status("VmRSS")
p = con.execute("SELECT randomization_test(d, 0.0, resamples := 2000000).p_value FROM d").fetchall()
print(p[0][0], (status("VmHWM") - before) / 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux's /proc only")
def test_randomization_memory_does_not_grow_with_resamples() -> None:
    """2 million resamples of 2 pairs: the resamples are counted a chunk at a time, so the peak
    memory of the process grows by less than 8 MB (2 MB measured; a list of every resample: 34 MB,
    1.9 GB at 1e8 resamples; DuckDB's memory_limit does not see list vectors, so the peak resident
    size of a fresh process is what is measured, from Linux's VmHWM reset before the query). Both signs of 0.3 - 0.1 and 0.3 + 0.1 reach
    |0.2|: p = 1."""
    done = subprocess.run([sys.executable, "-c", _PEAK], capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    p_value, growth_mb = map(float, done.stdout.splitlines()[-1].split())
    assert p_value == 1.0
    print("peak growth MB", growth_mb)
    assert growth_mb < 8, growth_mb


_BOOT_PEAK = """
import duckdb, duckdb_ndcg


def status(field):  # kB
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


con = duckdb_ndcg.register(duckdb.connect())
con.execute("SET threads = 1")
con.execute("SET enable_progress_bar = false")
con.execute("CREATE TABLE d AS SELECT CASE WHEN i < 2500 THEN 0.25 ELSE -0.25 END AS d "
            "FROM range(5000) t(i)")
con.execute("SELECT bootstrap_ci(d, 0.0, resamples := 10) FROM d").fetchall()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident size starts again from the current one
before = status("VmRSS")
ci = con.execute("SELECT bootstrap_ci(d, 0.0, resamples := 2000) FROM d").fetchone()[0]
print(ci["mean_diff"], ci["ci_low"], ci["ci_high"], (status("VmHWM") - before) / 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux's /proc only")
def test_bootstrap_memory_does_not_hold_resamples_times_n() -> None:
    """2,000 resamples of 5,000 pairs: the resample means are computed a chunk of about 65,536
    draws at a time, so the peak memory of the process grows by less than 8 MB (1.3 MB measured;
    a list of every draw, 2,000 x 5,000, grew it by 280 MB before; measured as in the
    randomization test above). Half the differences are 0.25, half -0.25: each resample mean is
    0.5 heads / 5000 - 0.25, heads ~ Binomial(5000, 1/2), so the 95 % interval is about
    +-1.96 x 0.25 / sqrt(5000) = +-0.0069 (a resample mean is a multiple of 1e-4: 3 of them of
    slack, plus 5 Monte-Carlo standard errors of the quantile)."""
    done = subprocess.run([sys.executable, "-c", _BOOT_PEAK], capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    mean_diff, low, high, growth_mb = map(float, done.stdout.splitlines()[-1].split())
    sd = 0.25 / np.sqrt(5000)
    half = stats.norm.ppf(0.975) * sd
    # the quantile's Monte-Carlo sd at q = 0.025: sqrt(q (1 - q) / R) / f(x_q), f normal(0, sd)
    mc = np.sqrt(0.025 * 0.975 / 2000) / stats.norm.pdf(-half, scale=sd)
    assert mean_diff == pytest.approx(0.0, abs=1e-12)
    assert abs(low + half) <= 3e-4 + 5 * mc and abs(high - half) <= 3e-4 + 5 * mc, (low, high)
    print("peak growth MB", growth_mb)
    assert growth_mb < 8, growth_mb
