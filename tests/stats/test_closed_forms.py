"""paired_ttest, welch_ttest, wilcoxon_test, sign_test, win_tie_loss against scipy.stats.

Thousands of random groups per macro, evaluated by one DuckDB query each (GROUP BY the case id),
each compared with its scipy oracle: p-values and interval ends to 1e-9 absolute (and relative
for small p-values). The maxima are printed (pytest -s) for the closing note.
"""

from __future__ import annotations

import math
from fractions import Fraction

import duckdb
import numpy as np
import pytest
from scipy import stats

TOL = 1e-9


def _close(got: float, want: float) -> float:
    """The difference that matters: absolute, or relative for a value below 1 in size."""
    return min(abs(got - want), abs(got - want) / max(abs(want), 1e-300))


def _cases(seed: int, groups: int, *, max_n: int = 200) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Random paired NDCG-like scores: some rounded (ties, zero differences), some continuous."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(groups):
        n = int(rng.integers(2, max_n))
        a = rng.beta(2, 3, n)
        b = np.clip(a + rng.normal(rng.normal(0, 0.05), rng.uniform(0.01, 0.3), n), 0, 1)
        if g % 3 == 0:
            a, b = np.round(a, 1), np.round(b, 1)
        out.append((g, b, a))
    return out


def _load(con: duckdb.DuckDBPyConnection, cases: list) -> None:
    g = np.concatenate([np.full(len(b), i) for i, b, _ in cases])
    b = np.concatenate([c[1] for c in cases])
    a = np.concatenate([c[2] for c in cases])
    con.execute("CREATE TABLE pairs AS SELECT * FROM (SELECT unnest(?) g, unnest(?) b, unnest(?) a)",
                [g.tolist(), b.tolist(), a.tolist()])


def test_paired_ttest_equals_scipy(con: duckdb.DuckDBPyConnection) -> None:
    cases = _cases(1, 2000)
    _load(con, cases)
    got = dict(con.execute("SELECT g, paired_ttest(b, a, conf := 0.9) FROM pairs GROUP BY g").fetchall())
    worst = {"t": 0.0, "p_value": 0.0, "ci": 0.0}
    for g, b, a in cases:
        r = got[g]
        want = stats.ttest_rel(b, a)
        ci = want.confidence_interval(0.9)
        d = b - a
        assert r["n"] == len(b) and r["df"] == len(b) - 1 and r["dropped"] == 0
        if np.all(d == d[0]):  # constant differences: scipy gives NaN or inf, we a defined answer
            assert r["t"] is None and r["p_value"] == (1.0 if d[0] == 0 else 0.0)
            continue
        assert r["mean_diff"] == pytest.approx(d.mean(), abs=1e-12)
        assert r["mean_a"] == pytest.approx(a.mean(), abs=1e-12)
        assert r["mean_b"] == pytest.approx(b.mean(), abs=1e-12)
        assert r["sd_diff"] == pytest.approx(d.std(ddof=1), abs=1e-12)
        assert r["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
        worst["t"] = max(worst["t"], _close(r["t"], want.statistic))
        worst["p_value"] = max(worst["p_value"], _close(r["p_value"], want.pvalue))
        worst["ci"] = max(worst["ci"], abs(r["ci_low"] - ci.low), abs(r["ci_high"] - ci.high))
    print("paired_ttest vs scipy.stats.ttest_rel, max difference:", worst)
    assert max(worst.values()) < TOL


def test_paired_ttest_equals_ranx(con: duckdb.DuckDBPyConnection) -> None:
    from ranx.statistical_tests import paired_student_t_test

    cases = _cases(2, 200)
    _load(con, cases)
    got = dict(con.execute("SELECT g, paired_ttest(b, a).p_value FROM pairs GROUP BY g").fetchall())
    for g, b, a in cases:
        assert _close(got[g], paired_student_t_test(a, b)[0]) < TOL


@pytest.mark.parametrize("conf", [0.5, 0.95, 0.999])
def test_welch_ttest_equals_scipy(con: duckdb.DuckDBPyConnection, conf: float) -> None:
    rng = np.random.default_rng(3)
    rows, cases = [], []
    for g in range(700):
        na, nb = int(rng.integers(2, 150)), int(rng.integers(2, 150))
        a = rng.beta(2, 3, na)
        b = np.clip(rng.beta(2, 3, nb) * rng.uniform(0.3, 1.5), 0, 1)
        cases.append((g, b, a))
        rows += [(g, v, False) for v in a] + [(g, v, True) for v in b]
    cols = [list(c) for c in zip(*rows, strict=True)]
    con.execute("CREATE TABLE arms AS SELECT unnest(?)::INT AS g, unnest(?)::DOUBLE AS v, "
                "unnest(?)::BOOLEAN AS is_b", cols)
    got = dict(con.execute(
        "SELECT g, welch_ttest(v, is_b, conf := ?) FROM arms GROUP BY g", [conf]).fetchall())
    worst = {"t": 0.0, "df": 0.0, "p_value": 0.0, "ci": 0.0}
    for g, b, a in cases:
        r = got[g]
        want = stats.ttest_ind(b, a, equal_var=False)
        ci = want.confidence_interval(conf)
        assert (r["n_a"], r["n_b"]) == (len(a), len(b))
        assert r["mean_diff"] == pytest.approx(b.mean() - a.mean(), abs=1e-12)
        worst["t"] = max(worst["t"], _close(r["t"], want.statistic))
        worst["df"] = max(worst["df"], _close(r["df"], want.df))
        worst["p_value"] = max(worst["p_value"], _close(r["p_value"], want.pvalue))
        worst["ci"] = max(worst["ci"], abs(r["ci_low"] - ci.low), abs(r["ci_high"] - ci.high))
    print(f"welch_ttest (conf {conf}) vs scipy.stats.ttest_ind(equal_var=False):", worst)
    assert max(worst.values()) < TOL


def test_t_distribution_far_tails_and_large_df(con: duckdb.DuckDBPyConnection) -> None:
    """The t CDF and quantile helpers over df from 1 to 1e7 and tails down to 1e-30."""
    dfs = [1, 1.3, 2, 2.5, 3, 7, 30, 101, 1e3, 1e4, 1e5, 1e6, 1e7]
    ts = [0.0, 0.01, 0.5, 1.0, 1.96, 3.0, 6.0, 12.0, 40.0]
    ps = [0.5000001, 0.6, 0.8, 0.95, 0.975, 0.995, 0.9999, 1 - 1e-9]
    cdf = con.execute("SELECT df, t, _ndcg_t_cdf(-t, df) FROM unnest(?) a(df), unnest(?) b(t)",
                      [dfs, ts]).fetchall()
    assert max(_close(v, stats.t.cdf(-t, df)) for df, t, v in cdf) < TOL
    q = con.execute("SELECT df, p, _ndcg_t_quantile(p, df) FROM unnest(?) a(df), unnest(?) b(p)",
                    [dfs, ps[1:]]).fetchall()
    assert max(_close(v, stats.t.ppf(p, df)) for df, p, v in q) < TOL
    # at p = 0.5 + 1e-7, scipy's own ppf is off by 4e-4 relative: check that P(T <= q) = p instead
    q0 = con.execute("SELECT df, _ndcg_t_cdf(_ndcg_t_quantile(?, df), df) FROM unnest(?) a(df)",
                     [ps[0], dfs]).fetchall()
    assert max(abs(v - ps[0]) for _, v in q0) < 1e-14


def test_normal_cdf(con: duckdb.DuckDBPyConnection) -> None:
    zs = np.concatenate([np.linspace(-30, 30, 3001), [0.0, 1e-12, -1e-12, 2.8284, -2.8285]])
    got = np.array([r[0] for r in con.execute(
        "SELECT _ndcg_norm_cdf(z) FROM unnest(?) WITH ORDINALITY t(z, o) ORDER BY o",
        [zs.tolist()]).fetchall()])
    want = stats.norm.cdf(zs)
    assert np.max(np.abs(got - want) / np.minimum(want, 1 - want).clip(1e-300)) < 1e-12


def _wilcoxon_by_signs(b: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    """scipy.stats.wilcoxon's statistic and p-value where it takes its permutation method (ties
    or zeros, n <= 13), by scipy.stats.permutation_test over every sign of the nonzero
    differences, as scipy.stats.wilcoxon does, but with the rank sum as a vectorized statistic:
    the same p-values (equal in the test below) in a hundredth of the time (scipy calls the
    statistic once per sign vector: 1.4 s a group at n = 12, 2.7 s at n = 13)."""
    d = b - a
    d = d[d != 0]
    ranks = stats.rankdata(np.abs(d))

    def rank_sum_of_positives(signed: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.sum(np.where(signed > 0, ranks, 0.0), axis=axis)

    result = stats.permutation_test((d,), rank_sum_of_positives, permutation_type="samples",
                                    vectorized=True, n_resamples=np.inf)
    r_plus = float(rank_sum_of_positives(d))
    return min(r_plus, float(ranks.sum()) - r_plus), float(result.pvalue)


def test_wilcoxon_equals_scipy(con: duckdb.DuckDBPyConnection) -> None:
    """Random groups of every size around the switches of method: n <= 13 exact whatever the
    ties, n <= 50 exact without ties or zeros, else the normal approximation (n = 14, 49-51, 80,
    300); a quarter rounded to 0.1 (ties and zero differences: the tied exact distribution, the
    tie-corrected variance, the zeros dropped); differences of either sign, so both tails.
    Oracle: scipy.stats.wilcoxon; for a tied or zero-holding group of n <= 13 (scipy's
    permutation method), _wilcoxon_by_signs, checked equal to scipy.stats.wilcoxon on the first
    such group of each size."""
    rng = np.random.default_rng(4)
    cases = []
    for g in range(1200):
        n = int(rng.choice([1, 2, 5, 9, 12, 13, 14, 20, 40, 49, 50, 51, 80, 300]))
        a = rng.beta(2, 3, n)
        b = np.clip(a + rng.normal(rng.normal(0, 0.05), 0.2, n), 0, 1)
        if g % 4 == 0:  # ties and zero differences
            a, b = np.round(a, 1), np.round(b, 1)
        cases.append((g, b, a))
    _load(con, cases)
    got = dict(con.execute("SELECT g, wilcoxon_test(b, a) FROM pairs GROUP BY g").fetchall())
    worst, methods, by_signs = 0.0, {}, {}
    for g, b, a in cases:
        r = got[g]
        d = b - a
        nz = d[d != 0]
        distinct = len(nz) == len(d) and len(np.unique(np.abs(nz))) == len(nz)
        exact = len(d) <= 13 or (len(d) <= 50 and distinct)
        assert r["method"] == ("exact" if exact else "normal")
        assert (r["n"], r["zeros"]) == (len(d), len(d) - len(nz))
        methods[r["method"]] = methods.get(r["method"], 0) + 1
        if len(nz) == 0:  # scipy: NaN or 1; ours: defined
            assert (r["statistic"], r["p_value"]) == (0.0, 1.0)
            continue
        if len(d) <= 13 and not distinct and len(nz) > 1:  # (one: permutation_test refuses it)
            want = _wilcoxon_by_signs(b, a)
            by_signs[len(d)] = by_signs.get(len(d), 0) + 1
            if by_signs[len(d)] == 1:  # the oracle is scipy.stats.wilcoxon's permutation
                assert tuple(stats.wilcoxon(b, a)) == pytest.approx(want, abs=1e-15)
        else:
            want = tuple(stats.wilcoxon(b, a))
        assert r["statistic"] == pytest.approx(want[0], abs=1e-9)
        worst = max(worst, _close(r["p_value"], want[1]))
    print("wilcoxon_test vs scipy.stats.wilcoxon, max p difference:", worst, methods, by_signs)
    assert worst < TOL and min(methods.values()) > 200
    assert min(by_signs.get(n, 0) for n in (5, 9, 12, 13)) > 10


def test_sign_test_and_win_tie_loss(con: duckdb.DuckDBPyConnection) -> None:
    cases = _cases(5, 2000, max_n=400)
    cases += [(2000, np.full(7, 0.5), np.full(7, 0.5)), (2001, np.array([0.9]), np.array([0.1]))]
    rng = np.random.default_rng(6)  # large n: the binomial tail near its median
    for g in range(2002, 2010):
        a = rng.random(200_000)
        cases.append((g, a + rng.normal(0.0005 * (g - 2002), 0.1, a.size), a))
    _load(con, cases)
    got = {g: (s, w) for g, s, w in con.execute(
        "SELECT g, sign_test(b, a), win_tie_loss(b, a, eps := 0.05) FROM pairs GROUP BY g").fetchall()}
    worst = 0.0
    for g, b, a in cases:
        s, w = got[g]
        wins, losses = int(np.sum(b > a)), int(np.sum(b < a))
        assert (s["n"], s["wins"], s["losses"]) == (wins + losses, wins, losses)
        want = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        worst = max(worst, _close(s["p_value"], want))
        d = b - a
        assert (w["wins"], w["ties"], w["losses"]) == (
            int(np.sum(d > 0.05)), int(np.sum(np.abs(d) <= 0.05)), int(np.sum(-d > 0.05)))
    print("sign_test vs scipy.stats.binomtest, max p difference:", worst)
    assert worst < TOL


def test_degenerate_input(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""CREATE TABLE deg AS SELECT * FROM (VALUES
        ('empty', NULL, NULL), ('one', 0.5, 0.25), ('one', NULL, 0.3), ('zero', 0.5, 0.5),
        ('zero', 0.25, 0.25), ('zero', 0.0, 0.0), ('const', 0.75, 0.5), ('const', 0.5, 0.25),
        ('const', 0.25, 0.0)) t(g, b, a)""")
    rows = {g: (t, w, s, r, bs, wtl) for g, t, w, s, r, bs, wtl in con.execute("""
        SELECT g, paired_ttest(b, a), wilcoxon_test(b, a), sign_test(b, a),
               randomization_test(b, a, resamples := 100), bootstrap_ci(b, a, resamples := 50),
               win_tie_loss(b, a)
        FROM deg GROUP BY g""").fetchall()}
    t, w, s, r, bs, wtl = rows["empty"]
    assert (t["n"], t["t"], t["p_value"], t["ci_low"], t["dropped"]) == (0, None, None, None, 1)
    assert (w["p_value"], s["p_value"], r["p_value"], bs["ci_low"]) == (1.0, 1.0, None, None)
    assert (wtl["wins"], wtl["ties"], wtl["losses"], wtl["dropped"]) == (0, 0, 0, 1)
    t, w, s, r, bs, wtl = rows["one"]
    assert (t["n"], t["df"], t["p_value"], t["dropped"], t["mean_a"]) == (1, None, None, 1, 0.25)
    assert (r["p_value"], bs["ci_low"], bs["ci_high"]) == (1.0, 0.25, 0.25)
    t, w, s, r, bs, wtl = rows["zero"]
    assert (t["t"], t["p_value"], t["ci_low"], t["ci_high"], t["effect_size"]) == (
        None, 1.0, 0.0, 0.0, None)
    assert (w["p_value"], s["p_value"], r["p_value"], wtl["ties"]) == (1.0, 1.0, 1.0, 3)
    t, w, s, r, bs, wtl = rows["const"]
    assert (t["t"], t["p_value"], t["ci_low"], t["ci_high"]) == (None, 0.0, 0.25, 0.25)
    assert (bs["ci_low"], bs["ci_high"]) == (0.25, 0.25)
    welch = con.execute("""SELECT welch_ttest(v, is_b) FROM (VALUES (1.0, true), (1.0, true),
                           (2.0, false), (2.0, false), (NULL, true)) t(v, is_b)""").fetchone()[0]
    assert (welch["t"], welch["df"], welch["p_value"], welch["ci_low"], welch["dropped"]) == (
        None, None, 0.0, -1.0, 1)
    small = con.execute("SELECT welch_ttest(v, is_b) FROM (VALUES (1.0, true), (2.0, false), "
                        "(3.0, false)) t(v, is_b)").fetchone()[0]
    assert (small["t"], small["p_value"], small["mean_diff"]) == (None, None, -1.5)


@pytest.mark.parametrize("call, message", [
    ("paired_ttest(b, a, conf := 1.5)", "conf must be between 0 and 1"),
    ("welch_ttest(b, a > 0, conf := 0)", "conf must be between 0 and 1"),
    ("bootstrap_ci(b, a, conf := NULL)", "conf must be between 0 and 1"),
    ("randomization_test(b, a, resamples := 0)", "resamples must be a whole number"),
    ("bootstrap_ci(b, a, resamples := 2.5)", "resamples must be a whole number"),
    # settings that were accepted and changed the result: seed NULL gave p = 1.0 and a
    # one-point bootstrap interval; eps NULL counted nothing, eps -1 every pair a win and a loss
    ("randomization_test(b, a, seed := NULL)", "seed must be an integer or text, got NULL"),
    ("bootstrap_ci(b, a, seed := NULL)", "seed must be an integer or text, got NULL"),
    ("win_tie_loss(b, a, eps := NULL)", "eps must be a finite number >= 0, got NULL"),
    ("win_tie_loss(b, a, eps := -1)", "eps must be a finite number >= 0, got -1"),
    ("win_tie_loss(b, a, eps := 'nan'::DOUBLE)", "eps must be a finite number >= 0, got nan"),
    ("win_tie_loss(b, a, eps := 'inf'::DOUBLE)", "eps must be a finite number >= 0, got inf"),
])
def test_bad_arguments(con: duckdb.DuckDBPyConnection, call: str, message: str) -> None:
    with pytest.raises(duckdb.Error, match=message):
        con.execute(f"SELECT {call} FROM (VALUES (0.5, 0.25), (0.75, 0.5)) t(b, a)").fetchall()


# NaN or infinite per-query values: every test refuses them with one error naming the macro and
# the count (NULL is the way to leave a row out). They were counted as wins (sign_test,
# wilcoxon_test), as a win and a loss (win_tie_loss: 12 NaN + 10 losses gave 12 wins, 22 losses),
# or propagated as NaN (paired_ttest, randomization_test's mean, bootstrap_ci's interval).
NAN_CALLS = {
    "paired_ttest": "paired_ttest(b, a)",
    "wilcoxon_test": "wilcoxon_test(b, a)",
    "sign_test": "sign_test(b, a)",
    "win_tie_loss": "win_tie_loss(b, a)",
    "randomization_test": "randomization_test(b, a, resamples := 100)",
    "bootstrap_ci": "bootstrap_ci(b, a, resamples := 100)",
}


@pytest.mark.parametrize("macro", sorted(NAN_CALLS))
@pytest.mark.parametrize("side, bad", [("b", "'nan'::DOUBLE"), ("a", "'-inf'::DOUBLE")])
def test_nan_or_infinite_values_are_an_error(con: duckdb.DuckDBPyConnection, macro: str,
                                             bad: str, side: str) -> None:
    # 12 rows with a bad value, 10 losses, a NULL row (dropped, no error)
    con.execute(f"""CREATE TABLE p AS
        SELECT CASE WHEN i <= 12 AND '{side}' = 'b' THEN {bad} ELSE 0.25 END AS b,
               CASE WHEN i <= 12 AND '{side}' = 'a' THEN {bad} ELSE 0.5 END AS a
        FROM range(1, 23) r(i) UNION ALL SELECT NULL, 0.5""")
    message = (rf"duckdb_ndcg: {macro}: b and a must be finite numbers, got NaN or infinity in "
               r"12 rows \(NULL leaves a row out\)")
    with pytest.raises(duckdb.Error, match=message):
        con.execute(f"SELECT {NAN_CALLS[macro]} FROM p").fetchall()
    # the same data without the bad rows is fine, and scipy's own nan_policy='raise' refuses NaN
    con.execute(f"SELECT {NAN_CALLS[macro]} FROM p WHERE isfinite(b - a)").fetchall()
    with pytest.raises(ValueError, match="nan"):
        stats.ttest_rel([np.nan, 0.25, 0.3], [0.5, 0.5, 0.1], nan_policy="raise")


@pytest.mark.parametrize("bad", ["'nan'::DOUBLE", "'inf'::DOUBLE"])
def test_welch_nan_or_infinite_values_are_an_error(con: duckdb.DuckDBPyConnection,
                                                   bad: str) -> None:
    con.execute(f"""CREATE TABLE v AS SELECT * FROM (VALUES ({bad}, true), (0.5, true),
                    (0.25, false), (0.5, false), (NULL, false), ({bad}, NULL)) t(value, is_b)""")
    with pytest.raises(duckdb.Error, match=r"duckdb_ndcg: welch_ttest: value must be finite "
                       r"numbers, got NaN or infinity in 1 row \(NULL leaves a row out\)"):
        con.execute("SELECT welch_ttest(value, is_b) FROM v").fetchall()
    with pytest.raises(ValueError, match="nan"):
        stats.ttest_ind([np.nan, 0.5], [0.25, 0.5], equal_var=False, nan_policy="raise")


def _exact_moments(x: np.ndarray) -> tuple[Fraction, Fraction]:
    """The mean and sample variance of doubles, in exact rational arithmetic."""
    exact = [Fraction(v) for v in x]
    mean = sum(exact) / len(exact)
    return mean, sum((v - mean) ** 2 for v in exact) / (len(exact) - 1)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e12, -3e13])
def test_t_tests_exact_with_a_large_common_offset(con: duckdb.DuckDBPyConnection,
                                                  offset: float) -> None:
    """Values near 1e12 lost the p-value's 4th digit (avg and var_samp sum the offset: 3e-5
    relative error in the variance): both tests centre before summing. Oracle: the statistics
    in exact rational arithmetic on the same doubles, scipy.stats.t for the tail."""
    rng = np.random.default_rng(27)
    cases = []  # (a, b, b2) of each case; the draws in the order they always had
    for _ in range(4):
        n_a, n_b = int(rng.integers(20, 300)), int(rng.integers(20, 300))
        a = offset + rng.normal(0, 1, n_a)
        b = offset + rng.normal(0.2, rng.uniform(0.5, 2), n_b)
        # paired: B's values a + a difference near the offset too (d = b - a is then large)
        cases.append((a, b, a + offset / 7 + rng.normal(0.05, 0.3, n_a)))
    # one statement per test for the four cases (GROUP BY case): binding the macro is most of
    # the cost (8 statements took 6.2-6.8 s a test, the 2 take 1.8-2.3 s)
    welch = dict(con.execute(
        "SELECT c, welch_ttest(v, is_b) FROM (SELECT unnest(?) c, unnest(?) v, unnest(?) is_b) "
        "GROUP BY c",
        [[c for c, (a, b, _) in enumerate(cases) for _ in range(len(a) + len(b))],
         [v for a, b, _ in cases for v in (*a, *b)],
         [x for a, b, _ in cases for x in [False] * len(a) + [True] * len(b)]]).fetchall())
    paired = dict(con.execute(
        "SELECT c, paired_ttest(b, a) FROM (SELECT unnest(?) c, unnest(?) b, unnest(?) a) "
        "GROUP BY c",
        [[c for c, (a, _, _) in enumerate(cases) for _ in a],
         [v for _, _, b2 in cases for v in b2.tolist()],
         [v for a, _, _ in cases for v in a.tolist()]]).fetchall())
    for case, (a, b, b2) in enumerate(cases):
        n_a, n_b = len(a), len(b)
        got = welch[case]
        (ma, va), (mb, vb) = _exact_moments(a), _exact_moments(b)
        se2 = va / n_a + vb / n_b
        t = float((mb - ma) / Fraction(math.sqrt(se2)))
        df = float(se2 * se2 / ((va / n_a) ** 2 / (n_a - 1) + (vb / n_b) ** 2 / (n_b - 1)))
        want = 2 * stats.t.sf(abs(t), df)
        assert (got["n_a"], got["n_b"]) == (n_a, n_b), case
        assert got["mean_diff"] == pytest.approx(float(mb - ma), rel=1e-12), case
        assert got["t"] == pytest.approx(t, rel=1e-10) and got["df"] == pytest.approx(df, rel=1e-10)
        assert _close(got["p_value"], want) < TOL, (case, got["p_value"], want)
        got = paired[case]
        md, vd = _exact_moments(b2 - a)  # b2 - a: what SQL's b - a computes per row
        assert got["mean_diff"] == pytest.approx(float(md), rel=1e-15), case
        assert got["sd_diff"] == pytest.approx(math.sqrt(vd), rel=1e-12), case
        want = 2 * stats.t.sf(abs(float(md) / math.sqrt(float(vd) / n_a)), n_a - 1)
        assert _close(got["p_value"], want) < TOL, (case, got["p_value"], want)


def test_sign_test_at_four_million_pairs(con: duckdb.DuckDBPyConnection) -> None:
    """At n = 4e6 the binomial tail was off by 3e-9 (the factor x^a y^b / B(a, b) taken as the exp
    of a sum of terms near 1e6 that cancel), beyond the README's 1e-9; scipy.stats.binomtest is
    the oracle, to 1e-11 relative (3e-12 measured)."""
    n = 4_000_000
    shifts = [1, 10, 500, 3000, 8000]
    got = dict(con.execute(
        "SELECT s, sign_test(CASE WHEN i < ? / 2 - s THEN 1.0 ELSE 0.0 END, 0.5).p_value "
        "FROM range(?) r(i), unnest(?) u(s) GROUP BY s", [n, n, shifts]).fetchall())
    for s in shifts:
        want = stats.binomtest(n // 2 - s, n).pvalue
        assert got[s] == pytest.approx(want, rel=1e-11, abs=0), (s, got[s], want)
