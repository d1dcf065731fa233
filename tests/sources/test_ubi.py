"""The OpenSearch UBI 1.3.0 adapter (issue 22): ubi_rankings, ubi_events and ubi_unattributed
read the ubi_queries and ubi_events indexes as they land in DuckDB (their documents exported as
NDJSON and read with read_json, nested event_attributes and all) and give the report family its
rankings and events.

Oracles: the shown lists and the reason of every event are worked out by hand from the documents
below (each says why), and NDCG per query is scikit-learn's ndcg_score on the hand-made grades
(every graded item is shown, so its ideal is the report's; a query without a positive grade
scores 0, the report's empty_ideal)."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg
from duckdb_ndcg import cli

ROOT = Path(__file__).resolve().parents[2]


def _query(query_id: str, application: str, client: str, text: str, hits: list[str],
           minute: int) -> dict:
    return {"application": application, "query_id": query_id, "client_id": client,
            "user_query": text, "query_attributes": {"page": 1},
            "object_id_field": "sku", "timestamp": f"2025-02-18T10:{minute:02d}:00Z",
            "query_response_id": f"r-{query_id}", "query_response_hit_ids": hits}


def _event(action: str, query_id: str | None, item: str | int | None, ordinal: int | None,
           application: str = "primary-search", timestamp: object = "2025-02-18T10:30:00Z"
           ) -> dict:
    attributes: dict = {"position": {"ordinal": ordinal}}
    if item is not None:
        attributes["object"] = {"object_id": item, "object_id_field": "sku"}
    return {"application": application, "action_name": action, "query_id": query_id,
            "session_id": f"s-{query_id}", "client_id": "c1", "user_id": None,
            "timestamp": timestamp, "message_type": "CONVERSION", "message": None,
            "event_attributes": attributes}


QUERIES = [
    _query("q1", "primary-search", "c1", "laptop", ["A", "B", "C", "D"], 0),
    _query("q2", "primary-search", "c2", "mouse", ["M", "N", "O"], 1),
    _query("q3", "type-ahead", "c1", "lap", [], 2),  # no hit ids: its impressions are the list
    _query("q5", "primary-search", "c3", "cable", ["X", "Y"], 3),  # shown, nobody acted
]
EVENTS = [
    # q1: 0-based impressions, 1-based clicks; the hit list gives the positions either way
    _event("impression", "q1", "A", 0), _event("impression", "q1", "B", 1),
    _event("click", "q1", "C", 3), _event("add_to_cart", "q1", "C", 3),
    _event("purchase", "q1", "A", 1, timestamp=1739874600000),  # epoch millis
    _event("click", "q1", "Z", 9),                  # never shown: q1 showed A..D
    _event("click_through", "q1", "B", 2),          # unknown event
    _event("click", "q1", None, None),              # no item
    _event("search", "q1", None, None),             # no object, no known type: not counted
    _event("click", "q2", "N", 2, timestamp="not a time"),  # malformed: kept, time NULL
    # q3 (type-ahead, no hit ids): 0-based impressions are its list, P seen twice
    _event("impression", "q3", "P", 0, "type-ahead"), _event("impression", "q3", "Q", 1, "type-ahead"),
    _event("impression", "q3", "R", 2, "type-ahead"), _event("impression", "q3", "P", 0, "type-ahead"),
    _event("click", "q3", "Q", 2, "type-ahead"),
    # q6 (mobile, not in ubi_queries): 1-based impressions ('auto': smallest ordinal 1)
    _event("impression", "q6", 7, 1, "mobile"), _event("impression", "q6", 8, 2, "mobile"),
    _event("purchase", "q6", 8, 2, "mobile"),
    _event("click", "q4", "K", 1),                  # q4: no hit ids, no impressions: no position
    _event("click", None, "K", 1),                  # no query
]
SHOWN = {"q1": ["A", "B", "C", "D"], "q2": ["M", "N", "O"], "q3": ["P", "Q", "R"],
         "q5": ["X", "Y"], "q6": ["7", "8"]}
ATTRIBUTED = sorted([  # (query, item, event_type, position)
    ("q1", "A", "impression", 1), ("q1", "B", "impression", 2), ("q1", "C", "click", 3),
    ("q1", "C", "add_to_cart", 3), ("q1", "A", "purchase", 1), ("q2", "N", "click", 2),
    ("q3", "P", "impression", 1), ("q3", "Q", "impression", 2), ("q3", "R", "impression", 3),
    ("q3", "P", "impression", 1), ("q3", "Q", "click", 2), ("q6", "7", "impression", 1),
    ("q6", "8", "impression", 2), ("q6", "8", "purchase", 2),
])
UNATTRIBUTED = sorted([  # (query, item, action, reason)
    ("q1", "Z", "click", "never shown"), ("q1", "B", "click_through", "unknown event"),
    ("q1", None, "click", "no item"), ("q4", "K", "click", "no position"),
    (None, "K", "click", "no query"),
], key=str)
GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}


def _write(path: Path, documents: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    return path


@pytest.fixture
def ubi(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> duckdb.DuckDBPyConnection:
    queries = _write(tmp_path / "ubi_queries.ndjson", QUERIES)
    events = _write(tmp_path / "ubi_events.ndjson", EVENTS)
    con.execute(f"CREATE TABLE ubi_queries AS SELECT * FROM read_json('{queries}')")
    con.execute(f"CREATE TABLE ubi_events AS SELECT * FROM read_json('{events}')")
    return con


def _shown(con: duckdb.DuckDBPyConnection, options: str = "") -> dict[str, list[tuple]]:
    found: dict[str, list[tuple]] = {}
    for query, item, position in con.sql(
        "SELECT query_id, item_id, position FROM ubi_rankings('ubi_queries', 'ubi_events'"
        f"{options}) ORDER BY query_id, position"
    ).fetchall():
        found.setdefault(query, []).append((item, position))
    return found


def _ndcg(k: int) -> dict[str, float]:
    best: dict[tuple[str, str], int] = {}
    for query, item, event_type, _ in ATTRIBUTED:
        best[query, item] = max(best.get((query, item), 0), GRADES[event_type])
    out = {}
    for query, items in SHOWN.items():
        grades = [best.get((query, i), 0) for i in items]
        scores = list(range(len(grades), 0, -1))
        out[query] = float(ndcg_score([grades], [scores], k=k)) if any(grades) else 0.0
    return out


@pytest.mark.versions
def test_rankings_events_and_report(ubi: duckdb.DuckDBPyConnection) -> None:
    """Shown lists (hit ids, impressions), every event's query or reason, NDCG of each query."""
    assert _shown(ubi) == {q: [(i, n) for n, i in enumerate(items, 1)]
                           for q, items in SHOWN.items()}
    slices = ubi.sql("SELECT DISTINCT query_id, search_term, application, session_id, shown_by "
                     "FROM ubi_rankings('ubi_queries', 'ubi_events') ORDER BY ALL").fetchall()
    assert slices == [("q1", "laptop", "primary-search", "s-q1", "hits"),
                      ("q2", "mouse", "primary-search", "s-q2", "hits"),
                      ("q3", "lap", "type-ahead", "s-q3", "impressions"),
                      ("q5", "cable", "primary-search", None, "hits"),
                      ("q6", None, "mobile", "s-q6", "impressions")]
    events = sorted(ubi.sql("SELECT query_id, item_id, event_type, position "
                            "FROM ubi_events('ubi_queries', 'ubi_events')").fetchall())
    assert events == ATTRIBUTED
    missed = sorted(ubi.sql("SELECT query_id, item_id, event_name, reason "
                            "FROM ubi_unattributed('ubi_queries', 'ubi_events')").fetchall(),
                    key=str)
    assert missed == UNATTRIBUTED
    times = dict(ubi.sql("SELECT event_type || '/' || query_id, event_at::VARCHAR FROM "
                         "ubi_events('ubi_queries', 'ubi_events') WHERE event_type IN "
                         "('purchase', 'click') AND query_id IN ('q1', 'q2')").fetchall())
    assert times == {"purchase/q1": "2025-02-18 10:30:00", "click/q1": "2025-02-18 10:30:00",
                     "click/q2": None}
    ubi.execute("CREATE TABLE shown AS SELECT * FROM ubi_rankings('ubi_queries', 'ubi_events')")
    ubi.execute("CREATE TABLE events AS SELECT * FROM ubi_events('ubi_queries', 'ubi_events')")
    report = ubi.sql("SELECT query_id, k, ndcg FROM ndcg_report('shown', 'events', k := [2, 10])"
                     ).fetchall()
    expected = {(q, k): v for k in (2, 10) for q, v in _ndcg(k).items()}
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in report} == expected


@pytest.mark.versions
@pytest.mark.parametrize("kind", ["MAP(VARCHAR, JSON)", "JSON"])
def test_event_attributes_of_documents_that_differ(ubi: duckdb.DuckDBPyConnection,
                                                   kind: str) -> None:
    """read_json gives event_attributes the type MAP(VARCHAR, JSON) when the documents' keys
    differ too much (SRW's public ESCI UBI sample: browser, page_id, x, y... in one application,
    none in another), or JSON when told; the adapter failed to bind on both ('No function matches
    struct_extract(MAP(VARCHAR, JSON), ...)'). The same events read so give the same rows."""
    ubi.execute(f"CREATE TABLE ubi_events_{len(kind)} AS SELECT * REPLACE "
                f"(event_attributes::JSON::{kind} AS event_attributes) FROM ubi_events")
    events = f"ubi_events_{len(kind)}"
    got = sorted(ubi.sql("SELECT query_id, item_id, event_type, position "
                         f"FROM ubi_events('ubi_queries', '{events}')").fetchall())
    assert got == ATTRIBUTED
    missed = sorted(ubi.sql("SELECT query_id, item_id, event_name, reason "
                            f"FROM ubi_unattributed('ubi_queries', '{events}')").fetchall(),
                    key=str)
    assert missed == UNATTRIBUTED
    assert _shown(ubi.execute(f"CREATE OR REPLACE TABLE ubi_events AS FROM {events}")) == {
        q: [(i, n) for n, i in enumerate(items, 1)] for q, items in SHOWN.items()}


def test_options_and_bad_input(ubi: duckdb.DuckDBPyConnection, check_cases) -> None:
    def base_zero() -> None:  # q6's ordinals 1, 2 read as 0-based are positions 2, 3
        assert _shown(ubi, ", position_base := 0")["q6"] == [("7", 2), ("8", 3)]

    def base_one() -> None:  # q3's impressions start at ordinal 0
        with pytest.raises(duckdb.Error, match=r"ordinal 0 read as 1-based \(position_base := 1\)"):
            _shown(ubi, ", position_base := 1")

    def event_types() -> None:  # click_through is a click; purchases and carts are not read
        types = ", event_types := MAP {'click_through': 'click', 'impression': 'impression'}"
        found = set(ubi.sql("SELECT query_id, item_id, event_type, event_name FROM "
                            f"ubi_events('ubi_queries', 'ubi_events'{types})").fetchall())
        assert ("q1", "B", "click", "click_through") in found
        assert {e[3] for e in found} == {"click_through", "impression"}
        reasons = set(ubi.sql("SELECT item_id, event_name, reason FROM "
                              f"ubi_unattributed('ubi_queries', 'ubi_events'{types})").fetchall())
        assert ("A", "purchase", "unknown event") in reasons

    def bad_ordinal() -> None:
        ubi.execute("CREATE OR REPLACE TABLE broken AS SELECT * REPLACE ({'position': "
                    "{'ordinal': 'abc'}, 'object': event_attributes.object} AS event_attributes) "
                    "FROM ubi_events")
        for macro in ("ubi_rankings", "ubi_events"):
            with pytest.raises(duckdb.Error, match=re.escape(
                    "event_attributes.position.ordinal must be a whole number >= 0, got abc")):
                ubi.sql(f"SELECT * FROM {macro}('ubi_queries', 'broken')").fetchall()

    def missing_hits() -> None:
        ubi.execute("CREATE OR REPLACE TABLE no_hits AS SELECT * EXCLUDE (query_response_hit_ids) "
                    "FROM ubi_queries")
        with pytest.raises(duckdb.Error, match="query_response_hit_ids"):
            ubi.sql("SELECT * FROM ubi_rankings('no_hits', 'ubi_events')").fetchall()

    def options() -> None:
        for option, message in [
            ("position_base := 'first'", "position_base must be 'auto' or 0 or 1, got 'first'"),
            ("event_types := 'click'", "event_types must be a MAP from UBI action name"),
        ]:
            for macro in ("ubi_rankings", "ubi_events", "ubi_unattributed"):
                with pytest.raises(duckdb.Error, match=re.escape(message)):
                    ubi.sql(f"SELECT * FROM {macro}('ubi_queries', 'ubi_events', {option})"
                            ).fetchall()

    check_cases([("base 0", base_zero), ("base 1", base_one), ("event_types", event_types),
                 ("bad ordinal", bad_ordinal), ("missing hit ids", missing_hits),
                 ("options", options)])


def readme_recipe() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^### From GA4 and UBI exports\n(.*?)(?=^##)", text,
                        re.MULTILINE | re.DOTALL)
    assert section, "README has no section '### From GA4 and UBI exports'"
    block = re.search(r"```sql\n-- UBI\n(.*?)```", section.group(1), re.DOTALL)
    assert block, "the section has no UBI recipe"
    return [s.strip() for s in block.group(1).split(";") if s.strip()]


def test_readme_recipe(con: duckdb.DuckDBPyConnection, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's UBI recipe, as written, on the two indexes exported as NDJSON; then
    evaluate() on the tables it makes."""
    _write(tmp_path / "ubi_queries.ndjson", QUERIES)
    _write(tmp_path / "ubi_events.ndjson", EVENTS)
    monkeypatch.chdir(tmp_path)
    results = [r for r in (con.sql(s) for s in readme_recipe()) if r is not None]
    summary, unattributed = results[-2:]
    expected = _ndcg(10)
    by_application: dict[str, list[float]] = {}
    applications = {"q3": "type-ahead", "q6": "mobile"}
    for query, value in expected.items():
        by_application.setdefault(applications.get(query, "primary-search"), []).append(value)
    columns = summary.columns
    got = {r[columns.index("application")]: r[columns.index("mean_ndcg")]
           for r in summary.fetchall() if r[columns.index("k")] == 10}
    assert got == {a: pytest.approx(sum(v) / len(v), abs=1e-12)
                   for a, v in by_application.items()}
    assert dict(unattributed.fetchall()) == {"never shown": 1, "unknown event": 1, "no item": 1,
                                             "no position": 1, "no query": 1}
    report = duckdb_ndcg.evaluate("shown", "events", k=10, con=con).fetchall()
    assert {r[0]: pytest.approx(r[2], abs=1e-12) for r in report} == expected


def test_cli_reads_the_adapters_output(ubi: duckdb.DuckDBPyConnection, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The adapters' tables written to Parquet, then `duckdb-ndcg evaluate` on them: unchanged."""
    shown, events, out = tmp_path / "shown.parquet", tmp_path / "events.parquet", tmp_path / "r.csv"
    ubi.execute(f"COPY (SELECT * FROM ubi_rankings('ubi_queries', 'ubi_events')) TO '{shown}'")
    ubi.execute(f"COPY (SELECT * FROM ubi_events('ubi_queries', 'ubi_events')) TO '{events}'")
    code = cli.main(["evaluate", str(shown), str(events), "--k", "2,10", "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    got = ubi.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    expected = {(q, k): v for k in (2, 10) for q, v in _ndcg(k).items()}
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in got} == expected


def test_evaluate_and_cli_take_the_two_tables(ubi: duckdb.DuckDBPyConnection, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """evaluate(queries, events, source='ubi') and `duckdb-ndcg evaluate --source ubi`: the
    report of the adapters' tables; a missed interaction share above 10 % is a warning."""
    expected = {(q, k): v for k in (2, 10) for q, v in _ndcg(k).items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = duckdb_ndcg.evaluate("ubi_queries", "ubi_events", source="ubi", k=[2, 10], con=ubi)
        rows = got.select("query_id, k, ndcg").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in rows} == expected
    missed = [m for m in UNATTRIBUTED if m[3] != "unknown event"]
    unattributed = [str(w.message) for w in caught if str(w.message).startswith("ubi: ")]
    assert bool(unattributed) == (len(missed) > 0.1 * (len(missed) + len(ATTRIBUTED)))
    queries, events, out = tmp_path / "q.parquet", tmp_path / "e.parquet", tmp_path / "r.csv"
    ubi.execute(f"COPY ubi_queries TO '{queries}'")
    ubi.execute(f"COPY ubi_events TO '{events}'")
    code = cli.main(["evaluate", str(queries), str(events), "--source", "ubi", "--k", "2,10",
                     "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = ubi.sql(f"SELECT query_id, k, ndcg FROM '{out}'").fetchall()
    assert {(q, k): pytest.approx(v, abs=1e-12) for q, k, v in rows} == expected
