"""p_adjust against statsmodels.stats.multitest.multipletests, on thousands of random families."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

METHODS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}
# statsmodels' holm runs a full gc.collect() per call: see the gc_frozen fixture (conftest.py)
pytestmark = pytest.mark.usefixtures("gc_frozen")


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_equals_statsmodels(con: duckdb.DuckDBPyConnection, method: str, alpha: float) -> None:
    rng = np.random.default_rng(11)
    rows = []
    # statsmodels' holm takes 0.1 s a family: 200 families (about 4,000 p-values) for it
    for fam in range(200 if method == "holm" else 1500):
        m = int(rng.integers(1, 40))
        p = np.concatenate([rng.uniform(0, 1, m // 2), rng.beta(0.3, 4, m - m // 2)])
        if fam % 7 == 0:
            p = np.round(p, 2)  # tied p-values, zeros and ones
        rows += [(fam // 10, fam % 10, i, float(x)) for i, x in enumerate(p)]
    cols = [list(c) for c in zip(*rows, strict=True)]
    con.execute("CREATE TABLE res AS SELECT unnest(?)::INT AS slice, unnest(?)::INT AS k, "
                "unnest(?)::INT AS i, unnest(?)::DOUBLE AS p_value", cols)
    got = {(s, k, i): (adj, rej) for s, k, i, adj, rej in con.execute(
        "SELECT slice, k, i, p_adjusted, reject FROM p_adjust('res', method := ?, "
        "by := ['slice', 'k'], alpha := ?)", [method, alpha]).fetchall()}
    assert len(got) == len(rows)
    worst = 0.0
    families: dict[tuple[int, int], list[tuple[int, float]]] = {}
    for s, k, i, p in rows:
        families.setdefault((s, k), []).append((i, p))
    for (s, k), members in families.items():
        reject, adjusted, _, _ = multipletests([p for _, p in members], alpha, METHODS[method])
        for (i, _), want_adj, want_rej in zip(members, adjusted, reject, strict=True):
            adj, rej = got[(s, k, i)]
            worst = max(worst, abs(adj - want_adj))
            assert rej == bool(want_rej), (s, k, i)
    print(f"p_adjust {method} alpha {alpha} vs statsmodels multipletests: max difference {worst}")
    assert worst < 1e-12


def test_one_family_nulls_and_columns_kept(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""CREATE TABLE res AS SELECT * FROM (VALUES ('web', 0.01, 'x'), ('app', 0.04, 'y'),
                   ('tv', NULL, 'z'), ('car', 0.03, 'w')) t(device, "p value", note)""")
    got = con.execute("""SELECT * FROM p_adjust('res', p_col := 'p value') ORDER BY device""").fetchall()
    assert [c[0] for c in con.execute("DESCRIBE SELECT * FROM p_adjust('res', p_col := 'p value')")
            .fetchall()] == ["device", "p value", "note", "p_adjusted", "reject"]
    want = dict(zip(["web", "app", "car"], multipletests([0.01, 0.04, 0.03], 0.05, "holm")[1]))
    for device, _, _, adj, rej in got:
        if device == "tv":
            assert (adj, rej) == (None, None)
        else:
            assert adj == pytest.approx(want[device], abs=1e-15)


@pytest.mark.parametrize("args, message", [
    ("method := 'fdr'", "method must be 'holm', 'bonferroni' or 'bh'"),
    ("alpha := 0", "alpha must be in"),
    ("by := ['nope']", "has no column nope"),
])
def test_bad_arguments(con: duckdb.DuckDBPyConnection, args: str, message: str) -> None:
    con.execute("CREATE TABLE res AS SELECT 0.5 AS p_value, 1 AS k")
    with pytest.raises(duckdb.Error, match=message):
        con.execute(f"SELECT * FROM p_adjust('res', {args})").fetchall()


def test_p_value_out_of_range(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE res AS SELECT * FROM (VALUES (0.5), (1.5)) t(p_value)")
    with pytest.raises(duckdb.Error, match="p_value must be between 0 and 1, got 1.5"):
        con.execute("SELECT * FROM p_adjust('res')").fetchall()


@pytest.mark.parametrize("method", list(METHODS))
def test_a_corrected_table_corrected_again_has_no_suffixed_columns(
    con: duckdb.DuckDBPyConnection, method: str
) -> None:
    """compare_summary's result (it has p_adjusted and reject) corrected again, by k or with another
    method: the new p_adjusted and reject replace the old ones, no p_adjusted_1 / reject_1."""
    con.execute("""CREATE TABLE res AS SELECT * FROM (VALUES (5, 'web', 0.01, 0.5, false),
                   (5, 'app', 0.04, 0.5, false), (10, 'web', 0.03, 0.5, false),
                   (10, 'app', 0.002, 0.5, true)) t(k, device, p_value, p_adjusted, reject)""")
    out = con.execute("SELECT * FROM p_adjust('res', method := ?, by := ['k']) ORDER BY k, device",
                      [method])
    assert [c[0] for c in out.description] == ["k", "device", "p_value", "p_adjusted", "reject"]
    got = out.fetchall()
    for k, ps in ((5, [0.04, 0.01]), (10, [0.002, 0.03])):  # app, web
        reject, adjusted, _, _ = multipletests(ps, 0.05, METHODS[method])
        rows = [row for row in got if row[0] == k]
        assert [r[3] for r in rows] == pytest.approx(list(adjusted), abs=1e-15)
        assert [r[4] for r in rows] == [bool(x) for x in reject]


@pytest.mark.parametrize(
    "column", ["_p", "_m", "_j", "_fam", "_fam_cols", "_holm", "_holm_keep", "_bh", "_bh_reject",
               "_row"]
)
def test_columns_named_like_the_working_columns(
    con: duckdb.DuckDBPyConnection, column: str
) -> None:
    """A table column named like one of the macro's working columns is carried as it is and does
    not change the correction (a column _m of 100s gave p_adjusted 1.0 for every row)."""
    con.execute(f"""CREATE TABLE res AS SELECT * FROM (VALUES ('a', 0.01, 100), ('b', 0.04, 200),
                   ('c', 0.03, 300)) t(name, p_value, "{column}")""")
    for method, statsmodels_name in METHODS.items():
        out = con.execute("SELECT * FROM p_adjust('res', method := ?) ORDER BY name", [method])
        names = [c[0] for c in out.description]
        assert names == ["name", "p_value", column, "p_adjusted", "reject"]
        got = out.fetchall()
        reject, adjusted, _, _ = multipletests([0.01, 0.04, 0.03], 0.05, statsmodels_name)
        assert [r[2] for r in got] == [100, 200, 300]
        assert [r[3] for r in got] == pytest.approx(list(adjusted), abs=1e-15)
        assert [r[4] for r in got] == [bool(x) for x in reject]
