"""The UBI and GA4 adapters as portable SQL (issue 22, item 7): events_to_sql(..., source=...)
reads the vendor's raw tables (nested arrays and structs) on DuckDB and ClickHouse (chdb) and
gives every query the NDCG that the DuckDB adapters + ndcg_report give, and the hand-made numbers
of tests/sources/test_ubi.py and test_ga4.py (scikit-learn's ndcg_score on grades worked out by
hand from the documents). BigQuery, which cannot run here, is pinned by a golden statement."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
import test_ga4
import test_ubi

from duckdb_ndcg import cli
from duckdb_ndcg.portable import events_to_sql

Row = tuple[Any, ...]
KS = (2, 10)


@pytest.fixture(scope="module")
def chdb_run() -> Iterator[Callable[[str], list[Row]]]:
    """An embedded ClickHouse (chdb): runs one statement, returns its rows."""
    chdb = pytest.importorskip("chdb")
    con = chdb.connect(":memory:")

    def run(sql: str) -> list[Row]:
        cursor = con.cursor()  # a fresh cursor per statement (chdb's after a failure is stale)
        try:
            cursor.execute(sql)
            return list(cursor.fetchall())
        finally:
            cursor.close()

    yield run
    con.close()


def _row(values: tuple) -> str:
    return "(" + ", ".join(_literal(v) for v in values) + ")"


def _literal(value: object) -> str:
    """A Python value of the fixtures as a ClickHouse literal (test data only: ids, names)."""
    if value is None:
        return "NULL"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"tuple({inner})"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ubi_clickhouse(run: Callable[[str], list[Row]]) -> None:
    """test_ubi's two indexes as ClickHouse tables: arrays, named tuples, Nullable fields."""
    run("DROP TABLE IF EXISTS ubi_queries")
    run("DROP TABLE IF EXISTS ubi_events")
    run("CREATE TABLE ubi_queries (query_id String, user_query String, client_id String, "
        "application String, query_response_hit_ids Array(String)) ENGINE = Memory")
    run("CREATE TABLE ubi_events (action_name String, query_id Nullable(String), "
        "session_id String, client_id String, application String, event_attributes "
        "Tuple(object Tuple(object_id Nullable(String)), position Tuple(ordinal Nullable(Int64))))"
        " ENGINE = Memory")
    queries = [
        (q["query_id"], q["user_query"], q["client_id"], q["application"],
         list(q["query_response_hit_ids"]))
        for q in test_ubi.QUERIES
    ]
    events = []
    for e in test_ubi.EVENTS:
        attributes = e["event_attributes"]
        item = attributes.get("object", {}).get("object_id")
        events.append((e["action_name"], e["query_id"], e["session_id"], e["client_id"],
                       e["application"],
                       ((None if item is None else str(item),),
                        (attributes["position"]["ordinal"],))))
    run("INSERT INTO ubi_queries VALUES " + ", ".join(_row(r) for r in queries))
    run("INSERT INTO ubi_events VALUES " + ", ".join(_row(r) for r in events))


def _by_query(rows: list[Row]) -> dict[tuple[str, int], float]:
    """(query, k) -> NDCG from rows (query_id, ndcg_at_2, ndcg_at_10)."""
    return {(row[0], k): row[1 + i] for row in rows for i, k in enumerate(KS)}


@pytest.fixture
def ubi_duckdb(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """test_ubi's indexes as NDJSON read by read_json (object_id: JSON, text and numbers)."""
    for name, documents in (("ubi_queries", test_ubi.QUERIES), ("ubi_events", test_ubi.EVENTS)):
        path = tmp_path / f"{name}.ndjson"
        path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_json('{path}')")
    return con


def test_ubi_on_duckdb_and_clickhouse(ubi_duckdb: duckdb.DuckDBPyConnection,
                                      chdb_run: Callable[[str], list[Row]]) -> None:
    """The portable UBI pipeline on DuckDB (the read_json tables) and ClickHouse: the hand-made
    NDCG of every query, and ubi_rankings/ubi_events + ndcg_report's."""
    expected = {(q, k): v for k in KS for q, v in test_ubi._ndcg(k).items()}
    ubi_duckdb.execute("CREATE TABLE shown AS SELECT * FROM ubi_rankings('ubi_queries', "
                       "'ubi_events')")
    ubi_duckdb.execute("CREATE TABLE events AS SELECT * FROM ubi_events('ubi_queries', "
                       "'ubi_events')")
    report = {(q, k): v for q, k, v in ubi_duckdb.sql(
        "SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', k := [2, 10])").fetchall()}
    assert report == {key: pytest.approx(v, abs=1e-12) for key, v in expected.items()}
    _ubi_clickhouse(chdb_run)
    for dialect, run in (("duckdb", lambda sql: ubi_duckdb.sql(sql).fetchall()),
                         ("clickhouse", chdb_run)):
        sql = events_to_sql(dialect, rankings="ubi_queries", events="ubi_events", source="ubi",
                            k=list(KS))
        got = _by_query(run(sql))
        assert got == {key: pytest.approx(v, abs=1e-12) for key, v in report.items()}, dialect


GA4_CLICKHOUSE = (
    "event_date String, event_timestamp Int64, event_name String, event_params Array(Tuple(key "
    "String, value Tuple(string_value Nullable(String), int_value Nullable(Int64), float_value "
    "Nullable(Float64), double_value Nullable(Float64)))), user_pseudo_id Nullable(String), "
    "device Tuple(category Nullable(String), operating_system Nullable(String)), items "
    "Array(Tuple(item_id Nullable(String), item_name Nullable(String), price Nullable(Float64), "
    "quantity Nullable(Int64), item_revenue Nullable(Float64), item_list_id Nullable(String), "
    "item_list_name Nullable(String), item_list_index Nullable(String)))"
)
GA4_ITEM = ("item_id", "item_name", "price", "quantity", "item_revenue", "item_list_id",
            "item_list_name", "item_list_index")


def _ga4_clickhouse(run: Callable[[str], list[Row]], rows: list[list[object]]) -> None:
    """test_ga4's export (or `rows` in its layout) as a ClickHouse table in the export's schema."""
    run("DROP TABLE IF EXISTS ga4_export")
    run(f"CREATE TABLE ga4_export ({GA4_CLICKHOUSE}) ENGINE = Memory")
    values = []
    for date, stamp, name, params, user, device, items in rows:
        params = [(p["key"], tuple(p["value"][f] for f in ("string_value", "int_value",
                                                            "float_value", "double_value")))
                  for p in params]
        values.append((date, stamp, name, params, user,
                       (device["category"], device["operating_system"]),
                       [tuple(i[f] for f in GA4_ITEM) for i in items]))
    run("INSERT INTO ga4_export VALUES " + ", ".join(_row(r) for r in values))


def _ga4_expected(k: int, attributed: set[tuple] | None = None) -> dict[str, float]:
    return test_ga4._ndcg(test_ga4._grades(test_ga4.ATTRIBUTED if attributed is None
                                           else attributed), k)


def _load_ga4(con: duckdb.DuckDBPyConnection, name: str, rows: list[list[object]]) -> None:
    con.execute(f"CREATE OR REPLACE TABLE {name} ({test_ga4.SCHEMA})")
    con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def _adapter_report(con: duckdb.DuckDBPyConnection, rankings: str, events: str,
                    ks: tuple[int, ...] = KS) -> dict[tuple[str, int], float]:
    """ndcg_report over the DuckDB adapters' two calls (SQL text of this test)."""
    con.execute(f"CREATE OR REPLACE TABLE shown AS SELECT * FROM {rankings}")
    con.execute(f"CREATE OR REPLACE TABLE events AS SELECT * FROM {events}")
    return {(q, k): v for q, k, v in con.sql(
        "SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', k := $ks)",
        params={"ks": list(ks)}).fetchall()}


def _portable(con: duckdb.DuckDBPyConnection, **arguments: Any) -> dict[tuple[str, int], float]:
    return _by_query(con.sql(events_to_sql("duckdb", k=list(KS), **arguments)).fetchall())


def _approx(values: dict) -> dict:
    return {key: pytest.approx(v, abs=1e-12) for key, v in values.items()}


def _ev(second: int, name: str, items: list[dict], user: str = "u3", session: int = 31,
        term: str | None = None) -> list[object]:
    return test_ga4._event(second, name, user, session, "mobile", term=term, items=items)


def test_options_and_bad_input_equal_the_adapters(ubi_duckdb: duckdb.DuckDBPyConnection,
                                                  check_cases) -> None:
    """Each option of the portable adapters gives ndcg_report's numbers over the DuckDB adapters
    called with the same option; bad input is an engine error naming the field, never another
    number; what portable mode cannot read is refused in one line."""
    con = ubi_duckdb
    _load_ga4(con, "ga4_export", test_ga4._export())
    item = test_ga4._item

    def ga4(options: str, source_options: dict, shown: str = "") -> None:
        expected = _adapter_report(con, f"ga4_rankings('ga4_export'{shown})",
                                   f"ga4_events('ga4_export'{options})")
        got = _portable(con, rankings="ga4_export", source="ga4", source_options=source_options)
        assert got == _approx(expected)

    def ubi(options: str, source_options: dict) -> None:
        expected = _adapter_report(con, f"ubi_rankings('ubi_queries', 'ubi_events'{options})",
                                   f"ubi_events('ubi_queries', 'ubi_events'{options})")
        got = _portable(con, rankings="ubi_queries", events="ubi_events", source="ubi",
                        source_options=source_options)
        assert got == _approx(expected)

    def first() -> None:  # b's purchase goes to S1 (hand-made: test_ga4's 'first' case)
        swapped = test_ga4.ATTRIBUTED - {(test_ga4.S2, "b", "purchase", "purchase", 25.0, 1)} | {
            (test_ga4.S1, "b", "purchase", "purchase", 25.0, 2)}
        hand = {(q, k): v for k in KS for q, v in _ga4_expected(k, swapped).items()}
        got = _portable(con, rankings="ga4_export", source="ga4",
                        source_options={"attribution": "first"})
        assert got == _approx(hand)
        ga4(", attribution := 'first'", {"attribution": "first"})

    def bad(rows: list[list[object]], message: str, **options: object) -> None:
        _load_ga4(con, "ga4_bad", rows)
        with pytest.raises(duckdb.Error, match=re.escape(message)):
            _portable(con, rankings="ga4_bad", source="ga4", source_options=options or None)

    search = _ev(0, "view_search_results", [], term="socks")
    cases = [
        ("ga4 first", first),
        ("ga4 windows", lambda: ga4(
            ", attribution_window := MAP {'select_item': INTERVAL 30 MINUTE, "
            "'purchase': INTERVAL 3 DAY}",
            {"attribution_window": {"select_item": timedelta(minutes=30),
                                    "purchase": timedelta(days=3)}})),
        ("ga4 one window", lambda: ga4(", attribution_window := INTERVAL 12 HOUR",
                                       {"attribution_window": timedelta(hours=12)})),
        ("ga4 base 0", lambda: ga4(", position_base := 0", {"position_base": 0},
                                   ", position_base := 0")),
        ("ga4 event_types", lambda: ga4(
            ", event_types := MAP {'view_item': 'impression', 'select_item': 'click'}",
            {"event_types": {"view_item": "impression", "select_item": "click"}})),
        ("ga4 base 1", lambda: bad(test_ga4._export(), "item_list_index 0 in a search read as "
                                   "1-based (position_base := 1)", position_base=1)),
        ("ga4 index abc", lambda: bad(
            [search, _ev(1, "view_item_list", [item("a", "abc")])],
            "item_list_index must be a whole number >= 0 or '(not set)', got abc")),
        ("ga4 seconds", lambda: bad(
            [[*search[:1], 1_700_000_000, *search[2:]]],
            "event_timestamp must be microseconds since 1970, got 1700000000")),
        ("ga4 item twice", lambda: bad(
            [search, _ev(1, "view_item_list", [item("a", "0"), item("b", "1")]),
             _ev(2, "view_item_list", [item("c", "0"), item("a", "1")])],
            "an item shown twice in one search")),
        # absolute 1-based pages 1-2, 3-4, then a page starting again: ga4_rankings' scan
        # continues it at 5, 6; portable SQL has no scan and refuses the search
        ("ga4 mixed pages", lambda: bad(
            [search, _ev(1, "view_item_list", [item("a", "1"), item("b", "2")]),
             _ev(2, "view_item_list", [item("c", "3"), item("d", "4")]),
             _ev(3, "view_item_list", [item("e", "1"), item("f", "2")])],
            "a GA4 search mixes pages with absolute item_list_index and pages starting again")),
        ("ubi base 0", lambda: ubi(", position_base := 0", {"position_base": 0})),
        ("ubi event_types", lambda: ubi(
            ", event_types := MAP {'click_through': 'click', 'impression': 'impression'}",
            {"event_types": {"click_through": "click", "impression": "impression"}})),
    ]

    def ubi_base_one() -> None:
        with pytest.raises(duckdb.Error, match=re.escape(
                "ordinal 0 read as 1-based (position_base := 1)")):
            _portable(con, rankings="ubi_queries", events="ubi_events", source="ubi",
                      source_options={"position_base": 1})

    def refused() -> None:
        for arguments, message in [
            ({"source_options": {"list_name": "search results"}},
             "source_options list_name: not in portable mode for source='ga4'"),
            ({"dialect": "postgres"}, "source='ga4' needs nested arrays and structs"),
            ({"slice_by": ["device"]}, "slice_by: not with source='ga4'"),
            ({"events": "e"}, "source='ga4' reads one export: give it as rankings"),
            ({"source_options": {"attribution": "middle"}},
             "attribution must be 'last' or 'first', got 'middle'"),
            ({"source_options": {"attribution_window": "1 day"}},
             "attribution_window must be a timedelta >= 0 or a dict"),
            ({"source_options": {"position_base": 0.0}},
             "position_base must be 'auto', 0 or 1, got 0.0"),
        ]:
            given = {"dialect": "duckdb", "rankings": "x", "source": "ga4", **arguments}
            with pytest.raises(ValueError, match=re.escape(message)):
                events_to_sql(given.pop("dialect"), **given)

    check_cases([*cases, ("ubi base 1", ubi_base_one), ("refused", refused)])


def test_ga4_on_duckdb_and_clickhouse(con: duckdb.DuckDBPyConnection, tmp_path: Path,
                                      chdb_run: Callable[[str], list[Row]]) -> None:
    """The portable GA4 pipeline (searches and their pages: '(not set)', 0- and 1-based,
    absolute and restarting pages, a list sent twice; attribution 'last' within 1 day by
    running windows and ROW_NUMBER) on DuckDB (the Parquet export) and ClickHouse: the hand-made
    NDCG of every search, and ga4_rankings/ga4_events + ndcg_report's; then on ClickHouse 'first' with
    per-type windows."""
    path = tmp_path / "export.parquet"
    con.execute(f"CREATE TABLE raw ({test_ga4.SCHEMA})")
    con.executemany("INSERT INTO raw VALUES (?, ?, ?, ?, ?, ?, ?)", test_ga4._export())
    con.execute(f"COPY raw TO '{path}' (FORMAT parquet)")
    con.execute(f"CREATE VIEW ga4_export AS SELECT * FROM read_parquet('{path}')")
    con.execute("CREATE TABLE shown AS SELECT * FROM ga4_rankings('ga4_export')")
    con.execute("CREATE TABLE events AS SELECT * FROM ga4_events('ga4_export')")
    report = {(q, k): v for q, k, v in con.sql(
        "SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', k := [2, 10])").fetchall()}
    expected = {(q, k): v for k in KS for q, v in _ga4_expected(k).items()}
    assert report == {key: pytest.approx(v, abs=1e-12) for key, v in expected.items()}
    _ga4_clickhouse(chdb_run, test_ga4._export())
    for dialect, run in (("duckdb", lambda sql: con.sql(sql).fetchall()),
                         ("clickhouse", chdb_run)):
        sql = events_to_sql(dialect, rankings="ga4_export", source="ga4", k=list(KS))
        assert _by_query(run(sql)) == _approx(report), dialect
    # ClickHouse with 'first' and a window per event type: the adapters' numbers, and DuckDB's
    options = {"attribution": "first", "attribution_window": {
        "select_item": timedelta(minutes=30), "purchase": timedelta(days=3)}}
    expected = _adapter_report(
        con, "ga4_rankings('ga4_export')",
        "ga4_events('ga4_export', attribution := 'first', attribution_window := "
        "MAP {'select_item': INTERVAL 30 MINUTE, 'purchase': INTERVAL 3 DAY})")
    assert expected != report
    got = _by_query(chdb_run(events_to_sql("clickhouse", rankings="ga4_export", source="ga4",
                                           k=list(KS), source_options=options)))
    assert got == _approx(expected)


GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "portable_sources"
# the golden statements (reviewed by hand: BigQuery's UNNEST(x) AS e WITH OFFSET AS o, 0-based,
# the parameter read by a subquery over UNNEST(event_params), STRING_AGG(... ORDER BY), ERROR(),
# REGEXP_CONTAINS; the attribution running windows and ROW_NUMBER, no ASOF JOIN). sqlglot 30.30
# transpiles BigQuery's 0-based WITH OFFSET to DuckDB's 1-based WITH ORDINALITY unchanged
# (positions move by one), so the statement is not run on DuckDB after transpiling: each engine's idiom is written
# for it and run above.
BIGQUERY = {
    "ga4_bigquery.sql": {"rankings": "analytics.events_20231114", "source": "ga4"},
    "ubi_bigquery.sql": {"rankings": "ubi.ubi_queries", "events": "ubi.ubi_events",
                         "source": "ubi"},
}


@pytest.mark.parametrize("name", sorted(BIGQUERY))
def test_bigquery_golden(name: str) -> None:
    golden = (GOLDEN / name).read_text(encoding="utf-8").rstrip("\n")
    assert events_to_sql("bigquery", k=10, pretty=True, **BIGQUERY[name]) == golden
    assert sqlglot.transpile(golden, read="bigquery", write="bigquery", pretty=True)[0] == golden
    assert "ASOF" not in golden.upper()
    assert "WITH OFFSET AS" in golden


def _readme_section() -> str:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^### Portable SQL from GA4 and UBI exports\n(.*?)(?=^##)", text,
                      re.MULTILINE | re.DOTALL)
    assert found, "README has no section '### Portable SQL from GA4 and UBI exports'"
    return found.group(1)


def test_readme_recipe_and_cli(con: duckdb.DuckDBPyConnection,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """The README's recipe as written on test_ga4's export: the NDCG of ga4_rankings +
    ga4_events with the same options + ndcg_report; its shell line prints the golden BigQuery
    statement; its other calls give statements."""
    recipe = re.search(r"```python\n(.*?)```", _readme_section(), re.DOTALL)
    assert recipe, "the section has no Python recipe"
    _load_ga4(con, "ga4_export", test_ga4._export())
    scope: dict[str, Any] = {"con": con}
    exec(recipe.group(1), scope)  # noqa: S102 -- the README's own recipe
    expected = _adapter_report(
        con, "ga4_rankings('ga4_export')",
        "ga4_events('ga4_export', attribution := 'first', attribution_window := "
        "MAP {'select_item': INTERVAL 30 MINUTE})", ks=(5, 10))
    got = {(row[0], k): row[1 + i] for row in scope["rows"] for i, k in enumerate((5, 10))}
    assert got == _approx(expected)
    assert "WITH OFFSET" in scope["bigquery"] and "ARRAY JOIN" in scope["clickhouse"]
    line = re.search(r"```sh\n(duckdb-ndcg sql events [^\n]*)\n```", _readme_section())
    assert line, "the section has no duckdb-ndcg sql line"
    assert cli.main(line.group(1).split()[1:]) == 0
    golden = (GOLDEN / "ga4_bigquery.sql").read_text(encoding="utf-8")
    assert capsys.readouterr().out == golden
    assert cli.main(["sql", "events", "--dialect", "clickhouse", "--source", "ubi"]) == 0
    assert capsys.readouterr().out.strip() == events_to_sql(
        "clickhouse", rankings="ubi_queries", events="ubi_events", source="ubi")
