"""The Segment ecommerce v2 adapter (issue 22): segment_rankings, segment_events and
segment_unattributed read Segment track calls as they land in DuckDB (Segment's raw JSON written
as NDJSON and read with read_json: nested properties.products[] and context) and give the report
family its rankings and events.

Oracles: the positions and attributions below are worked out by hand from the calls (each says
why), and NDCG per search is scikit-learn's ndcg_score on the hand-made grades (every graded item
is shown, so its ideal is the report's)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000  # 2023-11-14T22:13:20Z, in seconds
DAY = 86_400
_ids = iter(range(1, 1_000))


def _iso(second: int) -> str:
    return datetime.fromtimestamp(T0 + second, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _track(second: int, event: str, user: str | None, anonymous: str | None, device: str,
           properties: dict) -> dict:
    """One track call in Segment's raw JSON shape (the fields a warehouse or S3 export holds)."""
    return {"type": "track", "event": event, "userId": user, "anonymousId": anonymous,
            "messageId": f"ajs-{next(_ids)}", "timestamp": _iso(second),
            "sentAt": _iso(second), "receivedAt": _iso(second + 1),
            "context": {"device": {"type": device}, "library": {"name": "analytics.js"}},
            "properties": properties, "integrations": {}}


def _product(product_id: str | None, position: int | None = None, price: float | None = None,
             quantity: int | None = None) -> dict:
    found = {"product_id": product_id, "sku": f"sku-{product_id}", "position": position,
             "price": price, "quantity": quantity}
    return {k: v for k, v in found.items() if v is not None}


def _listed(list_id: str | None, *products: dict) -> dict:
    listed: dict = {"category": "Shoes", "products": list(products)}
    if list_id is not None:
        listed["list_id"] = list_id
    return listed


def _calls() -> list[dict]:
    """The calls: every rule of segment_rankings and segment_events once (times in seconds after
    T0). u1 is logged in (userId u1, anonymousId a1); 'anon-9' has only an anonymousId."""
    u1 = lambda s, event, props: _track(s, event, "u1", "a1", "mobile", props)
    anon = lambda s, event, props: _track(s, event, None, "anon-9", "tablet", props)
    calls = [
        # a list view before any search of u1: shows nothing in a search
        u1(-50, "Product List Viewed", _listed("search_results", _product("x", 0))),
        u1(-40, "Product Clicked", {"product_id": "x"}),                  # never shown
        # S1 'shoes': 0-based positions ('auto'), page 1 sent twice, page 2 restarting at 0,
        # then a 'recommended' list starting again: pages a b c | d e | y -> positions 1..6
        u1(0, "Products Searched", {"query": "shoes"}),
        u1(1, "Product List Viewed", _listed("search_results", _product("a", 0, 10.0),
                                             _product("b", 1, 10.0), _product("c", 2, 7.0))),
        u1(2, "Product List Viewed", _listed("search_results", _product("a", 0, 10.0),
                                             _product("b", 1, 10.0), _product("c", 2, 7.0))),
        u1(3, "Product List Viewed", _listed("search_results", _product("d", 0),
                                             _product("e", 1))),
        u1(5, "Product List Viewed", _listed("recommended", _product("y", 0))),
        u1(10, "Product Clicked", {"product_id": "e", "position": 1,
                                   "list_id": "search_results"}),        # S1, position 5
        u1(20, "Product Added", {"product_id": "b", "price": 10.0, "quantity": 2}),  # S1, 2, 20
        # S2 'boots': 1-based positions
        u1(100, "Products Searched", {"query": "boots"}),
        u1(101, "Product List Viewed", _listed("search_results", _product("f", 1),
                                               _product("b", 2), _product("g", 3))),
        # b: last showing S2 position 2 (value 12.5 x 2), first showing S1 position 2; z was
        # never shown
        u1(110, "Order Completed", {"order_id": "o1", "revenue": 30.0, "products": [
            _product("b", price=12.5, quantity=2), _product("z", price=5.0, quantity=1)]}),
        u1(130, "Product Viewed", {"product_id": "b"}),                   # unknown event
        u1(140, "Signed In", {"method": "password"}),   # no product, no type: not counted
        # u1 the next day: c's last showing is S1, position 3, 13.9 hours before
        u1(50_000, "Product Added", {"product_id": "c", "price": 7.0, "quantity": 1}),
        # S3 'hat' of an anonymous user: no positions, so the list's order r, s
        anon(1_000, "Products Searched", {"query": "hat"}),
        anon(1_001, "Product List Viewed", _listed(None, _product("r"), _product("s"))),
        anon(2_802, "Product Clicked", {"product_id": "r"}),  # 30 min 1 s after: S3, 1
        # anon-9 logs in as u3 and adds s: shown to its anonymousId, so S3, position 2
        _track(3_000, "Product Added", "u3", "anon-9", "tablet",
               {"product_id": "s", "price": 9.0, "quantity": 1}),
        anon(1_001 + 2 * DAY, "Order Completed", {"order_id": "o2", "products": [
            _product("s", price=9.0)]}),                                  # outside 1 day
        _track(1_500, "Product Added", "u2", None, "mobile", {"price": 1.0}),  # no item
        _track(1_600, "Product Clicked", None, None, "mobile", {"product_id": "r"}),  # no user
        # a page call: not a track call, left out
        {"type": "page", "name": "Home", "userId": "u1", "anonymousId": "a1",
         "messageId": "ajs-page", "timestamp": _iso(0), "properties": {"path": "/"},
         "context": {"device": {"type": "mobile"}}},
    ]
    # Segment delivers at least once: the order o1 and the search S2 arrive twice (same
    # messageId, received later), each one message
    repeated = [c for c in calls if c["properties"].get("order_id") == "o1"
                or c["properties"].get("query") == "boots"]
    return calls + [c | {"receivedAt": _iso(9_000)} for c in repeated]


def _q(user: str, second: int) -> str:
    return f"{user}/{(T0 + second) * 1_000_000}"


S1, S2, S3 = _q("u1", 0), _q("u1", 100), _q("anon-9", 1_000)
SHOWN = {S1: ["a", "b", "c", "d", "e", "y"], S2: ["f", "b", "g"], S3: ["r", "s"]}
# (query, item, event_type, event_name, value, position) with the defaults: last, 1 day
ATTRIBUTED = {
    (S1, "e", "click", "Product Clicked", None, 5),
    (S1, "b", "add_to_cart", "Product Added", 20.0, 2),
    (S2, "b", "purchase", "Order Completed", 25.0, 2),
    (S1, "c", "add_to_cart", "Product Added", 7.0, 3),
    (S3, "r", "click", "Product Clicked", None, 1),
    (S3, "s", "add_to_cart", "Product Added", 9.0, 2),
}
UNATTRIBUTED = {
    ("x", "Product Clicked", "never shown"),
    ("z", "Order Completed", "never shown"),
    ("b", "Product Viewed", "unknown event"),
    ("s", "Order Completed", "outside the window"),
    (None, "Product Added", "no item"),
    ("r", "Product Clicked", "no user"),
}
GRADES = {"click": 1, "add_to_cart": 2, "purchase": 3}  # ndcg_report's default mapping


@pytest.fixture(scope="module")
def tracks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The calls as NDJSON, one JSON document a line (as Segment's S3 export writes them)."""
    path = tmp_path_factory.mktemp("segment") / "tracks.ndjson"
    path.write_text("".join(json.dumps(c) + "\n" for c in _calls()), encoding="utf-8")
    return path


@pytest.fixture
def segment(con: duckdb.DuckDBPyConnection, tracks: Path) -> duckdb.DuckDBPyConnection:
    con.execute(f"CREATE TABLE tracks AS SELECT * FROM read_json('{tracks}')")
    return con


def _rankings(con: duckdb.DuckDBPyConnection, options: str = "",
              table: str = "tracks") -> dict[str, list[str]]:
    rows = con.sql(f"SELECT query_id, item_id, position FROM segment_rankings('{table}'{options})"
                   " ORDER BY query_id, position").fetchall()
    found: dict[str, list[str]] = {}
    for query, item, position in rows:
        found.setdefault(query, []).append(item)
        assert position == len(found[query]), (query, item, position)
    return found


def _events(con: duckdb.DuckDBPyConnection, options: str = "", table: str = "tracks") -> set:
    return set(con.sql("SELECT query_id, item_id, event_type, event_name, value, position "
                       f"FROM segment_events('{table}'{options})").fetchall())


def _reasons(con: duckdb.DuckDBPyConnection, options: str = "", table: str = "tracks") -> set:
    return set(con.sql("SELECT item_id, event_name, reason "
                       f"FROM segment_unattributed('{table}'{options})").fetchall())


def _ndcg(grades_by_query: dict[str, list[float]], k: int) -> dict[str, float]:
    """scikit-learn's NDCG@k of each query's grades in shown order."""
    return {q: float(ndcg_score([g], [list(range(len(g), 0, -1))], k=k))
            for q, g in grades_by_query.items()}


def _grades(attributed: set[tuple]) -> dict[str, list[float]]:
    best: dict[tuple[str, str], float] = {}
    for query, item, event_type, *_ in attributed:
        best[query, item] = max(best.get((query, item), 0), GRADES[event_type])
    return {q: [best.get((q, i), 0.0) for i in items] for q, items in SHOWN.items()}


def _expected(k_values: tuple[int, ...] = (3, 10)) -> dict[tuple[str, int], float]:
    return {(q, k): v for k in k_values for q, v in _ndcg(_grades(ATTRIBUTED), k).items()}


@pytest.mark.versions
def test_rankings_events_and_report(segment: duckdb.DuckDBPyConnection) -> None:
    """Positions, slices, attributions and NDCG of every search, on each DuckDB version."""
    assert _rankings(segment) == SHOWN
    slices = segment.sql("SELECT DISTINCT query_id, search_term, device, user_id, session_id "
                         "FROM segment_rankings('tracks') ORDER BY ALL").fetchall()
    assert slices == [(S3, "hat", "tablet", "anon-9", None), (S1, "shoes", "mobile", "u1", None),
                      (S2, "boots", "mobile", "u1", None)]
    assert _events(segment) == ATTRIBUTED
    assert _reasons(segment) == UNATTRIBUTED
    counted = segment.sql("SELECT (SELECT count(*) FROM segment_events('tracks')), "
                          "(SELECT count(*) FROM segment_unattributed('tracks'))").fetchall()
    assert counted == [(len(ATTRIBUTED), len(UNATTRIBUTED))]  # each product once
    segment.execute("CREATE TABLE shown AS SELECT * FROM segment_rankings('tracks')")
    segment.execute("CREATE TABLE events AS SELECT * FROM segment_events('tracks')")
    report = segment.sql("SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', "
                         "k := [3, 10])").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in report} == _expected()


def test_options(segment: duckdb.DuckDBPyConnection, check_cases) -> None:
    """attribution 'first', per-event windows, position_base 0 and 1, list_id, event_types."""

    def first() -> None:  # b's purchase goes to its first showing of the day: S1, position 2
        swapped = ATTRIBUTED - {(S2, "b", "purchase", "Order Completed", 25.0, 2)}
        assert _events(segment, ", attribution := 'first'") == swapped | {
            (S1, "b", "purchase", "Order Completed", 25.0, 2)}

    def windows() -> None:  # r's click 30 min 1 s late drops; s's purchase 2 days late counts
        window = (", attribution_window := MAP {'Product Clicked': INTERVAL 30 MINUTE, "
                  "'Order Completed': INTERVAL 3 DAY}")
        assert _events(segment, window) == ATTRIBUTED - {
            (S3, "r", "click", "Product Clicked", None, 1)} | {
            (S3, "s", "purchase", "Order Completed", 9.0, 2)}
        assert ("r", "Product Clicked", "outside the window") in _reasons(segment, window)
        # one INTERVAL for every event: c's add 13.9 hours after S1 drops at 12 hours
        assert ("c", "Product Added", "outside the window") in _reasons(
            segment, ", attribution_window := INTERVAL 12 HOUR")

    def base_zero() -> None:  # S2's positions 1..3 read as 0-based are 2..4
        positions = dict(segment.sql("SELECT item_id, position FROM segment_rankings('tracks', "
                                     f"position_base := 0) WHERE query_id = '{S2}'").fetchall())
        assert positions == {"f": 2, "b": 3, "g": 4}

    def base_one() -> None:  # S1 has a position 0: an error naming it
        with pytest.raises(duckdb.Error, match=r"position 0 in a search read as 1-based"):
            _rankings(segment, ", position_base := 1")

    def list_id() -> None:  # the recommended list and S3's list (no list_id) are left out
        assert _rankings(segment, ", list_id := 'search_results'") == {
            S1: SHOWN[S1][:5], S2: SHOWN[S2]}
        assert _rankings(segment, ", list_id := 'related'") == {}

    def event_types() -> None:  # Product Viewed read as a 'view'; orders left out
        types = ", event_types := MAP {'Product Viewed': 'view', 'Product Clicked': 'click'}"
        found = _events(segment, types)
        assert (S2, "b", "view", "Product Viewed", None, 2) in found
        assert {e[3] for e in found} == {"Product Viewed", "Product Clicked"}
        assert ("b", "Order Completed", "unknown event") in _reasons(segment, types)

    check_cases([("first", first), ("windows", windows), ("base 0", base_zero),
                 ("base 1", base_one), ("list_id", list_id), ("event_types", event_types)])


def test_documents_that_disagree(tracks: Path) -> None:
    """properties and context as JSON, timestamp and ids as text (read_json's types when the
    documents disagree, or a warehouse's JSON columns), and timestamp as a TIMESTAMP WITH TIME
    ZONE or a TIMESTAMP (what read_json makes of ISO text depends on the DuckDB version): the
    same results, in a session whose TimeZone is not UTC (its own connection)."""
    columns = {"type": "VARCHAR", "event": "VARCHAR", "userId": "VARCHAR",
               "anonymousId": "VARCHAR", "messageId": "VARCHAR", "timestamp": "VARCHAR",
               "properties": "JSON", "context": "JSON"}
    with duckdb_ndcg.register(duckdb.connect()) as con:
        con.execute("SET TimeZone = 'America/New_York'")
        con.execute(f"CREATE TABLE texts AS FROM read_json('{tracks}', columns = {columns})")
        assert con.sql("SELECT DISTINCT typeof(properties), typeof(\"timestamp\") FROM texts"
                       ).fetchall() == [("JSON", "VARCHAR")]
        con.execute("CREATE TABLE zoned AS SELECT * REPLACE (\"timestamp\"::TIMESTAMPTZ AS "
                    "\"timestamp\") FROM texts")
        con.execute("CREATE TABLE naive AS SELECT * REPLACE (\"timestamp\"::TIMESTAMPTZ AT TIME "
                    "ZONE 'UTC' AS \"timestamp\") FROM texts")
        con.execute("CREATE TABLE shifted AS SELECT * REPLACE (strftime(\"timestamp\"::TIMESTAMPTZ, "
                    "'%Y-%m-%dT%H:%M:%S.%f%z') AS \"timestamp\") FROM texts")  # -05:00
        assert con.sql("SELECT min(\"timestamp\") FROM shifted").fetchall()[0][0].endswith("-05")
        for table in ("texts", "zoned", "naive", "shifted"):
            assert _rankings(con, table=table) == SHOWN, table
            assert _events(con, table=table) == ATTRIBUTED, table
            assert _reasons(con, table=table) == UNATTRIBUTED, table
        shown_at = con.sql("SELECT DISTINCT shown_at::VARCHAR FROM segment_rankings('shifted') "
                           f"WHERE query_id = '{S3}'").fetchall()
        assert shown_at == [(_iso(1_001)[:19].replace("T", " "),)]  # UTC, as the contract's


def _replaced(pattern: str, replacement: str) -> str:
    """properties as JSON text with ``pattern`` replaced (every match) by ``replacement``."""
    return (f"regexp_replace(properties::JSON::VARCHAR, '{pattern}', '{replacement}', 'g')::JSON "
            "AS properties")


BOTH = ("segment_rankings", "segment_events")
BAD = [  # (case, a column replaced, the error, the macros reading it)
    ("position abc", _replaced('"position":0', '"position":"abc"'),
     r"properties.products\[\].position must be a whole number >= 0, got abc", BOTH),
    ("position -1", _replaced('"position":0', '"position":-1'),
     r"properties.products\[\].position must be a whole number >= 0, got -1", BOTH),
    ("position 1.5", _replaced('"position":1', '"position":1.5'),
     r"properties.products\[\].position must be a whole number >= 0, got 1.5", BOTH),
    ("timestamp text", "'14/11/2023 22:13' AS \"timestamp\"",
     r"timestamp must be ISO 8601 text .* got '14/11/2023 22:13'", BOTH),
    ("epoch seconds", "epoch(\"timestamp\"::TIMESTAMPTZ)::BIGINT AS \"timestamp\"",
     r"timestamp must be ISO 8601 text .* got '1699", BOTH),
    ("price", _replaced('"price":10.0', '"price":"ten"'),
     r"properties price must be a number, got 'ten' \(Product Added, product b\)",
     ("segment_events",)),
]


def _bad_cases(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, object]]:
    for name, change, message, macros in BAD:
        def check(change: str = change, message: str = message, macros: tuple = macros) -> None:
            con.execute("DROP TABLE IF EXISTS broken")
            con.execute(f"CREATE TABLE broken AS SELECT * REPLACE ({change}) FROM tracks")
            for macro in macros:
                with pytest.raises(duckdb.Error, match=message) as raised:
                    con.sql(f"SELECT * FROM {macro}('broken')").fetchall()
                assert "\n" not in str(raised.value), str(raised.value)
        yield name, check

    def missing() -> None:
        con.execute("DROP TABLE IF EXISTS broken")
        con.execute("CREATE TABLE broken AS SELECT * EXCLUDE (properties) FROM tracks")
        with pytest.raises(duckdb.Error, match=r'"properties"'):
            con.sql("SELECT * FROM segment_rankings('broken')").fetchall()
    yield "missing properties", missing

    def options() -> None:
        for option, message in [
            ("attribution := 'latest'", "attribution must be 'last' or 'first', got 'latest'"),
            ("position_base := 2", "position_base must be 'auto' or 0 or 1, got 2"),
            ("attribution_window := 'soon'", "attribution_window must be an INTERVAL or a MAP"),
            ("event_types := 3", "event_types must be a MAP from Segment event name to event"),
        ]:
            with pytest.raises(duckdb.Error, match=re.escape(message)):
                con.sql(f"SELECT * FROM segment_events('tracks', {option})").fetchall()
    yield "options", options


def test_bad_input(segment: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each a one-line error naming the field or option."""
    check_cases(_bad_cases(segment))


def readme_recipe() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### From GA4 and UBI exports\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### From GA4 and UBI exports'"
    block = re.search(r"```sql\n-- Segment\n(.*?)```", section.group(1), re.DOTALL)
    assert block, "the section has no Segment recipe"
    return [s.strip() for s in block.group(1).split(";") if s.strip()]


def test_readme_recipe(con: duckdb.DuckDBPyConnection, tracks: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Segment recipe, as written, on the calls."""
    monkeypatch.chdir(tracks.parent)
    results = [con.sql(statement) for statement in readme_recipe()]
    summary, unattributed = [r for r in results if r is not None][-2:]
    expected = _ndcg(_grades(ATTRIBUTED), 10)
    by_device: dict[str, list[float]] = {}
    for query, value in expected.items():
        by_device.setdefault("tablet" if query == S3 else "mobile", []).append(value)
    columns = summary.columns
    got = {r[columns.index("device")]: r[columns.index("mean_ndcg")]
           for r in summary.fetchall() if r[columns.index("k")] == 10}
    assert got == {d: pytest.approx(sum(v) / len(v), abs=1e-12) for d, v in by_device.items()}
    counts = {(reason, name): n for reason, name, n in unattributed.fetchall()}
    assert counts == {(r, name): 1 for _, name, r in UNATTRIBUTED} | {
        ("never shown", "Product Clicked"): 1, ("never shown", "Order Completed"): 1}


WARNING = (r"segment: 5 of 11 interactions \(45 %\) could not be attributed to a search and are "
           r"not graded \(never shown 2, no item 1, no user 1, outside the window 1\)")


def test_evaluate_reads_the_calls(tracks: Path) -> None:
    """evaluate(tracks, source='segment'): the report of the two adapters' tables, with a warning
    counting by reason the interactions not attributed (5 of 11: the Product Viewed call is of a
    type the adapter does not read, left out of the share); source_options reach the adapters."""
    with pytest.warns(UserWarning, match="^" + WARNING):
        report = duckdb_ndcg.evaluate(str(tracks), source="segment", k=[3, 10]).fetchall()
    assert {(r[0], r[1]): pytest.approx(r[2], abs=1e-12) for r in report} == _expected()
    with pytest.warns(UserWarning, match="^segment: "):  # b's purchase moves to S1 (grade 3)
        first = duckdb_ndcg.evaluate(str(tracks), source="segment", k=10,
                                     source_options={"attribution": "first"}).fetchall()
    s1 = dict(zip(SHOWN[S1], _grades(ATTRIBUTED)[S1])) | {"b": 3.0}
    want = _ndcg({S1: [s1[i] for i in SHOWN[S1]]}, 10)[S1]
    assert {r[0]: r[2] for r in first}[S1] == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match=re.escape("source 'segment' reads 1 input (tracks), "
                                                   "got 2")):
        duckdb_ndcg.evaluate(str(tracks), str(tracks), source="segment")


def test_cli_source(tracks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """duckdb-ndcg evaluate tracks.ndjson --source segment: the calls alone, the warning on
    stderr."""
    out = tmp_path / "r.csv"
    code = cli.main(["evaluate", str(tracks), "--source", "segment", "--k", "3,10",
                     "--attribution", "last", "--output", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert re.search(WARNING, captured.err), captured.err
    with duckdb.connect() as con:
        got = con.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in got} == _expected()
    # --attribution-window 30 minutes: r's click (30 min 1 s after S3) and s's add (33 min
    # after) drop: S3 grades r 0, s 0, NDCG 0 (nothing to find); S1's events are within minutes
    # except c's add the next day: S1 grades a 0, b 2, c 0, d 0, e 1, y 0
    code = cli.main(["evaluate", str(tracks), "--source", "segment", "--k", "10",
                     "--attribution-window", "30 minutes", "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    with duckdb.connect() as con:
        got = dict(con.sql(f"SELECT query_id, ndcg FROM '{out}'").fetchall())
    assert got[S3] == pytest.approx(_ndcg({S3: [0.0, 0.0]}, 10)[S3], abs=1e-12)
    assert got[S1] == pytest.approx(_ndcg({S1: [0, 2, 0, 0, 1, 0]}, 10)[S1], abs=1e-12)
