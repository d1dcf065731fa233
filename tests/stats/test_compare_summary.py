"""compare_rankers' query sets, compare_summary and ndcg_summary's interval, against scipy."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from duckdb_ndcg import demo


@pytest.fixture
def demo_con(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    demo.generate(con, queries=400)
    for r in ("A", "B"):
        # B misses one query in 20, A one in 30: the query sets differ
        drop = 20 if r == "B" else 30
        con.execute(f"""CREATE VIEW r{r} AS SELECT * EXCLUDE (ranker) FROM demo_rankings
                        WHERE ranker = '{r}' AND hash(query_id || '{r}') % {drop} <> 0""")
    return con


def _per_query(con: duckdb.DuckDBPyConnection, ranker: str, k: int) -> dict[tuple[str, str], float]:
    return {(q, d): v for q, d, v in con.execute(
        f"SELECT query_id, device, ndcg FROM ndcg_report('r{ranker}', 'demo_events', k := ?, "
        "slice_by := ['device'])", [k]).fetchall()}


@pytest.mark.parametrize("query_set", ["both", "either", "a", "b"])
def test_query_sets(demo_con: duckdb.DuckDBPyConnection, query_set: str) -> None:
    a, b = _per_query(demo_con, "A", 5), _per_query(demo_con, "B", 5)
    keys = {"both": a.keys() & b.keys(), "either": a.keys() | b.keys(), "a": set(a),
            "b": set(b)}[query_set]
    rows = demo_con.execute(
        "SELECT query_id, device, ndcg_a, ndcg_b, filled, queries, queries_filled, queries_dropped "
        "FROM compare_rankers('rA', 'rB', 'demo_events', k := 5, slice_by := ['device'], "
        "query_set := ?)", [query_set]).fetchall()
    assert {(q, d) for q, d, *_ in rows} == keys
    for q, d, na, nb, filled, queries, n_filled, n_dropped in rows:
        assert (na, nb) == (a.get((q, d), 0.0), b.get((q, d), 0.0))
        assert filled == ("a" if (q, d) not in a else "b" if (q, d) not in b else None)
        in_slice = [x for x in a.keys() | b.keys() if x[1] == d]
        assert queries == sum(x in keys for x in in_slice)
        assert n_filled == sum(x in keys and not (x in a and x in b) for x in in_slice)
        assert n_dropped == sum(x not in keys for x in in_slice)
    assert any(r[4] is not None for r in rows) == (query_set != "both")  # some were filled


def test_missing_error_and_bad_values(demo_con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=r"was shown by ranker [AB] only \(query_set := 'either'"):
        demo_con.execute("SELECT * FROM compare_rankers('rA', 'rB', 'demo_events', "
                         "query_set := 'either', missing := 'error')").fetchall()
    # the query set 'both' has nothing to fill: missing := 'error' is no error
    demo_con.execute("SELECT * FROM compare_rankers('rA', 'rB', 'demo_events', "
                     "missing := 'error')").fetchall()
    for args, message in [("query_set := 'all'", "query_set must be"),
                          ("missing := 'drop'", "missing must be 'zero' or 'error'")]:
        with pytest.raises(duckdb.Error, match=message):
            demo_con.execute(f"SELECT * FROM compare_rankers('rA', 'rB', 'demo_events', {args})"
                             ).fetchall()
    with pytest.raises(duckdb.Error, match="test must be 't', 'wilcoxon', 'sign' or"):
        demo_con.execute("SELECT * FROM compare_summary('rA', 'rB', 'demo_events', test := 'z')"
                         ).fetchall()


# the older DuckDBs bind and run the macro once (holm); the corrections themselves are p_adjust's
@pytest.mark.parametrize("correction, method", [
    pytest.param("holm", "holm", marks=pytest.mark.versions), ("bh", "fdr_bh"),
    ("bonferroni", "bonferroni"), ("none", None)])
def test_compare_summary_equals_scipy(demo_con: duckdb.DuckDBPyConnection, correction: str,
                                      method: str | None) -> None:
    got = demo_con.execute(
        "SELECT * FROM compare_summary('rA', 'rB', 'demo_events', k := [3, 10], "
        "slice_by := ['device'], query_set := 'either', conf := 0.9, correction := ?)",
        [correction]).df()
    assert list(got.columns) == [
        "device", "k", "queries", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "p_value",
        "p_adjusted", "reject", "test", "correction", "wins", "ties", "losses", "queries_filled",
        "queries_dropped", "judged_a", "judged_b"]
    assert len(got) == 6
    for row in got.itertuples():
        a, b = _per_query(demo_con, "A", row.k), _per_query(demo_con, "B", row.k)
        keys = sorted(x for x in a.keys() | b.keys() if x[1] == row.device)
        va = np.array([a.get(x, 0.0) for x in keys])
        vb = np.array([b.get(x, 0.0) for x in keys])
        want = stats.ttest_rel(vb, va)
        ci = want.confidence_interval(0.9)
        assert row.queries == len(keys)
        assert (row.mean_a, row.mean_b, row.mean_diff) == pytest.approx(
            (va.mean(), vb.mean(), (vb - va).mean()), abs=1e-12)
        assert (row.ci_low, row.ci_high, row.p_value) == pytest.approx(
            (ci.low, ci.high, want.pvalue), abs=1e-9)
        assert (row.wins, row.ties, row.losses) == (
            np.sum(vb > va), np.sum(vb == va), np.sum(vb < va))
        assert row.queries_filled == sum(not (x in a and x in b) for x in keys)
        assert (row.test, row.correction) == ("t", correction)
    if method is None:
        assert list(got.p_adjusted) == list(got.p_value)
    else:
        reject, adjusted, _, _ = multipletests(got.p_value, 0.05, method)
        assert list(got.p_adjusted) == pytest.approx(list(adjusted), abs=1e-12)
        assert list(got.reject) == list(reject)


@pytest.mark.parametrize("test, macro", [("wilcoxon", "wilcoxon_test(ndcg_b, ndcg_a)"),
                                         ("sign", "sign_test(ndcg_b, ndcg_a)"),
                                         ("randomization",
                                          "randomization_test(ndcg_b, ndcg_a, resamples := 500)")])
def test_compare_summary_other_tests(demo_con: duckdb.DuckDBPyConnection, test: str,
                                     macro: str) -> None:
    got = demo_con.execute(
        "SELECT device, p_value FROM compare_summary('rA', 'rB', 'demo_events', k := 5, "
        "slice_by := ['device'], test := ?, resamples := 500) ORDER BY device", [test]).fetchall()
    want = demo_con.execute(
        f"SELECT device, {macro}.p_value FROM compare_rankers('rA', 'rB', 'demo_events', k := 5, "
        "slice_by := ['device']) GROUP BY device ORDER BY device").fetchall()
    assert got == want


def test_ndcg_summary_interval(con: duckdb.DuckDBPyConnection) -> None:
    demo.generate(con, queries=300)
    got = con.execute("SELECT ranker, k, mean_ndcg, ci_low, ci_high FROM ndcg_summary("
                      "'demo_rankings', 'demo_events', k := [1, 10], slice_by := ['ranker'], "
                      "conf := 0.99)").fetchall()
    for ranker, k, mean, low, high in got:
        v = np.array([r[0] for r in con.execute(
            "SELECT ndcg FROM ndcg_report('demo_rankings', 'demo_events', k := ?, "
            "slice_by := ['ranker']) WHERE ranker = ?", [k, ranker]).fetchall()])
        ci = stats.ttest_1samp(v, 0).confidence_interval(0.99)
        assert (mean, low, high) == pytest.approx((v.mean(), ci.low, ci.high), abs=1e-9)


@pytest.mark.versions
def test_ab_summary_equals_scipy_welch(con: duckdb.DuckDBPyConnection) -> None:
    demo.generate(con, queries=600)
    # an online test: each query served by one arm; a third arm C copies B's rankings
    con.execute("""CREATE VIEW online AS
        SELECT * REPLACE (CASE WHEN ranker = 'B' AND hash(query_id) % 3 = 1 THEN 'C'
                               ELSE ranker END AS ranker)
        FROM demo_rankings WHERE (hash(query_id) % 3 = 0) = (ranker = 'A')""")
    got = con.execute("SELECT * FROM ab_summary('online', 'demo_events', 'ranker', k := [3, 10], "
                      "baseline := 'A', slice_by := ['device'], conf := 0.9)").df()
    assert list(got.columns) == [
        "device", "k", "arm", "baseline", "queries_a", "queries_b", "mean_a", "mean_b",
        "mean_diff", "ci_low", "ci_high", "p_value", "p_adjusted", "reject", "test", "correction"]
    assert len(got) == 12  # 3 devices x 2 cutoffs x arms B and C
    # the per-query values, from one report (a report per row binds the macro 24 times: 20 s on 1.4)
    per_query = con.execute("SELECT device, ranker, k, ndcg FROM ndcg_report('online', "
                            "'demo_events', k := [3, 10], slice_by := ['device', 'ranker'])").df()
    for row in got.itertuples():
        def values(arm: str, row=row) -> np.ndarray:
            return per_query.query("k == @row.k and device == @row.device and ranker == @arm"
                                   ).ndcg.to_numpy()
        a, b = values("A"), values(row.arm)
        want = stats.ttest_ind(b, a, equal_var=False)
        ci = want.confidence_interval(0.9)
        assert (row.queries_a, row.queries_b) == (len(a), len(b))
        assert (row.mean_diff, row.ci_low, row.ci_high, row.p_value) == pytest.approx(
            (b.mean() - a.mean(), ci.low, ci.high, want.pvalue), abs=1e-9)
    assert list(got.p_adjusted) == pytest.approx(
        list(multipletests(got.p_value, 0.05, "holm")[1]), abs=1e-12)


@pytest.mark.parametrize("baseline, message", [
    ("NULL", "ab_summary needs baseline := <the control arm's value of ranker>"),
    ("'Z'", "no row of online has ranker = Z"),
])
def test_ab_summary_baseline_errors(con: duckdb.DuckDBPyConnection, baseline: str,
                                    message: str) -> None:
    demo.generate(con, queries=50)
    con.execute("CREATE VIEW online AS SELECT * FROM demo_rankings")
    with pytest.raises(duckdb.Error, match=message):
        con.execute(f"SELECT * FROM ab_summary('online', 'demo_events', 'ranker', "
                    f"baseline := {baseline})").fetchall()


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization"])
def test_compare_summary_refuses_nan_scores(demo_con: duckdb.DuckDBPyConnection, test: str) -> None:
    """empty_ideal := 'nan' gives queries without a relevant item NaN: the tests counted them as
    wins (sign, wilcoxon) or failed on a NaN p-value. An error naming the way out instead; NULL
    leaves those queries out of every test, as scipy's nan_policy='omit' leaves NaN out."""
    with pytest.raises(duckdb.Error, match=r"duckdb_ndcg: the NDCG@5 of query \{.*\} is NaN or "
                       r"infinite \(empty_ideal := nan\): the tests need a number per query; "
                       r"empty_ideal := NULL leaves the queries with no relevant item out"):
        demo_con.execute("SELECT * FROM compare_summary('rA', 'rB', 'demo_events', k := 5, "
                         "empty_ideal := 'nan', test := ?, resamples := 50)", [test]).fetchall()
    got = demo_con.execute(
        "SELECT queries, wins, ties, losses, p_value FROM compare_summary('rA', 'rB', "
        "'demo_events', k := 5, empty_ideal := NULL, test := ?, resamples := 50)", [test]
    ).fetchall()[0]
    a, b = _per_query(demo_con, "A", 5), _per_query(demo_con, "B", 5)
    no_relevant = {q for q, in demo_con.execute(
        "SELECT query_id FROM ndcg_report('rA', 'demo_events', k := 5, empty_ideal := NULL) "
        "WHERE ndcg IS NULL").fetchall()}
    keys = [x for x in a.keys() & b.keys() if x[0] not in no_relevant]
    va, vb = np.array([a[x] for x in keys]), np.array([b[x] for x in keys])
    assert got[:4] == (len(keys), np.sum(vb > va), np.sum(vb == va), np.sum(vb < va))
    if test == "sign":
        assert got[4] == pytest.approx(
            stats.binomtest(int(np.sum(vb > va)), int(np.sum(vb != va))).pvalue, abs=1e-12)
    if test == "t":
        nan_a = np.array([a[x] if x[0] not in no_relevant else np.nan for x in a.keys() & b.keys()])
        nan_b = np.array([b[x] if x[0] not in no_relevant else np.nan for x in a.keys() & b.keys()])
        omit = stats.ttest_rel(nan_b, nan_a, nan_policy="omit").pvalue
        assert got[4] == pytest.approx(omit, abs=1e-9)


def test_ab_summary_refuses_nan_scores(con: duckdb.DuckDBPyConnection) -> None:
    demo.generate(con, queries=100)
    with pytest.raises(duckdb.Error, match=r"the NDCG@10 of query \{.*\} is NaN or infinite"):
        con.execute("SELECT * FROM ab_summary('demo_rankings', 'demo_events', 'ranker', "
                    "baseline := 'A', empty_ideal := 'nan')").fetchall()


@pytest.mark.parametrize("setting, message", [
    ("seed := NULL", "seed must be an integer or text, got NULL"),
    ("eps := NULL", "eps must be a finite number >= 0, got NULL"),
    ("eps := -1", "eps must be a finite number >= 0, got -1"),
])
def test_compare_summary_null_or_bad_settings(con: duckdb.DuckDBPyConnection, setting: str,
                                              message: str) -> None:
    demo.generate(con, queries=30)
    con.execute("CREATE VIEW rA AS SELECT * FROM demo_rankings WHERE ranker = 'A'")
    with pytest.raises(duckdb.Error, match=message):
        con.execute(f"SELECT * FROM compare_summary('rA', 'rA', 'demo_events', "
                    f"test := 'randomization', resamples := 20, {setting})").fetchall()
