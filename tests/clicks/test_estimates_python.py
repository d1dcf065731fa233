"""The Python faces of the off-policy estimates (duckdb_ndcg.ips_estimate, slate_estimate,
ips_ndcg): on files and data frames as a user passes them, against obp 0.5.7's numbers (the
fixtures of test_ips_estimate.py and test_slate_estimate.py) and the macros' own warnings."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pytest
from clicks_data import FIXTURES, read_csv

import duckdb_ndcg


def test_ips_estimate_from_files_equals_obp(tmp_path: Path) -> None:
    oracle = {r["position"] or None: r for r in read_csv("obp_estimates.csv")}
    got = duckdb_ndcg.ips_estimate(
        str(FIXTURES / "obd_random_all.csv"), str(FIXTURES / "obd_bts_policy.csv"), "snips"
    ).fetchall()
    assert [row[0] for row in got] == [1, 2, 3, None]
    for row in got:
        want = oracle[None if row[0] is None else str(row[0])]
        assert row[4] == pytest.approx(float(want["snipw"]), abs=1e-12)
    # the README value of obp: IPW over the logged click rate
    ips = duckdb_ndcg.ips_estimate(
        str(FIXTURES / "obd_random_all.csv"), str(FIXTURES / "obd_bts_policy.csv")
    ).fetchall()
    assert ips[-1][7] == pytest.approx(1.198126315789, abs=1e-12)


def test_ips_estimate_checks_its_options_in_the_macros_words() -> None:
    with pytest.raises(ValueError, match="estimator must be 'ips', 'snips' or 'clipped'"):
        duckdb_ndcg.ips_estimate("logs", "policy", "ipw")


def test_slate_estimate_of_a_data_frame_equals_obp() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(FIXTURES / "obp_slate_log.csv")
    oracle = {r["position"] or None: r for r in read_csv("obp_slate_estimates.csv")}
    got = duckdb_ndcg.slate_estimate(
        frame, "rips", propensity_col="pscore_cascade",
        evaluation_col="evaluation_pscore_cascade",
    ).fetchall()  # fmt: skip
    assert [row[0] for row in got] == [1, 2, 3, None]
    for row in got:
        want = oracle[None if row[0] is None else str(row[0])]
        assert row[5] == pytest.approx(float(want["rips"]), abs=1e-12), row[0]


def test_ips_ndcg_takes_position_bias_as_its_propensity(tmp_path: Path) -> None:
    """ips_ndcg with position_bias's relation (another connection's) equals the macro given the
    same propensities as a table; a query the new ranking lacks is a UserWarning."""
    log = str(FIXTURES / "log.csv")
    bias = duckdb_ndcg.position_bias(log, "ctr_ratio")
    table = bias.select("position, propensity").fetchall()
    with (FIXTURES / "log.csv").open(encoding="utf-8") as text:
        rows = list(csv.DictReader(text))
    queries = sorted({r["query_id"] for r in rows})
    run = tmp_path / "run.csv"
    ranked: dict[str, list[str]] = {}  # each query's items in the order first logged
    for r in rows:
        items = ranked.setdefault(r["query_id"], [])
        if r["item_id"] not in items:
            items.append(r["item_id"])
    with run.open("w", encoding="utf-8") as out:  # all but the first query
        out.write("query_id,item_id,rnk\n")
        for query, items in ranked.items():
            if query != queries[0]:
                out.writelines(f"{query},{item},{i + 1}\n" for i, item in enumerate(items))
    with pytest.warns(UserWarning, match="ips_ndcg: "):
        got = duckdb_ndcg.ips_ndcg(log, str(run), 5, propensity=bias).fetchall()
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute("CREATE TABLE p (position BIGINT, propensity DOUBLE)")
        con.executemany("INSERT INTO p VALUES (?, ?)", table)
        want = con.execute(
            f"SELECT * FROM ips_ndcg('{log}', '{run}', k := 5, propensity := 'p')"
        ).fetchall()
    assert len(got) == len(queries) + 1 and len(want) == len(got)
    for mine, macro in zip(sorted(got, key=str), sorted(want, key=str), strict=True):
        assert mine[:3] == macro[:3] and mine[6] == macro[6]  # query, counts, warning
        assert mine[3:6] == pytest.approx(macro[3:6], rel=1e-12)  # sums in another order
    assert any(r[0] == queries[0] and r[-1] for r in got)  # the unranked query's warning
