"""The Snowplow adapter (issue 22): snowplow_rankings, snowplow_events and snowplow_unattributed
read a Snowplow atomic events table with the ecommerce plugin's events (the Snowflake/Databricks
loaders' shape: one column per self-describing event and entity, nested structs and lists;
written to Parquet and read back, and as NDJSON with ISO text timestamps) and give the report
family its rankings and events.

Oracles: the positions and attributions below are worked out by hand from the table (each case
says why), and NDCG per search is scikit-learn's ndcg_score on the hand-made grades (every graded
item is shown, so its ideal is the report's)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli

ROOT = Path(__file__).resolve().parents[2]
T0 = dt.datetime(2023, 11, 14, 22, 13, 20)  # UTC, as Snowplow's derived_tstamp
DAY = 86_400
ACTION = "unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1"
PRODUCT = "contexts_com_snowplowanalytics_snowplow_ecommerce_product_1"
SEARCH = "unstruct_event_com_snowplowanalytics_snowplow_site_search_1"
TRANSACTION = "contexts_com_snowplowanalytics_snowplow_ecommerce_transaction_1"
# the atomic fields the adapter reads and a few it does not, then the schemas' columns
# (iglu-central: snowplow_ecommerce_action 1-0-2, product 1-0-0, site_search 1-0-0, transaction
# 1-0-0; the loaders write snake_case field names: total_results, page_results)
SCHEMA = (
    "app_id VARCHAR, platform VARCHAR, collector_tstamp TIMESTAMP, derived_tstamp TIMESTAMP, "
    "event VARCHAR, event_id VARCHAR, event_vendor VARCHAR, event_name VARCHAR, "
    "domain_userid VARCHAR, user_id VARCHAR, domain_sessionid VARCHAR, page_urlpath VARCHAR, "
    f"{ACTION} STRUCT(type VARCHAR, name VARCHAR), "
    f"{PRODUCT} STRUCT(id VARCHAR, name VARCHAR, category VARCHAR, price DOUBLE, "
    "list_price DOUBLE, quantity BIGINT, size VARCHAR, variant VARCHAR, brand VARCHAR, "
    "inventory_status VARCHAR, position BIGINT, currency VARCHAR, creative_id VARCHAR)[], "
    f"{SEARCH} STRUCT(terms VARCHAR[], filters VARCHAR, total_results BIGINT, "
    "page_results BIGINT), "
    f"{TRANSACTION} STRUCT(transaction_id VARCHAR, revenue DOUBLE, currency VARCHAR, "
    "payment_method VARCHAR, total_quantity BIGINT, tax DOUBLE, shipping DOUBLE, "
    "discount_code VARCHAR, discount_amount DOUBLE, credit_order BOOLEAN)[]"
)
_ids = iter(range(1, 1000))


def _product(item_id: str | None, position: int | None = None, price: float = 10.0,
             quantity: int | None = None) -> dict:
    return {"id": item_id, "name": None, "category": "Shoes/Men", "price": price,
            "list_price": None, "quantity": quantity, "size": None, "variant": None,
            "brand": None, "inventory_status": "in stock", "position": position,
            "currency": "EUR", "creative_id": None}


def _event(second: int, user: str | None, session: str, action: str | None = None,
           list_name: str | None = None, products: list[dict] | None = None,
           terms: list[str] | None = None, event_id: str | None = None,
           transaction: dict | None = None) -> list[object]:
    at = T0 + dt.timedelta(seconds=second)
    name = "site_search" if terms else "snowplow_ecommerce_action" if action else "page_view"
    search = terms and {"terms": terms, "filters": '{"color":"red"}', "total_results": 40,
                        "page_results": 3}
    return ["shop", "web", at, at, "unstruct" if name != "page_view" else "page_view",
            event_id or f"e-{next(_ids):03d}", "com.snowplowanalytics.snowplow", name, user, None,
            session, "/search", action and {"type": action, "name": list_name}, products, search,
            transaction and [transaction]]


def _table() -> list[list[object]]:
    """The events table: every rule of the adapters once (times in seconds after T0)."""
    u1 = lambda s, *a, **kw: _event(s, "u1", "s1", *a, **kw)
    u2 = lambda s, *a, **kw: _event(s, "u2", "s2", *a, **kw)
    results = "search results"
    order = {"transaction_id": "t1", "revenue": 30.0, "currency": "EUR", "payment_method": "card",
             "total_quantity": 2, "tax": None, "shipping": None, "discount_code": None,
             "discount_amount": None, "credit_order": False}
    return [
        # a list view before any search of the session: shows nothing in a search
        u1(-50, "list_view", results, [_product("x", 0)]),
        u1(-40, "list_click", results, [_product("x", 0)]),                   # never shown
        # S1 'red shoes': 0-based positions ('auto'), the first page sent twice, page 2 restarting
        u1(0, terms=["red", "shoes"], event_id="ss-1"),
        u1(1, "list_view", results, [_product("a", 0), _product("b", 1), _product("c", 2)]),
        u1(2, "list_view", results, [_product("a", 0), _product("b", 1), _product("c", 2)]),
        u1(3, "list_view", results, [_product("d", 0), _product("e", 1)]),  # -> positions 4, 5
        u1(10, "list_click", results, [_product("e", 1, price=12.0)]),      # S1, 5, value 12
        u1(20, "add_to_cart", None, [_product("b", price=10.0, quantity=2)]),  # S1, 2, value 20
        # S2 'boots': page 1 without positions (its order: k 1, b 2, m 3), then a list of
        # recommendations with 1-based positions restarting: continues at 4, 5
        u1(100, terms=["boots"], event_id="ss-2"),
        u1(101, "list_view", results, [_product("k"), _product("b"), _product("m")]),
        u1(102, "list_view", "recommendations", [_product("w", 1), _product("y", 2)]),
        # b: last showing S2 position 2, first showing S1 position 2; z was never shown
        u1(110, "transaction", None, [_product("b", price=25.0, quantity=1),
                                      _product("z", price=5.0, quantity=1)], transaction=order),
        u1(120, "list_click", results, [_product("m", 3)]),                  # S2, position 3
        u1(130, "product_view", None, [_product("b")]),                      # unknown event
        # u1 the next day in another session: attributed by user, not session (c: S1, 3)
        _event(50_000, "u1", "s1b", "add_to_cart", None, [_product("c", price=7.0)]),
        # S3 'hat' of u2
        u2(1_000, terms=["hat"], event_id="ss-3"),
        u2(1_001, "list_view", results, [_product("r", 0), _product("s", 1)]),
        u2(2_802, "list_click", results, [_product("r", 0)]),  # 30 min 1 s after: S3, 1
        u2(1_001 + 2 * DAY, "transaction", None, [_product("s", price=9.0, quantity=1)],
           transaction=order),                                               # outside 1 day
        u2(1_500, "add_to_cart", None, [_product(None, price=1.0)]),          # no item
        _event(1_600, None, "s9", "list_click", results, [_product("r", 0)]),  # no user
        u2(1_700),                                      # a page view: no action, not counted
    ]


def _user_id_only(rows: list[list[object]]) -> list[list[object]]:
    """A list_click of s by u2 known only by user_id (domain_userid NULL): S3, position 2."""
    row = _event(1_650, None, "s2", "list_click", "search results", [_product("s", 1)])
    row[9] = "u2"
    return [*rows, row]


S1, S2, S3 = "ss-1", "ss-2", "ss-3"
SHOWN = {  # query -> items in position order (positions 1..n), worked out in _table's comments
    S1: ["a", "b", "c", "d", "e"],
    S2: ["k", "b", "m", "w", "y"],
    S3: ["r", "s"],
}
# (query, item, event_type, event_name, value, position) with the defaults: last, 1 day
ATTRIBUTED = {
    (S1, "e", "click", "list_click", 12.0, 5),
    (S1, "b", "add_to_cart", "add_to_cart", 20.0, 2),
    (S2, "b", "purchase", "transaction", 25.0, 2),
    (S2, "m", "click", "list_click", 10.0, 3),
    (S1, "c", "add_to_cart", "add_to_cart", 7.0, 3),
    (S3, "r", "click", "list_click", 10.0, 1),
    (S3, "s", "click", "list_click", 10.0, 2),
}
UNATTRIBUTED = {
    ("x", "list_click", "never shown"),
    ("z", "transaction", "never shown"),
    ("b", "product_view", "unknown event"),
    ("s", "transaction", "outside the window"),
    (None, "add_to_cart", "no item"),
    ("r", "list_click", "no user"),
}
GRADES = {"click": 1, "add_to_cart": 2, "purchase": 3}  # ndcg_report's default mapping


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The events table written to Parquet (as a warehouse unload writes it), its path."""
    path = tmp_path_factory.mktemp("snowplow") / "atomic_events.parquet"
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE raw ({SCHEMA})")
        con.executemany(f"INSERT INTO raw VALUES ({', '.join(['?'] * 16)})",
                        _user_id_only(_table()))
        con.execute(f"COPY raw TO '{path}' (FORMAT parquet)")
    return path


@pytest.fixture
def snowplow(con: duckdb.DuckDBPyConnection, table: Path) -> duckdb.DuckDBPyConnection:
    con.execute(f"CREATE VIEW atomic_events AS SELECT * FROM read_parquet('{table}')")
    return con


def _rankings(con: duckdb.DuckDBPyConnection, options: str = "") -> dict[str, list[str]]:
    rows = con.sql("SELECT query_id, item_id, position FROM "
                   f"snowplow_rankings('atomic_events'{options}) ORDER BY query_id, position"
                   ).fetchall()
    found: dict[str, list[str]] = {}
    for query, item, position in rows:
        found.setdefault(query, []).append(item)
        assert position == len(found[query]), (query, item, position)
    return found


def _events(con: duckdb.DuckDBPyConnection, options: str = "") -> set[tuple]:
    return set(con.sql("SELECT query_id, item_id, event_type, event_name, value, position "
                       f"FROM snowplow_events('atomic_events'{options})").fetchall())


def _reasons(con: duckdb.DuckDBPyConnection, options: str = "") -> set[tuple]:
    return set(con.sql("SELECT item_id, event_name, reason "
                       f"FROM snowplow_unattributed('atomic_events'{options})").fetchall())


def _ndcg(grades_by_query: dict[str, list[float]], k: int) -> dict[str, float]:
    """scikit-learn's NDCG@k of each query's grades in shown order."""
    return {q: float(ndcg_score([g], [list(range(len(g), 0, -1))], k=k))
            for q, g in grades_by_query.items()}


def _grades(attributed: set[tuple]) -> dict[str, list[float]]:
    best: dict[tuple[str, str], float] = {}
    for query, item, event_type, *_ in attributed:
        best[query, item] = max(best.get((query, item), 0), GRADES[event_type])
    return {q: [best.get((q, i), 0.0) for i in items] for q, items in SHOWN.items()}


def _expected(k: tuple[int, ...] = (3, 10)) -> dict[tuple[str, int], float]:
    return {(q, c): v for c in k for q, v in _ndcg(_grades(ATTRIBUTED), c).items()}


@pytest.mark.versions
def test_rankings_events_and_report(snowplow: duckdb.DuckDBPyConnection) -> None:
    """Positions, slices, attributions and NDCG of every search, on each DuckDB version."""
    assert _rankings(snowplow) == SHOWN
    slices = snowplow.sql("SELECT DISTINCT query_id, search_term, user_id, session_id "
                          "FROM snowplow_rankings('atomic_events') ORDER BY ALL").fetchall()
    assert slices == [(S1, "red shoes", "u1", "s1"), (S2, "boots", "u1", "s1"),
                      (S3, "hat", "u2", "s2")]
    assert _events(snowplow) == ATTRIBUTED
    assert _reasons(snowplow) == UNATTRIBUTED
    # shown_at of b's purchase is S2's page at 101 s; event_at the transaction's time
    times = snowplow.sql("SELECT shown_at, event_at FROM snowplow_events('atomic_events') "
                         "WHERE event_name = 'transaction'").fetchall()
    assert times == [(T0 + dt.timedelta(seconds=101), T0 + dt.timedelta(seconds=110))]
    snowplow.execute("CREATE TABLE shown AS SELECT * FROM snowplow_rankings('atomic_events')")
    snowplow.execute("CREATE TABLE events AS SELECT * FROM snowplow_events('atomic_events')")
    report = snowplow.sql("SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', "
                          "k := [3, 10])").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in report} == _expected()


def test_options(snowplow: duckdb.DuckDBPyConnection, check_cases) -> None:
    """attribution 'first', per-type windows, position_base 0 and 1, list_name, event_types."""

    def first() -> None:  # b's purchase goes to its first showing of the day: S1, position 2
        swapped = ATTRIBUTED - {(S2, "b", "purchase", "transaction", 25.0, 2)}
        assert _events(snowplow, ", attribution := 'first'") == swapped | {
            (S1, "b", "purchase", "transaction", 25.0, 2)}

    def windows() -> None:  # r's click 30 min 1 s late drops; s's purchase 2 days late counts
        window = (", attribution_window := MAP {'list_click': INTERVAL 30 MINUTE, "
                  "'transaction': INTERVAL 3 DAY}")
        assert _events(snowplow, window) == ATTRIBUTED - {
            (S3, "r", "click", "list_click", 10.0, 1)} | {
            (S3, "s", "purchase", "transaction", 9.0, 2)}
        assert ("r", "list_click", "outside the window") in _reasons(snowplow, window)
        # one INTERVAL for every type: c's add_to_cart 13.9 hours after S1 drops at 12 hours
        assert ("c", "add_to_cart", "outside the window") in _reasons(
            snowplow, ", attribution_window := INTERVAL 12 HOUR")

    def base_zero() -> None:  # S2's recommendations 1, 2 read as 0-based: 2, 3 on the page,
        # which starts again (2 <= 3): 3 + 2, 3 + 3
        positions = dict(snowplow.sql(
            "SELECT item_id, position FROM snowplow_rankings('atomic_events', "
            f"position_base := 0) WHERE query_id = '{S2}'").fetchall())
        assert positions == {"k": 1, "b": 2, "m": 3, "w": 5, "y": 6}
        s1 = snowplow.sql("SELECT item_id FROM snowplow_rankings('atomic_events', "
                          f"position_base := 0) WHERE query_id = '{S1}' ORDER BY position")
        assert [i for (i,) in s1.fetchall()] == SHOWN[S1]

    def base_one() -> None:  # S1 has a position 0: an error naming it
        with pytest.raises(duckdb.Error, match=r"product position 0 in a search read as 1-based"):
            _rankings(snowplow, ", position_base := 1")

    def list_name() -> None:  # S2 without its recommendations
        assert _rankings(snowplow, ", list_name := 'search results'") == {
            **SHOWN, S2: ["k", "b", "m"]}
        assert _rankings(snowplow, ", list_name := 'related'") == {}

    def event_types() -> None:  # product_view graded as 'view'; transactions left out
        types = ", event_types := MAP {'product_view': 'view', 'list_click': 'click'}"
        found = _events(snowplow, types)
        assert (S2, "b", "view", "product_view", 10.0, 2) in found
        assert {e[3] for e in found} == {"product_view", "list_click"}
        assert ("b", "transaction", "unknown event") in _reasons(snowplow, types)

    check_cases([("first", first), ("windows", windows), ("base 0", base_zero),
                 ("base 1", base_one), ("list_name", list_name), ("event_types", event_types)])


def test_ndjson_text_and_time_zones(con: duckdb.DuckDBPyConnection, table: Path,
                                    tmp_path: Path) -> None:
    """The same results from the table as NDJSON (derived_tstamp ISO 8601 text ending in Z, which
    read_json types by version: TIMESTAMP WITH TIME ZONE, TIMESTAMP or VARCHAR; positions as text,
    as Databricks' loader types them), with derived_tstamp as text, and as a TIMESTAMP WITH TIME
    ZONE read in a session whose TimeZone is not UTC (times still UTC)."""
    path = tmp_path / "events.ndjson"
    fields = ", ".join(f"'{f}': p.{f}" for f in (
        "id", "name", "category", "price", "list_price", "quantity", "size", "variant", "brand",
        "inventory_status", "currency", "creative_id"))
    iso = "strftime(derived_tstamp, '%Y-%m-%dT%H:%M:%S.%gZ') AS derived_tstamp"
    con.execute(
        f"COPY (SELECT * REPLACE ({iso}, list_transform({PRODUCT}, lambda p: {{{fields}, "
        f"'position': p.position::VARCHAR}}) AS {PRODUCT}) FROM read_parquet('{table}')) "
        f"TO '{path}' (FORMAT json)")
    views = {
        "ndjson": f"SELECT * FROM read_json('{path}')",
        "text": f"SELECT * REPLACE ({iso}) FROM read_parquet('{table}')",
        "with time zone": "SELECT * REPLACE (timezone('UTC', derived_tstamp) AS derived_tstamp) "
                          f"FROM read_parquet('{table}')",
    }
    for name, view in views.items():
        con.execute(f"CREATE OR REPLACE VIEW atomic_events AS {view}")
        if name == "with time zone":
            con.execute("SET TimeZone = 'America/New_York'")
        assert _rankings(con) == SHOWN, name
        assert _events(con) == ATTRIBUTED, name
        assert _reasons(con) == UNATTRIBUTED, name
        times = con.sql("SELECT shown_at, event_at FROM snowplow_events('atomic_events') "
                        "WHERE event_name = 'transaction'").fetchall()
        assert times == [(T0 + dt.timedelta(seconds=101), T0 + dt.timedelta(seconds=110))], name
    types = con.sql(f"SELECT typeof(derived_tstamp), typeof({PRODUCT}[1].position) "
                    f"FROM read_json('{path}') WHERE event_name = 'snowplow_ecommerce_action'")
    assert types.fetchall()[0][1] == "VARCHAR"
    con.execute("RESET TimeZone")


def _positions(value: str) -> str:
    """The table's products with every position that is set replaced by ``value`` (text)."""
    fields = ", ".join(f"'{f}': p.{f}" for f in (
        "id", "name", "category", "price", "list_price", "quantity", "size", "variant", "brand",
        "inventory_status", "currency", "creative_id"))
    return (f"list_transform({PRODUCT}, lambda p: {{{fields}, 'position': "
            f"CASE WHEN p.position IS NOT NULL THEN '{value}' END}}) AS {PRODUCT}")


BOTH = ("snowplow_rankings", "snowplow_events")
BAD = [  # (case, a column of the table replaced, the error, the macros reading that column)
    ("position abc", _positions("abc"),
     r"position of a product entity must be a whole number >= 0 or NULL, got 'abc'", BOTH),
    ("position -1", _positions("-1"),
     r"position of a product entity must be a whole number >= 0 or NULL, got '-1'", BOTH),
    ("epoch seconds", "epoch(derived_tstamp)::BIGINT AS derived_tstamp",
     r"derived_tstamp must be a TIMESTAMP or ISO 8601 text, got '1[67][0-9]{8}' \(BIGINT\)", BOTH),
    ("not UTC", "strftime(derived_tstamp, '%Y-%m-%dT%H:%M:%S+02:00') AS derived_tstamp",
     r"derived_tstamp must be UTC \(Snowplow writes it so\), got '2023-11-1[4-7]T[0-9:]{8}\+02:00'",
     BOTH),
    ("NULL time", "NULL::TIMESTAMP AS derived_tstamp",
     r"derived_tstamp must be a TIMESTAMP or ISO 8601 text, got NULL", BOTH),
    ("search without id", f"CASE WHEN {SEARCH} IS NULL THEN event_id END AS event_id",
     r"event_id is NULL on a site_search event \(user u1, session s1\)", BOTH),
]


def _bad_cases(con: duckdb.DuckDBPyConnection) -> Iterator[tuple[str, object]]:
    for name, change, message, macros in BAD:
        def check(change: str = change, message: str = message, macros: tuple = macros) -> None:
            con.execute("DROP TABLE IF EXISTS broken")
            con.execute(f"CREATE TABLE broken AS SELECT * REPLACE ({change}) FROM atomic_events")
            for macro in macros:
                with pytest.raises(duckdb.Error, match=message) as raised:
                    con.sql(f"SELECT * FROM {macro}('broken')").fetchall()
                assert "\n" not in str(raised.value), str(raised.value)
        yield name, check

    def missing() -> None:
        con.execute("DROP TABLE IF EXISTS broken")
        con.execute(f"CREATE TABLE broken AS SELECT * EXCLUDE ({SEARCH}) FROM atomic_events")
        with pytest.raises(duckdb.Error, match=SEARCH):
            con.sql("SELECT * FROM snowplow_rankings('broken')").fetchall()
    yield "missing site_search", missing

    def options() -> None:
        for option, message in [
            ("attribution := 'latest'", "attribution must be 'last' or 'first', got 'latest'"),
            ("position_base := 2", "position_base must be 'auto' or 0 or 1, got 2"),
            ("attribution_window := 'soon'", "attribution_window must be an INTERVAL or a MAP"),
            ("event_types := 3",
             "event_types must be a MAP from Snowplow ecommerce action type to event type"),
        ]:
            for macro in ("snowplow_events", "snowplow_unattributed"):
                with pytest.raises(duckdb.Error, match=re.escape(message)):
                    con.sql(f"SELECT * FROM {macro}('atomic_events', {option})").fetchall()
    yield "options", options


def test_bad_input(snowplow: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each a one-line error naming the field or option."""
    check_cases(_bad_cases(snowplow))


def readme_recipe() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### From GA4 and UBI exports\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### From GA4 and UBI exports'"
    block = re.search(r"```sql\n-- Snowplow\n(.*?)```", section.group(1), re.DOTALL)
    assert block, "the section has no Snowplow recipe"
    return [s.strip() for s in block.group(1).split(";") if s.strip()]


def test_readme_recipe(con: duckdb.DuckDBPyConnection, table: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Snowplow recipe, as written, on the table."""
    monkeypatch.chdir(table.parent)
    results = [con.sql(statement) for statement in readme_recipe()]
    summary, unattributed = [r for r in results if r is not None][-2:]
    expected = _ndcg(_grades(ATTRIBUTED), 10)
    rows = summary.fetchall()
    columns = summary.columns
    got = {r[columns.index("search_term")]: r[columns.index("mean_ndcg")]
           for r in rows if r[columns.index("k")] == 10}
    terms = {S1: "red shoes", S2: "boots", S3: "hat"}
    assert got == {terms[q]: pytest.approx(v, abs=1e-12) for q, v in expected.items()}
    counts = {(reason, name): n for reason, name, n in unattributed.fetchall()}
    assert sum(counts.values()) == len(UNATTRIBUTED)
    assert counts[("outside the window", "transaction")] == 1


def test_evaluate_reads_the_table_itself(table: Path) -> None:
    """evaluate(table, source='snowplow'): the report of the two adapters' tables, with a warning
    counting by reason the interactions that could not be attributed (5 of 12: the product_view
    is of a type the adapter does not read, left out of the share)."""
    warning = (r"^snowplow: 5 of 12 interactions \(41 %\) could not be attributed to a search and "
               r"are not graded \(never shown 2, no item 1, no user 1, outside the window 1\); "
               r"list them: SELECT \* FROM snowplow_unattributed\('.*atomic_events\.parquet'\)$")
    with pytest.warns(UserWarning, match=warning):
        report = duckdb_ndcg.evaluate(str(table), source="snowplow", k=[3, 10]).fetchall()
    assert {(r[0], r[1]): pytest.approx(r[2], abs=1e-12) for r in report} == _expected()
    with pytest.warns(UserWarning, match="^snowplow: "):
        first = duckdb_ndcg.evaluate(str(table), source="snowplow", k=10,
                                     source_options={"attribution": "first"}).fetchall()
    # b's purchase on S1 (grade 3 beats its add_to_cart's 2), none on S2
    grades = {S1: [0, 3, 2, 0, 1], S2: [0, 0, 1, 0, 0], S3: [1, 1]}
    assert {r[0]: pytest.approx(r[2], abs=1e-12) for r in first} == _ndcg(grades, 10)


def test_cli_source(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """duckdb-ndcg evaluate --source snowplow TABLE: the table alone, the unattributed warning on
    stderr."""
    out = tmp_path / "r.csv"
    code = cli.main(["evaluate", str(table), "--source", "snowplow", "--k", "3,10",
                     "--position-base", "auto", "--output", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "snowplow: 5 of 12 interactions (41 %) could not be attributed" in captured.err
    with duckdb.connect() as con:
        got = con.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in got} == _expected()
