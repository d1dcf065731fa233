"""The GA4 adapter (issue 22): ga4_rankings, ga4_events and ga4_unattributed read a GA4 BigQuery
export as it lands in DuckDB (nested event_params and items, written to Parquet and read back; the
NDJSON form with INT64 as text) and give the report family its rankings and events.

Oracles: the positions and attributions below are worked out by hand from the export (each case
says why), and NDCG per search is scikit-learn's ndcg_score on the hand-made grades (every graded
item is shown, so its ideal is the report's)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC, in seconds; the export holds microseconds
DAY = 86_400

SCHEMA = (
    "event_date VARCHAR, event_timestamp BIGINT, event_name VARCHAR, "
    "event_params STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, "
    "float_value DOUBLE, double_value DOUBLE))[], user_pseudo_id VARCHAR, "
    "device STRUCT(category VARCHAR, operating_system VARCHAR), "
    "items STRUCT(item_id VARCHAR, item_name VARCHAR, price DOUBLE, quantity BIGINT, "
    "item_revenue DOUBLE, item_list_id VARCHAR, item_list_name VARCHAR, "
    "item_list_index VARCHAR)[]"
)


def _param(key: str, text: str | None = None, number: int | None = None) -> dict:
    value = {"string_value": text, "int_value": number, "float_value": None, "double_value": None}
    return {"key": key, "value": value}


def _item(item_id: str | None, index: str | None = None, price: float | None = None,
          quantity: int | None = None, revenue: float | None = None) -> dict:
    return {"item_id": item_id, "item_name": None, "price": price, "quantity": quantity,
            "item_revenue": revenue, "item_list_id": None, "item_list_name": "search results",
            "item_list_index": index}


def _event(second: int, name: str, user: str | None, session: int, device: str,
           term: str | None = None, items: list[dict] | None = None) -> list[object]:
    params = [_param("ga_session_id", number=session), _param("engagement_time_msec", number=9)]
    if term is not None:
        params.append(_param("search_term", text=term))
    date = "20231114" if second < 6_000 else "20231115"
    return [date, (T0 + second) * 1_000_000, name, params, user,
            {"category": device, "operating_system": "Android"}, items or []]


def _export() -> list[list[object]]:
    """The export: every rule of ga4_rankings and ga4_events once (times in seconds after T0)."""
    u1 = lambda s, name, **kw: _event(s, name, "u1", 11, "mobile", **kw)
    u2 = lambda s, name, **kw: _event(s, name, "u2", 21, "desktop", **kw)
    return [
        # a list view before any search of the session: shows nothing in a search
        u1(-50, "view_item_list", items=[_item("x", "0")]),
        u1(-40, "select_item", items=[_item("x")]),                       # never shown
        # S1 'shoes': 0-based indexes ('auto'), the first page sent twice, page 2 restarting
        u1(0, "view_search_results", term="shoes"),
        u1(1, "view_item_list", items=[_item("a", "0"), _item("b", "1"), _item("c", "2")]),
        u1(2, "view_item_list", items=[_item("a", "0"), _item("b", "1"), _item("c", "2")]),
        u1(3, "view_item_list", items=[_item("d", "0"), _item("e", "1")]),  # -> positions 4, 5
        u1(10, "select_item", items=[_item("e", "1")]),                   # S1, position 5
        u1(20, "add_to_cart", items=[_item("b", price=10.0, quantity=2)]),  # S1, 2, value 20
        # S2 'shoes' again: a new search; 1-based absolute indexes, page 2 keeps them
        u1(100, "view_search_results", term="shoes"),
        u1(101, "view_item_list", items=[_item("b", "1"), _item("f", "2"), _item("a", "3")]),
        u1(102, "view_item_list", items=[_item("g", "4"), _item("h", "5")]),
        # b: last showing S2 position 1, first showing S1 position 2; z was never shown
        u1(110, "purchase", items=[_item("b", revenue=25.0), _item("z", revenue=5.0)]),
        u1(120, "select_item", items=[_item("h", "5")]),                  # S2, position 5
        u1(130, "view_item", items=[_item("b")]),                         # unknown event
        # S3 'boots': indexes '(not set)' and NULL, so each page takes its list's order
        u1(200, "view_search_results", term="boots"),
        u1(201, "view_item_list", items=[_item("k", "(not set)"), _item("m", None),
                                         _item("n", "(not set)")]),
        u1(202, "view_item_list", items=[_item("p", "(not set)"), _item("q", "(not set)")]),
        u1(205, "select_item", items=[_item("m")]),                       # S3, position 2
        # u1 the next day in another session: attributed by user, not session (c: S1, 3)
        _event(50_000, "add_to_cart", "u1", 12, "mobile",
               items=[_item("c", price=7.0, quantity=1)]),
        # S4 'hat' of u2
        u2(1_000, "view_search_results", term="hat"),
        u2(1_001, "view_item_list", items=[_item("r", "0"), _item("s", "1")]),
        u2(2_802, "select_item", items=[_item("r")]),  # 30 min 1 s after the showing: S4, 1
        u2(1_001 + 2 * DAY, "purchase", items=[_item("s", revenue=9.0)]),  # outside 1 day
        u2(1_500, "add_to_cart", items=[_item(None, price=1.0)]),            # no item
        _event(1_600, "select_item", None, 99, "tablet", items=[_item("r")]),  # no user
        _event(1_700, "session_start", "u2", 21, "desktop"),  # carries no items: not counted
    ]


def _q(user: str, session: int, second: int) -> str:
    return f"{user}/{session}/{(T0 + second) * 1_000_000}"


S1, S2, S3, S4 = _q("u1", 11, 0), _q("u1", 11, 100), _q("u1", 11, 200), _q("u2", 21, 1_000)
SHOWN = {  # query -> items in position order (positions 1..n), worked out in _export's comments
    S1: ["a", "b", "c", "d", "e"],
    S2: ["b", "f", "a", "g", "h"],
    S3: ["k", "m", "n", "p", "q"],
    S4: ["r", "s"],
}
# (query, item, event_type, event_name, value, position) with the defaults: last, 1 day
ATTRIBUTED = {
    (S1, "e", "click", "select_item", None, 5),
    (S1, "b", "add_to_cart", "add_to_cart", 20.0, 2),
    (S2, "b", "purchase", "purchase", 25.0, 1),
    (S2, "h", "click", "select_item", None, 5),
    (S3, "m", "click", "select_item", None, 2),
    (S1, "c", "add_to_cart", "add_to_cart", 7.0, 3),
    (S4, "r", "click", "select_item", None, 1),
}
UNATTRIBUTED = {
    ("x", "select_item", "never shown"),
    ("z", "purchase", "never shown"),
    ("b", "view_item", "unknown event"),
    ("s", "purchase", "outside the window"),
    (None, "add_to_cart", "no item"),
    ("r", "select_item", "no user"),
}
GRADES = {"click": 1, "add_to_cart": 2, "purchase": 3}  # ndcg_report's default mapping


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export written to Parquet (as BigQuery exports it), its path."""
    path = tmp_path_factory.mktemp("ga4") / "events_20231114.parquet"
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE raw ({SCHEMA})")
        con.executemany("INSERT INTO raw VALUES (?, ?, ?, ?, ?, ?, ?)", _export())
        con.execute(f"COPY raw TO '{path}' (FORMAT parquet)")
    return path


@pytest.fixture
def ga4(con: duckdb.DuckDBPyConnection, export: Path) -> duckdb.DuckDBPyConnection:
    con.execute(f"CREATE VIEW ga4_export AS SELECT * FROM read_parquet('{export}')")
    return con


def _rankings(con: duckdb.DuckDBPyConnection, options: str = "") -> dict[str, list[str]]:
    rows = con.sql(f"SELECT query_id, item_id, position FROM ga4_rankings('ga4_export'{options}) "
                   "ORDER BY query_id, position").fetchall()
    found: dict[str, list[str]] = {}
    for query, item, position in rows:
        found.setdefault(query, []).append(item)
        assert position == len(found[query]), (query, item, position)
    return found


def _ndcg(grades_by_query: dict[str, list[float]], k: int) -> dict[str, float]:
    """scikit-learn's NDCG@k of each query's grades in shown order."""
    return {q: float(ndcg_score([g], [list(range(len(g), 0, -1))], k=k))
            for q, g in grades_by_query.items()}


def _grades(attributed: set[tuple]) -> dict[str, list[float]]:
    best: dict[tuple[str, str], float] = {}
    for query, item, event_type, *_ in attributed:
        best[query, item] = max(best.get((query, item), 0), GRADES[event_type])
    return {q: [best.get((q, i), 0.0) for i in items] for q, items in SHOWN.items()}


@pytest.mark.versions
def test_rankings_events_and_report(ga4: duckdb.DuckDBPyConnection) -> None:
    """Positions, slices, attributions and NDCG of every search, on each DuckDB version."""
    assert _rankings(ga4) == SHOWN
    slices = ga4.sql("SELECT DISTINCT query_id, search_term, device, event_date::VARCHAR "
                     "FROM ga4_rankings('ga4_export') ORDER BY ALL").fetchall()
    assert slices == [(S1, "shoes", "mobile", "2023-11-14"), (S2, "shoes", "mobile", "2023-11-14"),
                      (S3, "boots", "mobile", "2023-11-14"), (S4, "hat", "desktop", "2023-11-14")]
    events = set(ga4.sql("SELECT query_id, item_id, event_type, event_name, value, position "
                         "FROM ga4_events('ga4_export')").fetchall())
    assert events == ATTRIBUTED
    missed = set(ga4.sql("SELECT item_id, event_name, reason "
                         "FROM ga4_unattributed('ga4_export')").fetchall())
    assert missed == UNATTRIBUTED
    ga4.execute("CREATE TABLE shown AS SELECT * FROM ga4_rankings('ga4_export')")
    ga4.execute("CREATE TABLE events AS SELECT * FROM ga4_events('ga4_export')")
    report = ga4.sql("SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', k := [3, 10])"
                     ).fetchall()
    expected = {(q, k): v for k in (3, 10) for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in report} == expected


def test_options(ga4: duckdb.DuckDBPyConnection, check_cases) -> None:
    """attribution 'first', per-type windows, position_base 0 and 1, list_name, event_types."""

    def events(options: str) -> set[tuple]:
        return set(ga4.sql("SELECT query_id, item_id, event_type, event_name, value, position "
                           f"FROM ga4_events('ga4_export'{options})").fetchall())

    def reasons(options: str) -> set[tuple]:
        return set(ga4.sql("SELECT item_id, event_name, reason "
                           f"FROM ga4_unattributed('ga4_export'{options})").fetchall())

    def first() -> None:  # b's purchase goes to its first showing of the day: S1, position 2
        swapped = ATTRIBUTED - {(S2, "b", "purchase", "purchase", 25.0, 1)}
        assert events(", attribution := 'first'") == swapped | {
            (S1, "b", "purchase", "purchase", 25.0, 2)}

    def windows() -> None:  # r's click 30 min 1 s late drops; s's purchase 2 days late counts
        window = ", attribution_window := MAP {'select_item': INTERVAL 30 MINUTE, " \
                 "'purchase': INTERVAL 3 DAY}"
        assert events(window) == ATTRIBUTED - {(S4, "r", "click", "select_item", None, 1)} | {
            (S4, "s", "purchase", "purchase", 9.0, 2)}
        assert ("r", "select_item", "outside the window") in reasons(window)
        # one INTERVAL for every type: c's add_to_cart 13.9 hours after S1 drops at 12 hours
        assert ("c", "add_to_cart", "outside the window") in reasons(
            ", attribution_window := INTERVAL 12 HOUR")

    def base_zero() -> None:  # S2's indexes 1..5 read as 0-based are positions 2..6
        positions = dict(ga4.sql("SELECT item_id, position FROM ga4_rankings('ga4_export', "
                                 f"position_base := 0) WHERE query_id = '{S2}'").fetchall())
        assert positions == {"b": 2, "f": 3, "a": 4, "g": 5, "h": 6}
        s1 = ga4.sql("SELECT item_id FROM ga4_rankings('ga4_export', position_base := 0) "
                     f"WHERE query_id = '{S1}' ORDER BY position").fetchall()
        assert [i for (i,) in s1] == SHOWN[S1]

    def base_one() -> None:  # S1 has an index 0: an error naming it
        with pytest.raises(duckdb.Error, match=r"item_list_index 0 in a search read as 1-based"):
            _rankings(ga4, ", position_base := 1")

    def list_name() -> None:
        assert _rankings(ga4, ", list_name := 'search results'") == SHOWN
        assert _rankings(ga4, ", list_name := 'related'") == {}

    def event_types() -> None:  # view_item graded as 'impression'; purchases left out
        types = ", event_types := MAP {'view_item': 'impression', 'select_item': 'click'}"
        found = events(types)
        assert (S2, "b", "impression", "view_item", None, 1) in found
        assert {e[3] for e in found} == {"view_item", "select_item"}
        assert ("b", "purchase", "unknown event") in reasons(types)

    check_cases([("first", first), ("windows", windows), ("base 0", base_zero),
                 ("base 1", base_one), ("list_name", list_name), ("event_types", event_types)])


def test_ndjson_with_int64_as_text(con: duckdb.DuckDBPyConnection, export: Path,
                                   tmp_path: Path) -> None:
    """BigQuery's JSON export writes INT64 as text: read back from NDJSON, the same results."""
    path = tmp_path / "events.json"
    con.execute(f"COPY (SELECT * REPLACE (event_timestamp::VARCHAR AS event_timestamp, "
                f"list_transform(event_params, lambda p: {{'key': p.key, 'value': "
                f"{{'string_value': p.value.string_value, 'int_value': p.value.int_value::VARCHAR, "
                f"'float_value': p.value.float_value, 'double_value': p.value.double_value}}}}) "
                f"AS event_params) FROM read_parquet('{export}')) TO '{path}' (FORMAT json)")
    con.execute(f"CREATE VIEW ga4_export AS SELECT * FROM read_json('{path}')")
    assert con.sql("SELECT typeof(event_timestamp) FROM ga4_export LIMIT 1").fetchall() == [(
        "VARCHAR",)]
    assert _rankings(con) == SHOWN
    assert set(con.sql("SELECT query_id, item_id, event_type, event_name, value, position "
                       "FROM ga4_events('ga4_export')").fetchall()) == ATTRIBUTED


def _indexes(value: str) -> str:
    """The export's items with every item_list_index that is set replaced by ``value``."""
    fields = ", ".join(f"'{f}': i.{f}" for f in (
        "item_id", "item_name", "price", "quantity", "item_revenue", "item_list_id",
        "item_list_name"))
    return (f"list_transform(items, lambda i: {{{fields}, 'item_list_index': "
            f"CASE WHEN i.item_list_index IS NOT NULL THEN '{value}' END}}) AS items")


BOTH = ("ga4_rankings", "ga4_events")
BAD = [  # (case, a column of the export replaced, the error, the macros reading that column)
    ("index abc", _indexes("abc"),
     r"item_list_index must be a whole number >= 0 or '\(not set\)', got 'abc'", BOTH),
    ("index -1", _indexes("-1"),
     r"item_list_index must be a whole number >= 0 or '\(not set\)', got '-1'", BOTH),
    # the seconds of whichever bad row the scan meets first
    ("seconds", "event_timestamp // 1000000 AS event_timestamp",
     r"event_timestamp must be microseconds since 1970, got 1[67][0-9]{8}, .*seconds or milli",
     BOTH),
    ("timestamp type", "make_timestamp(event_timestamp) AS event_timestamp",
     r"event_timestamp must be GA4's INT64 microseconds since 1970, got 2023-.*\(TIMESTAMP\)", BOTH),
    ("event_date", "'14/11/2023' AS event_date",
     r"event_date must be GA4's 'YYYYMMDD' text or a DATE, got '14/11/2023'",
     ("ga4_rankings",)),  # ga4_events does not read event_date
]


def _bad_cases(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, object]]:
    for name, change, message, macros in BAD:
        def check(change: str = change, message: str = message, macros: tuple = macros) -> None:
            con.execute("DROP TABLE IF EXISTS broken")
            con.execute(f"CREATE TABLE broken AS SELECT * REPLACE ({change}) FROM ga4_export")
            for macro in macros:
                with pytest.raises(duckdb.Error, match=message) as raised:
                    con.sql(f"SELECT * FROM {macro}('broken')").fetchall()
                assert "\n" not in str(raised.value), str(raised.value)
        yield name, check

    def missing() -> None:
        con.execute("DROP TABLE IF EXISTS broken")
        con.execute("CREATE TABLE broken AS SELECT * EXCLUDE (items) FROM ga4_export")
        with pytest.raises(duckdb.Error, match=r'"items"'):
            con.sql("SELECT * FROM ga4_rankings('broken')").fetchall()
    yield "missing items", missing

    def options() -> None:
        for option, message in [
            ("attribution := 'latest'", "attribution must be 'last' or 'first', got 'latest'"),
            ("position_base := 2", "position_base must be 'auto' or 0 or 1, got 2"),
            ("attribution_window := 'soon'", "attribution_window must be an INTERVAL or a MAP"),
            ("event_types := 3", "event_types must be a MAP from GA4 event name to event type"),
        ]:
            with pytest.raises(duckdb.Error, match=re.escape(message)):
                con.sql(f"SELECT * FROM ga4_events('ga4_export', {option})").fetchall()
    yield "options", options


def test_bad_input(ga4: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each a one-line error naming the field or option."""
    check_cases(_bad_cases(ga4))


def readme_recipe() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### From GA4 and UBI exports\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### From GA4 and UBI exports'"
    block = re.search(r"```sql\n-- GA4\n(.*?)```", section.group(1), re.DOTALL)
    assert block, "the section has no GA4 recipe"
    return [s.strip() for s in block.group(1).split(";") if s.strip()]


def test_readme_recipe(con: duckdb.DuckDBPyConnection, export: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's GA4 recipe, as written, on the export; then evaluate() on the same views."""
    monkeypatch.chdir(export.parent)
    results = [con.sql(statement) for statement in readme_recipe()]
    summary, unattributed = [r for r in results if r is not None][-2:]
    expected = _ndcg(_grades(ATTRIBUTED), 10)
    by_device: dict[str, list[float]] = {}
    for query, value in expected.items():
        by_device.setdefault("desktop" if query == S4 else "mobile", []).append(value)
    rows = summary.fetchall()
    columns = summary.columns
    got = {r[columns.index("device")]: r[columns.index("mean_ndcg")]
           for r in rows if r[columns.index("k")] == 10}
    assert got == {d: pytest.approx(sum(v) / len(v), abs=1e-12) for d, v in by_device.items()}
    counts = {(reason, name): n for reason, name, n in unattributed.fetchall()}
    assert sum(counts.values()) == len(UNATTRIBUTED)
    assert counts[("never shown", "select_item")] == 1
    report = duckdb_ndcg.evaluate("shown", "events", k=10, con=con).fetchall()
    assert {r[0]: pytest.approx(r[2], abs=1e-12) for r in report} == expected


def test_cli_reads_the_adapters_output(ga4: duckdb.DuckDBPyConnection, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The adapters' tables written to Parquet, then `duckdb-ndcg evaluate` on them: unchanged."""
    shown, events, out = tmp_path / "shown.parquet", tmp_path / "events.parquet", tmp_path / "r.csv"
    ga4.execute(f"COPY (SELECT * FROM ga4_rankings('ga4_export')) TO '{shown}'")
    ga4.execute(f"COPY (SELECT * FROM ga4_events('ga4_export')) TO '{events}'")
    code = cli.main(["evaluate", str(shown), str(events), "--k", "3,10", "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    got = ga4.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    expected = {(q, k): v for k in (3, 10) for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in got} == expected


def test_evaluate_reads_the_export_itself(export: Path) -> None:
    """evaluate(export, source='ga4'): the report of the two adapters' tables, with a warning
    counting by reason the interactions that could not be attributed (5 of 12: the view_item
    event is of a type GA4's adapter does not read, left out of the share)."""
    warning = (r"^ga4: 5 of 12 interactions \(41 %\) could not be attributed to a search and are "
               r"not graded \(never shown 2, no item 1, no user 1, outside the window 1\); list "
               r"them: SELECT \* FROM ga4_unattributed\('.*events_20231114\.parquet'\)$")
    with pytest.warns(UserWarning, match=warning):
        report = duckdb_ndcg.evaluate(str(export), source="ga4", k=[3, 10]).fetchall()
    expected = {(q, k): v for k in (3, 10) for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}
    assert {(r[0], r[1]): pytest.approx(r[2], abs=1e-12) for r in report} == expected
    with pytest.warns(UserWarning, match="^ga4: "):
        summary = duckdb_ndcg.evaluate(str(export), source="ga4", k=10, shape="summary",
                                       slice_by=["device"]).fetchall()
    by_device = {"mobile": [S1, S2, S3], "desktop": [S4]}
    want = _ndcg(_grades(ATTRIBUTED), 10)
    assert {(r[0], r[2]) for r in summary} == {("mobile", 3), ("desktop", 1)}
    for device, _k, _n, mean, *_ in summary:
        assert mean == pytest.approx(sum(want[q] for q in by_device[device]) / len(by_device[device]))


def test_evaluate_takes_the_adapters_options(con: duckdb.DuckDBPyConnection, export: Path) -> None:
    """source_options are the adapters' options, as SQL takes them: the same report as the views
    of ga4_rankings and ga4_events called with them (a quote in a value stays text)."""
    options = {"attribution": "first", "attribution_window": "2 days", "position_base": 0}
    con.execute(f"CREATE VIEW ga4_export AS SELECT * FROM read_parquet('{export}')")
    con.execute("CREATE VIEW shown AS FROM ga4_rankings('ga4_export', position_base := 0)")
    con.execute("CREATE VIEW events AS FROM ga4_events('ga4_export', attribution := 'first', "
                "attribution_window := '2 days', position_base := 0)")
    want = sorted(con.sql("SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events')").fetchall())
    with pytest.warns(UserWarning, match="^ga4: "):
        got = duckdb_ndcg.evaluate("ga4_export", source="ga4", source_options=options, con=con)
    assert sorted(got.select("query_id, k, ndcg").fetchall()) == want
    quoted = duckdb_ndcg.evaluate("ga4_export", source="ga4", con=con,
                                  source_options={"list_name": "it's; DROP TABLE x"})
    assert quoted.fetchall() == []  # no list of that name: nothing shown, nothing attributed


@pytest.mark.parametrize(("call", "message"), [
    ({"source": "nope"}, f"source must be one of {', '.join(SOURCES)}, got 'nope'"),
    ({"source": "ga4", "events": "other"}, "source 'ga4' reads 1 input (export), got 2"),
    ({"source": "ga4", "source_options": {"window": "1 day"}},
     ("source 'ga4' takes the options attribution, attribution_window, event_types, "
      "position_base, list_name; got 'window'")),
    ({"source_options": {"attribution": "first"}},
     f"source_options applies only with source ({', '.join(SOURCES)})"),
    ({}, "evaluate needs events (or source=... for a vendor's export)"),
    ({"source": "ga4", "source_options": {"attribution": "middle"}},
     "attribution must be 'last' or 'first', got 'middle'"),
])
def test_evaluate_source_errors(export: Path, call: dict, message: str) -> None:
    with pytest.raises((ValueError, duckdb.Error), match=re.escape(message)):
        duckdb_ndcg.evaluate(str(export), **call).fetchall()


def test_cli_source(export: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """duckdb-ndcg evaluate --source ga4 EXPORT: the export alone, the adapters' options as flags,
    the unattributed warning on stderr."""
    out = tmp_path / "r.csv"
    code = cli.main(["evaluate", str(export), "--source", "ga4", "--k", "3,10",
                     "--attribution", "last", "--output", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "ga4: 5 of 12 interactions (41 %) could not be attributed" in captured.err
    with duckdb.connect() as con:
        got = con.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    expected = {(q, k): v for k in (3, 10) for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in got} == expected
    for argv, message in [
        (["evaluate", str(export)], "EVENTS is missing (give the events, or --source ga4, "),
        (["evaluate", str(export), str(export), "--attribution", "first"],
         f"--attribution: applies only with --source ({', '.join(SOURCES)})"),
    ]:
        assert cli.main(argv) == 2
        assert message in capsys.readouterr().err


# evaluate(source=...) does the adapter's work once (issue 22's performance line), checked without
# timing: a spy on the connection EXPLAINs each statement evaluate runs before running it and
# counts in the plans the join that finds each list view's search (event_us >= search_us: an ASOF
# join, or a nested loop join on a small input): the shown-list step has exactly one, the
# attribution and the report none.
_READS = ("SELECT", "WITH", "CREATE TEMP TABLE", "FROM")


def _pages(node: dict) -> int:
    """How many operators of an EXPLAIN (FORMAT json) tree join list views to their search."""
    info = json.dumps(node.get("extra_info", {}))
    own = "event_us >= search_us" in info or "search_us <= event_us" in info
    return own + sum(_pages(child) for child in node.get("children", []))


class _Spy:
    """The connection, delegated, counting the shown-list steps in the plans of what it runs."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self.shown = 0

    def _count(self, query: object, params: object) -> None:
        text = str(query).lstrip().upper()
        if text.startswith(_READS):
            plan = self._con.execute(f"EXPLAIN (FORMAT json) {query}", params).fetchall()
            self.shown += sum(_pages(node) for row in plan for node in json.loads(row[1]))

    def execute(self, query: object, parameters: object = None, **kwargs: object) -> object:
        self._count(query, parameters)
        return self._con.execute(query, parameters, **kwargs)

    def sql(self, query: object, *, params: object = None, **kwargs: object) -> object:
        self._count(query, params)
        return self._con.sql(query, params=params, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._con, name)


def test_the_spy_sees_the_shown_list_step(export: Path) -> None:
    """The count it relies on: each public GA4 macro plans the shown-list step once
    (ga4_events and ga4_unattributed build the shown lists again inside)."""
    with duckdb.connect() as con:
        spy = _Spy(duckdb_ndcg.register(con))
        for macro in ("ga4_rankings", "ga4_events", "ga4_unattributed"):
            before = spy.shown
            spy.execute(f"SELECT count(*) FROM {macro}(?)", [str(export)]).fetchall()
            assert spy.shown == before + 1, macro


def test_evaluate_builds_the_shown_lists_once(export: Path) -> None:
    """evaluate(export, source='ga4') plans the shown-list step once (it planned it three times:
    ga4_rankings, ga4_events, ga4_unattributed), and reports what the hand-worked attribution
    gives, with the unattributed warning's counts unchanged."""
    with duckdb.connect() as con:
        spy = _Spy(duckdb_ndcg.register(con))
        with pytest.warns(UserWarning, match=r"^ga4: 5 of 12 interactions \(41 %\)"):
            report = duckdb_ndcg.evaluate(str(export), source="ga4", k=3, con=spy).fetchall()
        assert spy.shown == 1
    expected = _ndcg(_grades(ATTRIBUTED), 3)
    assert {r[0]: pytest.approx(r[2], abs=1e-12) for r in report} == expected


def test_the_summary_counts_the_unattributed(
    export: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """evaluate(source=..., shape='summary') and --summary end with ``unattributed``: the 5
    hand-counted interactions no search got (of 12), on every row, as they belong to no slice."""
    with pytest.warns(UserWarning, match=r"^ga4: 5 of 12 interactions"):
        summary = duckdb_ndcg.evaluate(
            str(export), source="ga4", k=[3, 10], shape="summary", slice_by=["device"]
        )
    rows = summary.fetchall()
    assert summary.columns[-1] == "unattributed" and len(rows) > 2
    assert {row[-1] for row in rows} == {5}
    assert [row[:2] for row in rows] == sorted(row[:2] for row in rows)  # the summary's order
    assert cli.main(["evaluate", str(export), "--source", "ga4", "--summary"]) == 0
    header, _, line = capsys.readouterr().out.splitlines()[:3]
    assert header.split()[-1] == "unattributed" and line.split()[-1] == "5"


def test_evaluate_measures_on_the_export(export: Path) -> None:
    """evaluate(export, source='ga4', measures=...): the adapters' tables judged and scored on
    measure strings, nDCG@3 and nDCG@10 per search equal to the hand numbers; the summary keeps
    its unattributed count (5, as above)."""
    with pytest.warns(UserWarning, match="^ga4: "):
        report = duckdb_ndcg.evaluate(str(export), source="ga4",
                                      measures="nDCG@3 nDCG@10").fetchall()
    expected = {(q, f"nDCG@{k}"): v for k in (3, 10)
                for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}
    assert {(q, m): pytest.approx(v, abs=1e-12) for q, m, v in report} == expected
    with pytest.warns(UserWarning, match="^ga4: "):
        rel = duckdb_ndcg.evaluate(str(export), source="ga4", measures="nDCG@10",
                                   shape="summary", slice_by=["device"])
    summary = rel.fetchall()
    assert rel.columns == ["device", "measure", "value", "queries", "unattributed"]
    want = _ndcg(_grades(ATTRIBUTED), 10)
    by_device = {"mobile": [S1, S2, S3], "desktop": [S4]}
    assert {r[0]: (r[2], r[3], r[4]) for r in summary} == {
        d: (pytest.approx(sum(want[q] for q in qs) / len(qs)), len(qs), 5)
        for d, qs in by_device.items()}
