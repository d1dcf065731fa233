"""Time on the report and summary: bucket := 'day' | 'week' | INTERVAL, start/stop.

Oracle: pandas groupby on the same data — each query's time is the earliest shown_at of its rows,
floored to the bucket by pandas (dt.floor('D'), the Monday of its week, dt.floor('6h')); NDCG per
query by scikit-learn's ndcg_score; the bucket means and the [start, stop) filter by pandas.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli

ROOT = Path(__file__).resolve().parents[2]
GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}


def generated(seed: int = 11) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    shown, events = [], []
    origin = pd.Timestamp("2026-03-01")
    for q in range(120):
        t = origin + pd.Timedelta(minutes=int(rng.integers(0, 60 * 24 * 20)))
        for position in range(1, int(rng.integers(2, 9)) + 1):
            # later rows up to 30 minutes later (a second page), some past midnight
            at = t + pd.Timedelta(minutes=int(rng.integers(0, 30))) if position > 1 else t
            shown.append((f"q{q}", f"i{position}", position, at))
            if rng.random() < 0.5:
                events.append((f"q{q}", f"i{position}", str(rng.choice(list(GRADES)))))
    return (pd.DataFrame(shown, columns=["query_id", "item_id", "position", "shown_at"]),
            pd.DataFrame(events, columns=["query_id", "item_id", "event_type"]))


def oracle_per_query(shown: pd.DataFrame, events: pd.DataFrame, k: int = 10) -> pd.DataFrame:
    grade = events.assign(g=events.event_type.map(GRADES)).groupby(
        ["query_id", "item_id"]).g.max()
    rows = []
    for q, ranking in shown.groupby("query_id"):
        y_true = [grade.get((q, i), 0) for i in ranking.item_id]
        ndcg = ndcg_score([y_true], [-ranking.position.to_numpy()], k=k) if max(y_true) else 0.0
        rows.append((q, ranking.shown_at.min(), ndcg))
    return pd.DataFrame(rows, columns=["query_id", "t", "ndcg"])


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    shown, events = generated()
    return shown, events, oracle_per_query(shown, events)


def load(con: duckdb.DuckDBPyConnection, shown: pd.DataFrame, events: pd.DataFrame) -> None:
    con.execute("CREATE OR REPLACE TABLE shown AS SELECT * FROM shown_df")
    con.execute("CREATE OR REPLACE TABLE events AS SELECT * FROM events_df")


def register(con: duckdb.DuckDBPyConnection, data) -> None:
    shown, events, _ = data
    con.register("shown_df", shown)
    con.register("events_df", events)
    load(con, shown, events)
    con.unregister("shown_df")
    con.unregister("events_df")


def monday(t: pd.Series) -> pd.Series:
    return t.dt.floor("D") - pd.to_timedelta(t.dt.day_of_week, unit="D")


BUCKETS = {  # bucket := ..., and pandas' floor of a query's time
    "'day'": lambda t: t.dt.floor("D").dt.date,
    "'week'": lambda t: monday(t).dt.date,
    "INTERVAL 6 HOUR": lambda t: t.dt.floor("6h"),
}


@pytest.mark.versions
def test_daily_summary(con: duckdb.DuckDBPyConnection, data) -> None:
    register(con, data)
    per_query = data[2]
    expected = per_query.groupby(per_query.t.dt.floor("D").dt.date).ndcg.agg(["mean", "count"])
    rows = con.sql("SELECT bucket, queries, mean_ndcg FROM ndcg_summary('shown', 'events', "
                   "bucket := 'day')").fetchall()
    assert {b: (n, m) for b, n, m in rows} == {
        b: (r["count"], pytest.approx(r["mean"], abs=1e-12)) for b, r in expected.iterrows()}


def test_buckets_and_bounds(con: duckdb.DuckDBPyConnection, data, check_cases) -> None:
    register(con, data)
    per_query = data[2]

    def bucket_case(sql: str, floor):
        def check() -> None:
            expected = per_query.groupby(floor(per_query.t)).ndcg.mean()
            rows = con.sql(f"SELECT bucket, mean_ndcg FROM ndcg_summary('shown', 'events', "
                           f"bucket := {sql})").fetchall()
            got = {pd.Timestamp(b): m for b, m in rows}
            assert got == {pd.Timestamp(b): pytest.approx(m, abs=1e-12)
                           for b, m in expected.items()}
        return check

    def bounds_case(start: str | None, stop: str | None):
        def check() -> None:
            keep = per_query
            if start:
                keep = keep[keep.t >= pd.Timestamp(start)]
            if stop:
                keep = keep[keep.t < pd.Timestamp(stop)]
            options = ", ".join(f"{n} := '{v}'" for n, v in (("start", start), ("stop", stop))
                                if v)
            rows = con.sql(f"SELECT query_id, ndcg FROM ndcg_report('shown', 'events', "
                           f"{options})").fetchall()
            assert dict(rows) == {q: pytest.approx(n, abs=1e-12)
                                  for q, n in zip(keep.query_id, keep.ndcg)}
        return check

    check_cases([
        *((f"bucket {sql}", bucket_case(sql, floor)) for sql, floor in BUCKETS.items()),
        ("start", bounds_case("2026-03-05", None)),
        ("stop", bounds_case(None, "2026-03-10 12:00:00")),
        ("start-stop", bounds_case("2026-03-05", "2026-03-10")),
    ])


def test_report_slice_and_evaluate(con: duckdb.DuckDBPyConnection, data) -> None:
    register(con, data)
    per_query = data[2]
    day = dict(zip(per_query.query_id, per_query.t.dt.floor("D").dt.date))
    rows = con.sql("SELECT query_id, bucket FROM ndcg_report('shown', 'events', "
                   "bucket := 'day')").fetchall()
    assert dict(rows) == day  # one ranking per query, on its first row's day
    rel = duckdb_ndcg.evaluate("shown", "events", con=con, bucket=datetime.timedelta(hours=6),
                               start=datetime.date(2026, 3, 5), shape="summary")
    keep = per_query[per_query.t >= pd.Timestamp("2026-03-05")]
    expected = keep.groupby(keep.t.dt.floor("6h")).ndcg.mean()
    got = {pd.Timestamp(b): m for b, m in rel.project("bucket, mean_ndcg").fetchall()}
    assert got == {b: pytest.approx(m, abs=1e-12) for b, m in expected.items()}
    with pytest.raises(ValueError, match="rankings_time_col"):
        duckdb_ndcg.evaluate("shown", "events", con=con, bucket="day", rankings_time_col="t")


def test_cli_daily_trend(con: duckdb.DuckDBPyConnection, data, tmp_path: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    register(con, data)
    for table in ("shown", "events"):
        con.execute(f"COPY {table} TO '{tmp_path / table}.parquet'")
    page = tmp_path / "trend.html"
    code = cli.main(["evaluate", str(tmp_path / "shown.parquet"), str(tmp_path / "events.parquet"),
                     "--bucket", "day", "--summary", "--output", "-", "--chart", str(page)])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split(",")[:2] == ["bucket", "k"]
    per_query = data[2]
    expected = per_query.groupby(per_query.t.dt.floor("D").dt.date).ndcg.mean()
    got = {line.split(",")[0]: float(line.split(",")[3]) for line in lines[1:]}
    assert got == {str(b): pytest.approx(m, abs=1e-12) for b, m in expected.items()}
    assert "Mean NDCG@10 per bucket" in page.read_text(encoding="utf-8")  # the trend's title
    assert cli.main(["evaluate", str(tmp_path / "shown.parquet"),
                     str(tmp_path / "events.parquet"), "--bucket", "month"]) == 1
    assert "--bucket must be 'day', 'week' or a positive INTERVAL" in capsys.readouterr().err


BAD = [
    ("bucket := 'month'", "bucket must be 'day', 'week' or a positive INTERVAL"),
    ("bucket := INTERVAL (-1) HOUR", "bucket must be 'day', 'week' or a positive INTERVAL"),
    ("start := 'yesterday'", "start must be a date or timestamp"),
    ("stop := 42", "stop must be a date or timestamp"),
    ("bucket := 'day', rankings_time_col := 'item_id'",
     "rankings_time_col item_id of rankings table shown is VARCHAR"),
]


def test_bad_input(con: duckdb.DuckDBPyConnection, data, check_cases) -> None:
    register(con, data)

    def case(options: str, words: str):
        def check() -> None:
            with pytest.raises(duckdb.Error, match=re.escape(words)):
                con.sql(f"SELECT * FROM ndcg_summary('shown', 'events', {options})").fetchall()
        return check

    def own_bucket() -> None:
        con.execute("CREATE OR REPLACE VIEW shown_b AS SELECT *, 1 AS bucket FROM shown")
        with pytest.raises(duckdb.Error, match="has a column bucket"):
            con.sql("SELECT * FROM ndcg_report('shown_b', 'events', bucket := 'day')").fetchall()

    check_cases([*((o, case(o, w)) for o, w in BAD), ("own bucket column", own_bucket)])


def test_readme_recipe(con: duckdb.DuckDBPyConnection) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### Time: daily trends, date ranges\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### Time: daily trends, date ranges'"
    block = re.search(r"```sql\n(.*?)```", section.group(1), re.DOTALL)
    results = [con.sql(s) for s in block.group(1).split(";") if s.strip()]
    rows = results[-1].fetchall()
    # by scikit-learn: q1 (shown 23:58 on the 1st, its second row after midnight) clicks b at 2;
    # q2 on the 2nd clicks a at 1; q3 on the 9th is outside [start, stop)
    assert rows == [(datetime.date(2026, 1, 1), 10, 1,
                     pytest.approx(ndcg_score([[0, 1]], [[2, 1]]), abs=1e-12)),
                    (datetime.date(2026, 1, 2), 10, 1, 1.0)]
