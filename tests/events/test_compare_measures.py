"""compare_measures: compare_summary's paired tests on measure strings. Oracles: per-query values
from ir_measures 0.4.3 (pytrec_eval) on qrels and runs built here by hand, scipy's paired t-test,
statsmodels' Holm correction, and hand numbers."""

from __future__ import annotations

import csv
import math
import random
import re

import duckdb
import ir_measures
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import duckdb_ndcg
from duckdb_ndcg import cli

GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}
MEASURES = "nDCG@10 RR AP P@5"


def _generated(seed: int = 11) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """80 queries; ranker B shows the same items as A, shuffled; 1 query in 8 has no event."""
    rnd = random.Random(seed)
    a, b, events = [], [], []
    for q in range(80):
        query = f"q{q:02d}"
        items = rnd.sample(range(30), rnd.randint(2, 12))
        shuffled = rnd.sample(items, len(items))
        device = rnd.choice(["web", "app"])
        a += [(query, f"i{i}", p + 1, device) for p, i in enumerate(items)]
        b += [(query, f"i{i}", p + 1, device) for p, i in enumerate(shuffled)]
        if q % 8 == 7:
            continue
        for i in rnd.sample(range(30), rnd.randint(1, 8)):
            events.append((query, f"i{i}", rnd.choice(list(GRADES))))
    return a, b, events


def _tables(con, a, b, events) -> None:
    for name, rows in (("ranker_a", a), ("ranker_b", b)):
        con.execute(f"CREATE TABLE {name} (query_id VARCHAR, item_id VARCHAR, "
                    "position INTEGER, device VARCHAR)")
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?)", rows)
    con.execute("CREATE TABLE ev (query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO ev VALUES (?, ?, ?)", events)


def _per_query(shown, events) -> dict[tuple[str, str], float]:
    """ir_measures' value per (query, measure); a query without events scores 0 on these four
    (nothing relevant), as every query of the rankings counts here."""
    qrels: dict[str, dict[str, int]] = {}
    for q, item, event in events:
        qrels.setdefault(q, {})[item] = max(qrels.get(q, {}).get(item, 0), GRADES[event])
    run: dict[str, dict[str, float]] = {}
    for q, item, position, _ in shown:
        run.setdefault(q, {})[item] = -float(position)
    parsed = [ir_measures.parse_measure(m) for m in MEASURES.split()]
    values = {(q, m): 0.0 for q in run for m in MEASURES.split()}
    for r in ir_measures.pytrec_eval.iter_calc(parsed, qrels, run):
        values[r.query_id, repr(r.measure)] = r.value
    return values


def test_paired_t_and_holm_equal_scipy_and_statsmodels() -> None:
    a, b, events = _generated()
    con = duckdb_ndcg.register(duckdb.connect())
    _tables(con, a, b, events)
    rows = con.sql(f"SELECT measure, queries, mean_a, mean_b, mean_diff, ci_low, ci_high, "
                   f"p_value, p_adjusted, wins, ties, losses, queries_dropped FROM "
                   f"compare_measures('ranker_a', 'ranker_b', 'ev', '{MEASURES}')").fetchall()
    assert [r[0] for r in rows] == MEASURES.split()  # the order given
    va, vb = _per_query(a, events), _per_query(b, events)
    queries = sorted({q for q, _ in va})
    p_values = []
    for measure, n, mean_a, mean_b, diff, low, high, p, _, wins, ties, losses, dropped in rows:
        xa = np.array([va[q, measure] for q in queries])
        xb = np.array([vb[q, measure] for q in queries])
        d = xb - xa
        assert (n, dropped) == (80, 0)
        assert (mean_a, mean_b, diff) == pytest.approx((xa.mean(), xb.mean(), d.mean()), abs=1e-12)
        test = stats.ttest_rel(xb, xa)
        assert p == pytest.approx(test.pvalue, rel=1e-9)
        half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)
        assert (low, high) == pytest.approx((d.mean() - half, d.mean() + half), abs=1e-12)
        assert (wins, ties, losses) == (int((d > 0).sum()), int((d == 0).sum()),
                                        int((d < 0).sum()))
        p_values.append(test.pvalue)
    holm = multipletests(p_values, method="holm")[1]
    assert [r[8] for r in rows] == pytest.approx(list(holm), rel=1e-9)
    # nDCG@10's comparison is compare_summary's at k = 10
    summary = con.sql("SELECT mean_a, mean_b, p_value FROM compare_summary('ranker_a', "
                      "'ranker_b', 'ev', k := 10)").fetchall()[0]
    assert summary == pytest.approx(rows[0][2:4] + (rows[0][7],), abs=1e-12)


@pytest.mark.versions
def test_by_hand_with_slices_and_dropped_queries() -> None:
    """A shows q1 (b at 2), q2 (y at 1), q3 (y at 1); B shows q1 (b at 1), q2 (y at 2), q4. RR:
    A 1/2, 1, 1; B 1, 1/2 on q1, q2; q3 (A only) and q4 (B only) are dropped. Slices: web q1,
    ios q2, q3 and q4: 1 shared of 3, an error."""
    con = duckdb_ndcg.register(duckdb.connect())
    con.execute("""
        CREATE TABLE a AS FROM (VALUES ('q1', 'a', 1, 'web'), ('q1', 'b', 2, 'web'),
            ('q2', 'y', 1, 'ios'), ('q3', 'y', 1, 'ios')) t(query_id, item_id, position, device);
        CREATE TABLE b AS FROM (VALUES ('q1', 'b', 1, 'web'), ('q2', 'x', 1, 'ios'),
            ('q2', 'y', 2, 'ios'), ('q4', 'z', 1, 'ios')) t(query_id, item_id, position, device);
        CREATE TABLE ev AS FROM (VALUES ('q1', 'b', 'click'), ('q2', 'y', 'click'),
            ('q3', 'y', 'click'), ('q4', 'z', 'click')) t(query_id, item_id, event_type)""")
    rows = con.sql("SELECT queries, mean_a, mean_b, wins, losses, queries_dropped FROM "
                   "compare_measures('a', 'b', 'ev', 'RR', correction := 'none')").fetchall()
    assert rows == [(2, 0.75, 0.75, 1, 1, 2)]
    with pytest.raises(duckdb.Error, match="rankers A and B both showed 1 of the 3 queries of "
                       'slice {"device":"ios"} at RR'):
        con.sql("FROM compare_measures('a', 'b', 'ev', 'RR', slice_by := 'device')").fetchall()


def test_compare_from_python() -> None:
    """compare(measures=...) is compare_measures; settings measures do not read are errors."""
    a, b, events = _generated()
    con = duckdb_ndcg.register(duckdb.connect())
    _tables(con, a, b, events)
    rel = duckdb_ndcg.compare("ranker_a", "ranker_b", "ev", con=con, measures="RR nDCG@10",
                              slice_by=["device"], correction="bh")
    got = rel.fetchall()
    direct = con.sql("FROM compare_measures('ranker_a', 'ranker_b', 'ev', 'RR nDCG@10', "
                     "slice_by := ['device'], correction := 'bh')").fetchall()
    # two runs of the same query: a mean's last bit follows the order of the threads' sums
    assert got == [tuple(pytest.approx(v, abs=1e-12) if isinstance(v, float) else v for v in row)
                   for row in direct]
    assert [r[:2] for r in got] == [("app", "RR"), ("app", "nDCG@10"), ("web", "RR"),
                                    ("web", "nDCG@10")]
    assert rel.columns[:3] == ["device", "measure", "queries"]
    for given, words in (({"k": [5]}, "k=[5] is not read"),
                         ({"query_set": "either"}, "query_set='either' is not read"),
                         ({"unpaired": True}, "unpaired=True is not read")):
        with pytest.raises(ValueError, match=re.escape(words)):
            duckdb_ndcg.compare("ranker_a", "ranker_b", "ev", con=con, measures="RR", **given)


def test_compare_from_the_cli(tmp_path, capsys) -> None:
    """duckdb-ndcg compare --measures: a verdict per measure, the table compare_measures'."""
    a, b, events = _generated()
    files = []
    for name, header, rows in (("a", ("query_id", "item_id", "position", "device"), a),
                               ("b", ("query_id", "item_id", "position", "device"), b),
                               ("ev", ("query_id", "item_id", "event_type"), events)):
        path = tmp_path / f"{name}.csv"
        with path.open("w", newline="") as f:
            csv.writer(f).writerows([header, *rows])
        files.append(str(path))
    out = tmp_path / "out.csv"
    assert cli.main(["compare", *files, "--measures", "RR nDCG@10", "--output", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["RR, 80 queries", "nDCG@10, 80 queries"]
    con = duckdb_ndcg.register(duckdb.connect())
    _tables(con, a, b, events)
    direct = con.sql("SELECT measure, mean_a, mean_b, p_adjusted FROM compare_measures("
                     "'ranker_a', 'ranker_b', 'ev', 'RR nDCG@10')").fetchall()
    with out.open() as f:
        rows = [(r["measure"], float(r["mean_a"]), float(r["mean_b"]), float(r["p_adjusted"]))
                for r in csv.DictReader(f)]
    assert [r[0] for r in rows] == [r[0] for r in direct] == ["RR", "nDCG@10"]
    assert [r[1:] for r in rows] == [pytest.approx(r[1:], abs=1e-12) for r in direct]
    for extra, words in ((["--k", "5"], "drop --k"), (["--unpaired"], "drop --unpaired"),
                         (["--gain", "exponential"], "--gain exponential is not read"),
                         (["--chart", str(tmp_path / "c.html")], "--chart draws NDCG@k")):
        assert cli.main(["compare", *files, "--measures", "RR", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
