"""A slice that lives in the events table (platform, day), taken per query (issue 20, item 6), on
every surface: the SQL macros (ndcg_report, ndcg_summary, compare_rankers, compare_summary),
evaluate(), compare() and the CLI, with a user's own column names. Oracle: scikit-learn's
ndcg_score per query (every graded item is shown, so its ideal is the report's), averaged per
slice."""

from __future__ import annotations

import random
import re
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

from duckdb_ndcg import cli
from duckdb_ndcg.compare import compare
from duckdb_ndcg.evaluate import evaluate

K = 3
GRADES = {"view": 0, "click": 1, "buy": 3}
MAPPING = "MAP {'view': 0, 'click': 1, 'buy': 3}"
NAMES = ("query_col := 'search_id', item_col := 'sku', position_col := 'rank_pos', "
         f"event_col := 'action', mapping := {MAPPING}")
PY_NAMES = {"query_col": "search_id", "item_col": "sku", "position_col": "rank_pos",
            "event_col": "action", "mapping": GRADES}
PLATFORMS = ("android", "ios", "web")


def _log(seed: int = 7) -> tuple[list[tuple], list[tuple], list[tuple], dict[str, str | None]]:
    """Rankings of two rankers (search_id, sku, rank_pos, variant), the events (search_id, sku,
    action, platform) and each search's platform (None: no event). Every graded sku is shown by
    both rankers, so the ideal of a query is that of its shown rows."""
    rng = random.Random(seed)
    shown_a, shown_b, events, platform = [], [], [], {}
    for n in range(40):
        q = f"s{n:02d}"
        skus = [f"p{rng.randrange(30):02d}" for _ in range(12)]
        skus = list(dict.fromkeys(skus))[:5]
        variant = "new" if n % 2 else "old"
        for pos, sku in enumerate(skus, 1):
            shown_a.append((q, sku, pos, variant))
        for pos, sku in enumerate(reversed(skus), 1):
            shown_b.append((q, sku, pos, variant))
        if n % 9 == 4:  # no event at all: the slice is NULL, NDCG 0
            platform[q] = None
            continue
        platform[q] = rng.choice(PLATFORMS)
        for sku in skus:
            action = rng.choice(["view", "view", "click", "buy", None])
            if action:
                events.append((q, sku, action, platform[q]))
        events.append((q, skus[0], "view", None))  # a NULL platform is skipped, not a 2nd value
    return shown_a, shown_b, events, platform


SHOWN_A, SHOWN_B, EVENTS, PLATFORM = _log()


def _oracle(shown: list[tuple]) -> dict[str, float]:
    """NDCG@K per search by scikit-learn: grade = max over the search's events of the sku."""
    grade: dict[tuple[str, str], float] = {}
    for q, sku, action, _ in EVENTS:
        grade[q, sku] = max(grade.get((q, sku), 0.0), GRADES[action])
    per_query: dict[str, list[tuple[int, float]]] = {}
    for q, sku, pos, _ in shown:
        per_query.setdefault(q, []).append((pos, grade.get((q, sku), 0.0)))
    return {
        q: float(ndcg_score([[g for _, g in rows]], [[-p for p, _ in rows]], k=K))
        for q, rows in per_query.items()
    }


def _means(per_query: dict[str, float], key=lambda q: (PLATFORM[q],)) -> dict:
    groups: dict[tuple, list[float]] = {}
    for q, value in per_query.items():
        groups.setdefault(key(q), []).append(value)
    return {k: (len(v), sum(v) / len(v)) for k, v in groups.items()}


def _approx(means: dict) -> dict:
    return {k: (n, pytest.approx(m, abs=1e-12)) for k, (n, m) in means.items()}


@pytest.fixture
def log(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    con.execute("CREATE TABLE search_log (search_id VARCHAR, sku VARCHAR, rank_pos INTEGER, "
                "variant VARCHAR)")
    con.execute("CREATE TABLE search_log_b AS SELECT * FROM search_log")
    con.execute("CREATE TABLE clicks (search_id VARCHAR, sku VARCHAR, action VARCHAR, "
                "platform VARCHAR)")
    con.executemany("INSERT INTO search_log VALUES (?, ?, ?, ?)", SHOWN_A)
    con.executemany("INSERT INTO search_log_b VALUES (?, ?, ?, ?)", SHOWN_B)
    con.executemany("INSERT INTO clicks VALUES (?, ?, ?, ?)", EVENTS)
    return con


def test_the_oracle_data_has_every_kind_of_slice() -> None:
    means = _means(_oracle(SHOWN_A))
    assert set(means) == {(p,) for p in (*PLATFORMS, None)}
    assert all(n >= 3 for n, _ in means.values())
    assert 0 < means["web",][1] < 1


@pytest.mark.versions  # COLUMNS renames, alias(), SELECT * naming a repeated column
def test_sql_summary_and_report_take_a_slice_from_the_events(log) -> None:
    got = log.execute(
        f"SELECT platform, queries, mean_ndcg FROM ndcg_summary('search_log', 'clicks', k := {K}, "
        f"slice_by := ['platform'], {NAMES})"
    ).fetchall()
    assert {(p,): (n, m) for p, n, m in got} == _approx(_means(_oracle(SHOWN_A)))
    report = log.execute(
        f"SELECT search_id, platform, ndcg FROM ndcg_report('search_log', 'clicks', k := {K}, "
        f"slice_by := 'platform', {NAMES})"
    ).fetchall()
    oracle = _oracle(SHOWN_A)
    assert {q: (p, v) for q, p, v in report} == {
        q: (PLATFORM[q], pytest.approx(v, abs=1e-12)) for q, v in oracle.items()
    }


def test_sql_slices_from_both_tables_at_once(log) -> None:
    # variant lives in the rankings, platform in the events
    got = log.execute(
        f"SELECT variant, platform, queries, mean_ndcg FROM ndcg_summary('search_log', 'clicks', "
        f"k := {K}, slice_by := ['platform', 'variant'], {NAMES})"
    ).fetchall()
    variant = {q: v for q, _, _, v in SHOWN_A}
    expected = _means(_oracle(SHOWN_A), key=lambda q: (variant[q], PLATFORM[q]))
    assert {(v, p): (n, m) for v, p, n, m in got} == _approx(expected)


@pytest.mark.versions  # COLUMNS renames, alias(), SELECT * naming a repeated column
def test_sql_a_search_whose_events_disagree_is_one_error(log) -> None:
    first = next(q for q, p in PLATFORM.items() if p == "web")
    log.execute("INSERT INTO clicks VALUES (?, 'p99', 'view', 'ios')", [first])
    with pytest.raises(duckdb.Error, match=re.escape(
        f"events table clicks gives search_id {first} more than one platform (ios, web): a "
        "slice taken from the events must have one value per query"
    )):
        log.execute(f"SELECT * FROM ndcg_summary('search_log', 'clicks', k := {K}, "
                    f"slice_by := ['platform'], {NAMES})").fetchall()


def test_sql_a_column_neither_table_has_is_one_error(log) -> None:
    with pytest.raises(duckdb.Error, match=re.escape(
        "neither rankings table search_log nor events table clicks has a column channel "
        "(named in slice_by)"
    )):
        log.execute(f"SELECT * FROM ndcg_report('search_log', 'clicks', k := {K}, "
                    f"slice_by := ['channel'], {NAMES})").fetchall()


_QUERY_SLICE = ("slice_by names search_id, the query column: a slice groups queries, and each "
                "query is already its own row of ndcg_report")


@pytest.mark.versions  # the checks stand in a filter, which no version drops
@pytest.mark.parametrize("read", ["*", "count(*)", "k"])
@pytest.mark.parametrize("call", [
    f"ndcg_summary('search_log', 'clicks', k := {K}, slice_by := ['search_id'], {NAMES})",
    f"ndcg_report('search_log', 'clicks', k := {K}, slice_by := 'search_id', {NAMES})",
    (f"compare_summary('search_log', 'search_log_b', 'clicks', k := {K}, "
    f"slice_by := ['variant', 'search_id'], {NAMES})"),
])
def test_sql_slicing_by_the_query_column_is_one_error(log, call: str, read: str) -> None:
    # ndcg_summary dropped the slice without a word (one row per k, every query), whatever it
    # was asked for; `SELECT k` or `count(*)` ran none of the checks on DuckDB 2.0, which drops
    # the unread column that held them
    with pytest.raises(duckdb.Error, match=re.escape(_QUERY_SLICE)):
        log.execute(f"SELECT {read} FROM {call}").fetchall()


@pytest.mark.versions  # the checks stand in a filter, which no version drops
@pytest.mark.parametrize("read", ["k", "count(*)", "queries"])
def test_sql_a_summary_read_in_part_runs_every_check(log, read: str) -> None:
    with pytest.raises(duckdb.Error, match=re.escape("has a column channel (named in slice_by)")):
        log.execute(f"SELECT {read} FROM ndcg_summary('search_log', 'clicks', k := {K}, "
                    f"slice_by := ['channel'], {NAMES})").fetchall()
    log.execute("INSERT INTO search_log SELECT * FROM search_log LIMIT 1")
    with pytest.raises(duckdb.Error, match="more than once in ranking"):
        log.execute(f"SELECT {read} FROM ndcg_summary('search_log', 'clicks', k := {K}, "
                    f"{NAMES})").fetchall()


def test_cli_and_evaluate_slicing_by_the_query_column_is_one_error(
    log, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the CLI printed "Binder Error: Referenced column "search_id" not found" after the whole run
    with pytest.raises(duckdb.Error, match=re.escape(_QUERY_SLICE)):
        evaluate("search_log", "clicks", con=log, k=K, shape="summary", slice_by=["search_id"],
                 **PY_NAMES).fetchall()
    for table in ("search_log", "clicks"):
        log.execute(f"COPY {table} TO '{tmp_path / table}.csv'")
    (tmp_path / "grades.csv").write_text("action,grade\nview,0\nclick,1\nbuy,3\n")
    code = cli.main([
        "evaluate", str(tmp_path / "search_log.csv"), str(tmp_path / "clicks.csv"), "--summary",
        "--slice-by", "search_id", "--query-col", "search_id", "--item-col", "sku",
        "--position-col", "rank_pos", "--event-col", "action",
        "--mapping", str(tmp_path / "grades.csv"),
    ])
    err = capsys.readouterr().err.strip().splitlines()
    assert (code, len(err)) == (1, 1)
    assert err[0].startswith("duckdb-ndcg evaluate: --slice-by names search_id, the query column")


@pytest.mark.versions  # COLUMNS renames, alias(), SELECT * naming a repeated column
def test_a_column_of_both_tables_is_taken_from_the_rankings(log) -> None:
    # the rankings' own value wins (an impression's device may differ from the click's): as
    # evaluate() always did; the events' disagreeing values are then not read
    log.execute("ALTER TABLE search_log ADD COLUMN platform VARCHAR DEFAULT 'kiosk'")
    log.execute("INSERT INTO clicks VALUES ('s00', 'p99', 'view', 'a'), "
                "('s00', 'p98', 'view', 'b')")
    sql = (f"SELECT platform, queries, mean_ndcg FROM ndcg_summary('search_log', 'clicks', "
           f"k := {K}, slice_by := ['platform'], {NAMES})")
    oracle = _oracle(SHOWN_A)
    expected = [("kiosk", len(oracle), pytest.approx(sum(oracle.values()) / len(oracle),
                                                      abs=1e-12))]
    assert log.execute(sql).fetchall() == expected
    rel = evaluate("search_log", "clicks", con=log, k=K, slice_by=["platform"], shape="summary",
                   **PY_NAMES)
    assert rel.project("platform, queries, mean_ndcg").fetchall() == expected


def test_sql_compare_takes_a_slice_from_the_events(log) -> None:
    a, b = _oracle(SHOWN_A), _oracle(SHOWN_B)
    means_a, means_b = _means(a), _means(b)
    got = log.execute(
        f"SELECT platform, queries, mean_a, mean_b FROM compare_summary('search_log', "
        f"'search_log_b', 'clicks', k := {K}, slice_by := ['platform'], {NAMES})"
    ).fetchall()
    assert {(p,): (n, ma, mb) for p, n, ma, mb in got} == {
        s: (n, pytest.approx(means_a[s][1], abs=1e-12), pytest.approx(means_b[s][1], abs=1e-12))
        for s, (n, _) in means_a.items()
    }
    rows = log.execute(
        f"SELECT search_id, platform, diff FROM compare_rankers('search_log', 'search_log_b', "
        f"'clicks', k := {K}, slice_by := ['platform'], {NAMES})"
    ).fetchall()
    assert {q: (p, d) for q, p, d in rows} == {
        q: (PLATFORM[q], pytest.approx(b[q] - a[q], abs=1e-12)) for q in a
    }


def test_evaluate_and_compare_take_a_slice_from_the_events(log) -> None:
    rel = evaluate("search_log", "clicks", con=log, k=K, slice_by=["platform"], shape="summary",
                   **PY_NAMES)
    got = rel.project("platform, queries, mean_ndcg").fetchall()
    assert {(p,): (n, m) for p, n, m in got} == _approx(_means(_oracle(SHOWN_A)))
    means_a, means_b = _means(_oracle(SHOWN_A)), _means(_oracle(SHOWN_B))
    rel = compare("search_log", "search_log_b", "clicks", con=log, k=K, slice_by=["platform"],
                  **PY_NAMES)
    got = rel.project("platform, queries, mean_a, mean_b").fetchall()
    assert {(p,): (n, ma, mb) for p, n, ma, mb in got} == {
        s: (n, pytest.approx(means_a[s][1], abs=1e-12), pytest.approx(means_b[s][1], abs=1e-12))
        for s, (n, _) in means_a.items()
    }
    with pytest.raises(ValueError, match=re.escape(
        "neither rankings_a search_log nor events clicks has a column 'channel' (slice_by[0])"
    )):
        compare("search_log", "search_log_b", "clicks", con=log, k=K, slice_by=["channel"],
                **PY_NAMES)


def test_cli_compare_takes_a_slice_from_the_events(
    log, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for table in ("search_log", "search_log_b", "clicks"):
        log.execute(f"COPY {table} TO '{tmp_path / table}.csv'")
    out = tmp_path / "verdicts.csv"
    (tmp_path / "grades.csv").write_text("action,grade\nview,0\nclick,1\nbuy,3\n")
    code = cli.main([
        "compare", str(tmp_path / "search_log.csv"), str(tmp_path / "search_log_b.csv"),
        str(tmp_path / "clicks.csv"), "--k", str(K), "--slice-by", "platform",
        "--query-col", "search_id", "--item-col", "sku", "--position-col", "rank_pos",
        "--event-col", "action", "--mapping", str(tmp_path / "grades.csv"), "--output", str(out),
    ])
    assert code == 0, capsys.readouterr().err
    means_a, means_b = _means(_oracle(SHOWN_A)), _means(_oracle(SHOWN_B))
    got = log.execute(f"SELECT platform, queries, mean_a, mean_b FROM '{out}'").fetchall()
    assert {(p,): (n, ma, mb) for p, n, ma, mb in got} == {
        s: (n, pytest.approx(means_a[s][1], abs=1e-12), pytest.approx(means_b[s][1], abs=1e-12))
        for s, (n, _) in means_a.items()
    }
    assert "platform=web, NDCG@3" in capsys.readouterr().out


def test_the_readme_query_equals_its_join_spelled_out(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TABLE shown AS SELECT search_id AS query_id, sku AS item_id, "
                "rank_pos AS position FROM (VALUES " + ", ".join(map(repr, SHOWN_A))
                + ") t(search_id, sku, rank_pos, variant)")
    grades = {"view": "impression", "click": "click", "buy": "purchase"}
    con.execute("CREATE TABLE events AS SELECT * FROM (VALUES " + ", ".join(
        repr((q, sku, grades[action], platform)) for q, sku, action, platform in EVENTS
    ).replace("None", "NULL") + ") t(query_id, item_id, event_type, device)")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    direct = "SELECT * FROM ndcg_summary('shown', 'events', slice_by := ['device']);"
    assert direct in readme
    start = readme.index("CREATE VIEW shown_by_device")
    *view, spelled_out = [s for s in readme[start:readme.index("```", start)].split(";")
                          if s.strip()]
    con.execute(";".join(view))
    got = con.execute(direct).fetchall()
    assert len(got) == 4  # three platforms and NULL
    assert got == [  # the same means, summed in another order
        tuple(pytest.approx(v, abs=1e-12) if isinstance(v, float) else v for v in row)
        for row in con.execute(spelled_out + " ORDER BY ALL").fetchall()
    ]


@pytest.mark.versions  # the plan: DuckDB 1.4 binds every CTE, 1.5 and 2.0 only those read
def test_only_a_report_with_slices_joins_the_events_per_query(log) -> None:
    # the default report's plan reads the rankings alone, as before item 6: the per-query pass
    # over the events (its column _ndcg_sq) is planned only when slice_by names a column
    def plan(extra: str) -> str:
        return "\n".join(row[1] for row in log.execute(
            f"EXPLAIN SELECT * FROM ndcg_report('search_log', 'clicks', {NAMES}{extra})"
        ).fetchall())

    assert "_ndcg_sq" not in plan("")
    assert "_ndcg_sq" in plan(", slice_by := ['platform']")
    assert "_ndcg_sq" in plan(", slice_by := ['variant']")  # a rankings column: joined too
