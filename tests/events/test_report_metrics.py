"""ndcg_report(metrics := [...]): each family column against trec_eval and the aggregates.

The oracle builds the judged run of every (slice, query) ranking in pandas — the shown rows with
their event grade, the query's graded items not shown — and scores it with pytrec_eval (P_k,
recall_k, recip_rank, map_cut_k, Rprec, success_k) in trec_eval's order (score descending, item
id descending: the report's ties := 'key'), with ERR and RBP written out from their definitions
(no installed provider computes them: ir_measures sends ERR to gdeval and RBP to cwl_eval), and
with ranx's rbp where ranx is installed. With ties := 'average' each column equals the aggregate
of its name called by hand on that judged run.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import duckdb
import pandas as pd
import pytest
import pytrec_eval

import duckdb_ndcg
from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.evaluate import evaluate

GRADE = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}
FAMILY = [
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_rate",
    "reciprocal_rank",
    "average_precision",
    "r_precision",
    "err",
    "rbp",
]
CUTS = [1, 5, 10, None]
FIXED = ["k", "ndcg", "dcg", "idcg", "shown", "shown_relevant", "relevant"]


def _log(con: duckdb.DuckDBPyConnection, seed: int, tied: bool) -> None:
    """shown(query_id, item_id, position, score, device), events(query_id, item_id, event_type).

    Each (device, query) is its own ranking of distinct items; with ``tied`` scores repeat (three
    values), so tie groups straddle every cutoff. Events name shown and unshown items, some
    queries have none, some only impressions.
    """
    rng = random.Random(seed)
    shown, events = [], []
    for q in range(30):
        for device in rng.sample(["web", "app"], rng.randint(1, 2)):
            items = rng.sample(range(40), rng.randint(1, 14))
            for position, item in enumerate(items, start=1):
                score = float(rng.randint(1, 3)) if tied else 100.0 - position + rng.random() / 2
                shown.append((f"q{q:02d}", f"d{item:02d}", position, score, device))
        for item in rng.sample(range(40), rng.randint(0, 12)):
            for _ in range(rng.randint(1, 3)):
                events.append((f"q{q:02d}", f"d{item:02d}", rng.choice(list(GRADE))))
    con.execute(
        "CREATE TABLE shown(query_id VARCHAR, item_id VARCHAR, position INT, score DOUBLE, "
        "device VARCHAR)"
    )
    con.executemany("INSERT INTO shown VALUES (?, ?, ?, ?, ?)", shown)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    if events:
        con.executemany("INSERT INTO events VALUES (?, ?, ?)", events)


def _judged(con: duckdb.DuckDBPyConnection, rank: str) -> pd.DataFrame:
    """The judged run of every (device, query), in pandas: shown rows with their grade (0 without
    events) and rnk (position, or -score), then the graded items not shown with rnk NaN."""
    shown = con.execute("SELECT * FROM shown").df()
    events = con.execute("SELECT * FROM events").df()
    events["grade"] = events["event_type"].map(GRADE)
    grades = events.groupby(["query_id", "item_id"], as_index=False)["grade"].max()
    rows = shown.merge(grades, on=["query_id", "item_id"], how="left")
    rows["rel"] = rows["grade"].fillna(0).astype(float)
    rows["rnk"] = rows["position"].astype(float) if rank == "position" else -rows["score"]
    parts = [rows[["device", "query_id", "item_id", "rel", "rnk"]]]
    for (device, query), group in rows.groupby(["device", "query_id"]):
        graded = grades[(grades["query_id"] == query) & ~grades["item_id"].isin(group["item_id"])]
        parts.append(
            pd.DataFrame(
                {
                    "device": device,
                    "query_id": query,
                    "item_id": graded["item_id"],
                    "rel": graded["grade"].astype(float),
                    "rnk": math.nan,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _report(con: duckdb.DuckDBPyConnection, rank: str, ties: str, **options: object) -> dict:
    """{(device, query_id, k): {column: value}} of ndcg_report with every family metric."""
    by = "score_col := 'score'" if rank == "score" else "position_col := 'position'"
    extra = "".join(f", {name} := {value}" for name, value in options.items())
    rel = con.sql(
        f"SELECT * FROM ndcg_report('shown', 'events', k := [1, 5, 10, NULL], "
        f"slice_by := ['device'], {by}, ties := '{ties}', metrics := {FAMILY}{extra})"
    )
    assert rel.columns == ["query_id", "device", *FIXED, *FAMILY]
    return {
        (r["device"], r["query_id"], r["k"]): r
        for r in (dict(zip(rel.columns, row)) for row in rel.fetchall())
    }


def _in_trec_order(group: pd.DataFrame) -> list[tuple[str, float]]:
    """(item, grade) of the returned rows, score descending then item id descending."""
    returned = group[group["rnk"].notna()]
    ordered = sorted(zip(returned["item_id"], returned["rnk"], returned["rel"]),
                     key=lambda row: (-row[1], row[0]), reverse=True)
    return [(item, rel) for item, _, rel in ordered]


def _err(grades: list[float], max_grade: float) -> float:
    value, survive = 0.0, 1.0
    for position, grade in enumerate(grades, start=1):
        stop = (2.0**grade - 1.0) / 2.0**max_grade
        value += survive * stop / position
        survive *= 1.0 - stop
    return value


def _rbp(grades: list[float], threshold: float, p: float = 0.8) -> float:
    return (1 - p) * sum(p ** (q - 1) for q, g in enumerate(grades, start=1) if g >= threshold)


def _trec_oracle(judged: pd.DataFrame, threshold: int, max_grade: float) -> dict:
    """{(device, query, k): {metric: value}} from pytrec_eval and the written-out ERR and RBP."""
    expected = {}
    for (device, query), group in judged.groupby(["device", "query_id"]):
        qrels = {query: {i: int(r) for i, r in zip(group["item_id"], group["rel"])}}
        returned = group[group["rnk"].notna()]
        run = {query: {i: float(-r) for i, r in zip(returned["item_id"], returned["rnk"])}}
        ordered = _in_trec_order(group)
        relevant = sum(1 for r in group["rel"] if r >= threshold)
        full = pytrec_eval.RelevanceEvaluator(
            qrels,
            {"P.1,5,10", "recall.1,5,10", "map_cut.1,5,10", "success.1,5,10", "Rprec", "map",
             "recip_rank", "num_ret", "num_rel_ret"},
            relevance_level=threshold,
        ).evaluate(run)[query]
        for k in CUTS:
            cut = ordered if k is None else ordered[:k]
            head = {query: {i: run[query][i] for i, _ in cut}}
            rr = pytrec_eval.RelevanceEvaluator(
                qrels, {"recip_rank"}, relevance_level=threshold
            ).evaluate(head)[query]["recip_rank"]
            if k is None:
                hits, returned_n = full["num_rel_ret"], full["num_ret"]
                p = hits / returned_n
                recall = hits / relevant if relevant else 0.0
                ap, hit = full["map"], float(hits > 0)
                f1 = 2 * hits / (returned_n + relevant) if relevant else 0.0
            else:
                p, recall = full[f"P_{k}"], full[f"recall_{k}"]
                ap, hit = full[f"map_cut_{k}"], full[f"success_{k}"]
                f1 = 2 * p * recall / (p + recall) if p + recall > 0 else 0.0
            grades = [g for _, g in cut]
            expected[(device, query, k)] = {
                "precision_at_k": p,
                "recall_at_k": recall,
                "f1_at_k": f1,
                "hit_rate": hit,
                "reciprocal_rank": rr,
                "average_precision": ap,
                "r_precision": full["Rprec"],
                "err": _err(grades, max_grade),
                "rbp": _rbp(grades, threshold),
            }
    return expected


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rank", ["position", "score"])
def test_family_columns_equal_trec_eval(
    con: duckdb.DuckDBPyConnection, seed: int, rank: str
) -> None:
    _log(con, seed, tied=rank == "score")
    got = _report(con, rank, "key")
    expected = _trec_oracle(_judged(con, rank), threshold=1, max_grade=3)
    assert set(got) == set(expected)
    for key, values in expected.items():
        for metric, value in values.items():
            assert got[key][metric] == pytest.approx(value, abs=1e-12), (key, metric)


@pytest.mark.parametrize("threshold", [2, 3])
def test_threshold_is_trec_eval_relevance_level(
    con: duckdb.DuckDBPyConnection, threshold: int
) -> None:
    _log(con, 4, tied=True)
    got = _report(con, "score", "key", threshold=threshold, max_grade=5)
    expected = _trec_oracle(_judged(con, "score"), threshold=threshold, max_grade=5)
    for key, values in expected.items():
        for metric, value in values.items():
            assert got[key][metric] == pytest.approx(value, abs=1e-12), (key, metric)


def _by_hand(con: duckdb.DuckDBPyConnection, judged: pd.DataFrame, ties: str) -> dict:
    """Every family aggregate called on the judged run, one query per cutoff."""
    con.register("judged_by_hand", judged)
    expected = {}
    for k in CUTS:
        cut = "NULL" if k is None else str(k)
        common = f"ties := '{ties}', tie_key := item_id"
        rows = con.sql(
            f"""SELECT device, query_id,
                   precision_at_k(rel, rnk, {cut}, {common}),
                   recall_at_k(rel, rnk, {cut}, {common}),
                   f1_at_k(rel, rnk, {cut}, {common}),
                   hit_rate(rel, rnk, {cut}, {common}),
                   reciprocal_rank(rel, rnk, {cut}, {common}),
                   average_precision(rel, rnk, {cut}, {common}),
                   r_precision(rel, rnk, {common}),
                   err(rel, rnk, {cut}, max_grade := 3, {common}),
                   rbp(rel, rnk, k := {cut}, {common})
               FROM judged_by_hand GROUP BY ALL"""
        ).fetchall()
        for device, query, *values in rows:
            expected[(device, query, k)] = dict(zip(FAMILY, values))
    return expected


# Two random logs per tie rule: each case binds the nine aggregates at four cutoffs (5 s of a
# case's 9); the logs' variety (ties straddling every cutoff, unshown and ungraded items) is in each
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("ties", ["average", "key"])
def test_family_columns_equal_the_aggregates_on_the_judged_run(
    con: duckdb.DuckDBPyConnection, seed: int, ties: str
) -> None:
    _log(con, seed, tied=True)
    got = _report(con, "score", ties)
    expected = _by_hand(con, _judged(con, "score"), ties)
    assert set(got) == set(expected)
    for key, values in expected.items():
        for metric, value in values.items():
            assert got[key][metric] == pytest.approx(value, abs=1e-12), (key, metric)


def ranx_inputs(con: duckdb.DuckDBPyConnection) -> tuple[dict, dict]:
    """(binary qrels, run) per device/query of the queries with a relevant item, the run in
    trec_eval's order: what ranx was run on (tests/fixtures/ranx/record.py, case 'report_rbp')."""
    _log(con, 5, tied=False)
    judged = _judged(con, "position")
    qrels, run = {}, {}
    for (device, query), group in judged.groupby(["device", "query_id"]):
        name = f"{device}/{query}"
        qrels[name] = {i: int(r >= 1) for i, r in zip(group["item_id"], group["rel"])}
        ordered = _in_trec_order(group)
        run[name] = {i: float(len(ordered) - n) for n, (i, _) in enumerate(ordered)}
    keep = [q for q in run if any(qrels[q].values())]  # ranx needs a relevant item per query
    return {q: qrels[q] for q in keep}, {q: run[q] for q in keep}


def test_rbp_equals_ranx_on_binary_grades(con: duckdb.DuckDBPyConnection, recorded_ranx) -> None:
    qrels, run = ranx_inputs(con)
    got = _report(con, "position", "key")
    theirs = recorded_ranx("report_rbp", qrels, run)["rbp.8"]
    assert sorted(theirs) == sorted(qrels)
    for q, value in theirs.items():
        device, query = q.split("/")
        assert got[(device, query, None)]["rbp"] == pytest.approx(value, abs=1e-12), q


def test_default_and_ndcg_only_keep_todays_columns(con: duckdb.DuckDBPyConnection) -> None:
    _log(con, 1, tied=False)
    base = "'shown', 'events', k := [1, 5], slice_by := ['device']"
    default = con.sql(f"SELECT * FROM ndcg_report({base})")
    ndcg_only = con.sql(f"SELECT * FROM ndcg_report({base}, metrics := ['ndcg'])")
    assert default.columns == ndcg_only.columns == ["query_id", "device", *FIXED]
    assert sorted(default.fetchall()) == sorted(ndcg_only.fetchall())
    with_family = con.sql(
        f"SELECT * FROM ndcg_report({base}, metrics := ['rbp', 'precision_at_k', 'ndcg'])"
    )
    assert with_family.columns == ["query_id", "device", *FIXED, "precision_at_k", "rbp"]
    assert sorted(row[:9] for row in with_family.fetchall()) == sorted(default.fetchall())
    assert [t for t in with_family.types[-2:]] == ["DOUBLE", "DOUBLE"]


@pytest.mark.parametrize("macro", ["ndcg_report", "ndcg_summary"])
def test_the_default_report_does_not_bind_the_family(
    con: duckdb.DuckDBPyConnection, macro: str
) -> None:
    # Binding the nine family aggregates cost every call 0.2-0.5 s of planning, even with
    # metrics := ['ndcg']. Measured without a clock: the public err and hit_rate are
    # replaced by macros that cannot bind on a DOUBLE (struct_extract of a number), so a report
    # that binds them fails, and one that names neither does not. The traps take the guard that
    # our macros pass to each other (duckdb_ndcg.macros.guard()), so the report calls them.
    _log(con, 1, tied=False)
    for name in ("err", "hit_rate"):
        con.execute(
            f"CREATE OR REPLACE MACRO {name}(rel, rnk, k := NULL, threshold := 1, "
            "max_grade := 4, ties := 'average', tie_key := NULL, empty_ideal := 0.0, "
            f"{duckdb_ndcg.macros.guard()} := true) AS struct_extract(rel, 'bound')"
        )
    base = "'shown', 'events', k := [1, 5], slice_by := ['device']"
    if duckdb.__version__.startswith("1.4."):
        # DuckDB 1.4 binds every CTE of a WITH, read or not: there the family is still bound
        # (and dropped before planning), so the default report pays for it
        with pytest.raises(duckdb.BinderException, match="struct_extract"):
            con.sql(f"SELECT * FROM {macro}({base})").fetchall()
        return
    rows = sorted(con.sql(f"SELECT * FROM {macro}({base})").fetchall())
    named = sorted(con.sql(f"SELECT * FROM {macro}({base}, metrics := ['ndcg'])").fetchall())
    assert rows and named == [  # means summed in another order
        tuple(pytest.approx(v, abs=1e-12) if isinstance(v, float) else v for v in row)
        for row in rows
    ]
    # precision, recall and F1 are counted by the engine's scorer: no judged run, no aggregate
    counted = con.sql(f"SELECT * FROM {macro}({base}, metrics := ['ndcg', 'precision_at_k', "
                      "'recall_at_k', 'f1_at_k'])").fetchall()
    assert len(counted) == len(rows)
    # and the traps do fire once a metric scored over the judged run is named
    for named in ("err", "hit_rate"):
        with pytest.raises(duckdb.BinderException, match="struct_extract"):
            con.sql(f"SELECT * FROM {macro}({base}, metrics := ['ndcg', '{named}'])").fetchall()


def test_rows_below_the_cutoff_and_duplicates_there(con: duckdb.DuckDBPyConnection) -> None:
    # a relevant item shown below every cutoff still counts in recall's and AP's denominator,
    # and an item shown twice further down is allowed unless r_precision reads that far
    con.execute("CREATE TABLE shown AS SELECT 'q' AS query_id, 'd' || i AS item_id, i AS position "
                "FROM range(1, 21) t(i) UNION ALL SELECT 'q', 'd3', 21")
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, item_id, 'purchase' AS event_type "
                "FROM (VALUES ('d1'), ('d15'), ('d99')) v(item_id)")
    row = con.sql("SELECT recall_at_k, average_precision, precision_at_k FROM ndcg_report("
                  "'shown', 'events', k := 2, metrics := ['recall_at_k', 'average_precision', "
                  "'precision_at_k'])").fetchall()
    assert row == [(pytest.approx(1 / 3), pytest.approx(1 / 3), pytest.approx(0.5))]
    with pytest.raises(duckdb.Error, match="shows item_id d3 more than once"):
        con.sql("SELECT * FROM ndcg_report('shown', 'events', k := 2, "
                "metrics := ['r_precision'])").fetchall()


METRICS = MACROS["ndcg_report"].param("metrics")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[]", METRICS.error("[]")),
        ("['precision']", METRICS.error("[precision]")),
        ("['ndcg', 'P_5']", METRICS.error("[ndcg, P_5]")),
        ("NULL", METRICS.error("NULL")),
        ("['err', 'ndcg', 'err']", "metrics lists a metric more than once: [err, ndcg, err]"),
    ],
)
def test_bad_metrics_are_one_clear_error(
    con: duckdb.DuckDBPyConnection, value: str, message: str
) -> None:
    _log(con, 1, tied=False)
    with pytest.raises(duckdb.Error) as info:
        con.sql(f"SELECT * FROM ndcg_report('shown', 'events', metrics := {value})").fetchall()
    assert f"duckdb_ndcg: {message}" in str(info.value)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("threshold := 0", "threshold must be a positive number, got 0"),
        ("threshold := NULL", "threshold must be a positive number, got NULL"),
        ("max_grade := 'top'", "max_grade must be 'mapping' or a positive number, got 'top'"),
        ("max_grade := 0", "max_grade must be 'mapping' or a positive number, got 0"),
        ("collapse := 'sum'", "err needs grades between 0 and max_grade 3.0, got "),
    ],
)
def test_bad_threshold_and_max_grade(
    con: duckdb.DuckDBPyConnection, option: str, message: str
) -> None:
    con.execute("CREATE TABLE shown AS SELECT 'q' AS query_id, 'a' AS item_id, 1 AS position")
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, 'a' AS item_id, "
                "unnest(['purchase', 'click']) AS event_type")
    with pytest.raises(duckdb.Error) as info:
        con.sql(f"SELECT * FROM ndcg_report('shown', 'events', metrics := ['err'], {option})"
                ).fetchall()
    assert f"duckdb_ndcg: {message}" in str(info.value)


def test_max_grade_follows_the_mapping(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE shown AS SELECT 'q' AS query_id, 'a' AS item_id, 1 AS position")
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, 'a' AS item_id, 'buy' AS event_type")
    err = con.sql("SELECT err FROM ndcg_report('shown', 'events', metrics := ['err'], "
                  "mapping := MAP {'buy': 5, 'look': 1})").fetchall()
    assert err == [(pytest.approx((2**5 - 1) / 2**5),)]
    err = con.sql("SELECT err FROM ndcg_report('shown', 'events', metrics := ['err'], "
                  "mapping := MAP {'buy': 5, 'look': 1}, max_grade := 6)").fetchall()
    assert err == [(pytest.approx((2**5 - 1) / 2**6),)]


def test_a_slice_named_like_a_requested_metric_is_refused(
    con: duckdb.DuckDBPyConnection,
) -> None:
    con.execute("CREATE TABLE shown AS SELECT 'q' AS query_id, 'a' AS item_id, 1 AS position, "
                "'x' AS err")
    con.execute("CREATE TABLE events AS SELECT 'q' AS query_id, 'a' AS item_id, 'click' AS event_type")
    assert con.sql("SELECT count(*) FROM ndcg_report('shown', 'events', slice_by := ['err'])"
                   ).fetchall() == [(1,)]
    with pytest.raises(duckdb.Error, match="column err of rankings table shown has the name"):
        con.sql("SELECT * FROM ndcg_report('shown', 'events', slice_by := ['err'], "
                "metrics := ['err'])").fetchall()


def test_evaluate_and_persisted_file(con: duckdb.DuckDBPyConnection, tmp_path) -> None:
    _log(con, 2, tied=True)
    sql_rows = con.sql(
        "SELECT query_id, device, k, recall_at_k, err FROM ndcg_report('shown', 'events', "
        "k := [5, NULL], slice_by := ['device'], score_col := 'score', "
        "metrics := ['err', 'recall_at_k']) ORDER BY ALL"
    ).fetchall()
    rel = evaluate("shown", "events", con=con, k=[5, None], slice_by=["device"],
                   score_col="score", metrics=["err", "recall_at_k"])
    assert rel.columns[-2:] == ["recall_at_k", "err"]
    assert rel.select("query_id, device, k, recall_at_k, err").order("ALL").fetchall() == sql_rows
    with pytest.raises(ValueError, match="metrics must name some of ndcg, precision_at_k"):
        evaluate("shown", "events", con=con, metrics=["ndcg", "MAP"])
    path = tmp_path / "metrics.duckdb"
    duckdb_ndcg.install(str(path))
    con.execute(f"ATTACH '{path}' AS f")
    con.execute("CREATE TABLE f.shown AS SELECT * FROM memory.shown")
    con.execute("CREATE TABLE f.events AS SELECT * FROM memory.events")
    con.execute("DETACH f")
    script = (
        "import duckdb, json, sys; con = duckdb.connect(sys.argv[1]); "
        "print(json.dumps(con.sql(\"SELECT query_id, device, k, recall_at_k, err FROM "
        "ndcg_report('shown', 'events', k := [5, NULL], slice_by := ['device'], "
        "score_col := 'score', metrics := ['err', 'recall_at_k']) ORDER BY ALL\").fetchall()))"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, check=True, cwd=tmp_path)
    assert "duckdb_ndcg" not in out.stderr
    fresh = [tuple(row) for row in json.loads(out.stdout)]
    assert fresh == [tuple(row) for row in sql_rows]


def test_summary_means_are_the_report_columns_averaged(con: duckdb.DuckDBPyConnection) -> None:
    _log(con, 3, tied=True)
    base = "'shown', 'events', k := [1, 5, NULL], slice_by := ['device'], score_col := 'score'"
    plain = con.sql(f"SELECT * FROM ndcg_summary({base})")
    named = con.sql(f"SELECT * FROM ndcg_summary({base}, metrics := ['rbp', 'hit_rate', 'ndcg'])")
    assert named.columns == [*plain.columns, "mean_hit_rate", "mean_rbp"]
    head = [row[: len(plain.columns)] for row in named.fetchall()]
    assert head == [tuple(pytest.approx(v, abs=1e-12) if isinstance(v, float) else v for v in row)
                    for row in plain.fetchall()]  # means summed in another order
    means = con.sql(
        f"SELECT device, k, avg(hit_rate), avg(rbp) FROM ndcg_report({base}, "
        "metrics := ['hit_rate', 'rbp']) GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    got = named.select("device, k, mean_hit_rate, mean_rbp").fetchall()
    assert got == [(d, k, pytest.approx(h, abs=1e-12), pytest.approx(r, abs=1e-12))
                   for d, k, h, r in means]
    summary = evaluate("shown", "events", con=con, k=[1, 5, None], slice_by=["device"],
                       score_col="score", metrics=["rbp", "hit_rate"], shape="summary")
    assert summary.columns == named.columns


def test_cli_metrics(tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    from duckdb_ndcg import cli

    monkeypatch.chdir(tmp_path)
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        _log(con, 1, tied=False)
        con.execute("COPY shown TO 'shown.csv'")
        con.execute("COPY events TO 'events.csv'")
        expected = con.sql(
            "SELECT query_id, device, k, precision_at_k, err FROM ndcg_report('shown', 'events', "
            "k := [1, 5], slice_by := ['device'], metrics := ['err', 'precision_at_k'], "
            "threshold := 2) ORDER BY ALL"
        ).fetchall()
    code = cli.main(["evaluate", "shown.csv", "events.csv", "--k", "1,5", "--slice-by", "device",
                     "--metrics", "err,precision_at_k", "--threshold", "2",
                     "--output", "out.csv"])
    assert code == 0
    with duckdb.connect() as con:
        out = con.sql("SELECT * FROM 'out.csv'")
        assert out.columns[-2:] == ["precision_at_k", "err"]
        got = out.select("query_id, device, k, precision_at_k, err").order("ALL").fetchall()
    assert got == [(*row[:3], pytest.approx(row[3]), pytest.approx(row[4])) for row in expected]
    capsys.readouterr()
    for args, message in [
        (["--metrics", "precision"], "--metrics: must name some of ndcg, precision_at_k, "),
        (["--metrics", "err,err"], "--metrics: lists a metric more than once: 'err,err'"),
        (["--metrics", "err", "--threshold", "0"], "--threshold must be a positive number"),
        (["--metrics", "err", "--max-grade", "x"], "--max-grade: expected 'mapping' or a number"),
    ]:
        assert cli.main(["evaluate", "shown.csv", "events.csv", *args]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
