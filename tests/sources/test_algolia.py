"""The Algolia adapter (issue 22): algolia_rankings reads a log of search responses (queryID,
page, hitsPerPage, hits), algolia_events and algolia_unattributed the Insights events as sent
(NDJSON read with read_json: objectIDs, positions, objectData with a queryID per object).

Oracles: absolute positions, each object's search and reason worked out by hand below, and NDCG
per search from scikit-learn's ndcg_score (every graded item is shown)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest
from sklearn.metrics import ndcg_score

import duckdb_ndcg

ROOT = Path(__file__).resolve().parents[2]


def _response(query_id: str, text: str, page: int, hits: list[str]) -> dict:
    return {"hits": [{"objectID": h, "name": f"item {h}"} for h in hits], "nbHits": 40,
            "page": page, "hitsPerPage": 3, "query": text, "params": f"query={text}",
            "index": "products", "queryID": query_id}


def _insight(event_type: str, query_id: str | None, objects: list[str], subtype: str | None = None,
             data: list[dict] | None = None, positions: list[int] | None = None) -> dict:
    event = {"eventType": event_type, "eventName": "Product " + event_type, "index": "products",
             "userToken": "anonymous-1", "authenticatedUserToken": "user-1",
             "timestamp": 1_739_874_600_000, "objectIDs": objects}
    for key, value in (("eventSubtype", subtype), ("queryID", query_id), ("objectData", data),
                       ("positions", positions)):
        if value is not None:
            event[key] = value
    return event


RESPONSES = [
    _response("Q1", "phone", 0, ["P1", "P2", "P3"]),
    _response("Q2", "phone", 1, ["P4", "P5", "P6"]),  # page 1 of 3 a page: positions 4, 5, 6
    _response("Q3", "case", 0, ["C1", "C2"]),
]
EVENTS = [
    _insight("click", "Q1", ["P2"], positions=[2]),
    _insight("click", "Q2", ["P5", "P6"], positions=[5, 6]),
    _insight("conversion", "Q1", ["P2"], "addToCart", [{"price": 10.0, "quantity": 2}]),
    # one order, two searches: P2 from Q1, C1 from Q3 (its objectData says so)
    _insight("conversion", "Q1", ["P2", "C1"], "purchase",
             [{"queryID": "Q1", "price": 10.0, "quantity": 1},
              {"queryID": "Q3", "price": "4.5", "quantity": 2}]),
    _insight("view", None, ["P1"]),                    # no query
    _insight("click", "Q9", ["X"], positions=[1]),     # Q9 not in the log: no position
    _insight("click", "Q1", ["P9"], positions=[9]),    # never shown
    _insight("conversion", "Q3", ["C2"]),              # no subtype: unknown event
    _insight("click", "Q3", [""], positions=[1]),      # no item
]
SHOWN = {"Q1": ["P1", "P2", "P3"], "Q2": ["P4", "P5", "P6"], "Q3": ["C1", "C2"]}
ATTRIBUTED = sorted([  # (query, item, event_type, position, value)
    ("Q1", "P2", "click", 2, None), ("Q2", "P5", "click", 5, None), ("Q2", "P6", "click", 6, None),
    ("Q1", "P2", "add_to_cart", 2, 20.0), ("Q1", "P2", "purchase", 2, 10.0),
    ("Q3", "C1", "purchase", 1, 9.0),
], key=str)
UNATTRIBUTED = sorted([
    (None, "P1", "view", "no query"), ("Q9", "X", "click", "no position"),
    ("Q1", "P9", "click", "never shown"), ("Q3", "C2", "conversion", "unknown event"),
    ("Q3", None, "click", "no item"),
], key=str)
GRADES = {"click": 1, "add_to_cart": 2, "purchase": 3}


@pytest.fixture
def algolia(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> duckdb.DuckDBPyConnection:
    for name, documents in (("responses", RESPONSES), ("insights_events", EVENTS)):
        path = tmp_path / f"{name}.ndjson"
        path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_json('{path}')")
    return con


def _ndcg(k: int) -> dict[str, float]:
    best: dict[tuple[str, str], int] = {}
    for query, item, event_type, *_ in ATTRIBUTED:
        best[query, item] = max(best.get((query, item), 0), GRADES[event_type])
    return {q: float(ndcg_score([[best.get((q, i), 0) for i in items]],
                                [list(range(len(items), 0, -1))], k=k))
            for q, items in SHOWN.items()}


@pytest.mark.versions
def test_rankings_events_and_report(algolia: duckdb.DuckDBPyConnection) -> None:
    shown = algolia.sql("SELECT query_id, item_id, position, search_term FROM "
                        "algolia_rankings('responses') ORDER BY query_id, position").fetchall()
    assert shown == [("Q1", "P1", 1, "phone"), ("Q1", "P2", 2, "phone"), ("Q1", "P3", 3, "phone"),
                     ("Q2", "P4", 4, "phone"), ("Q2", "P5", 5, "phone"), ("Q2", "P6", 6, "phone"),
                     ("Q3", "C1", 1, "case"), ("Q3", "C2", 2, "case")]
    events = sorted(algolia.sql("SELECT query_id, item_id, event_type, position, value FROM "
                                "algolia_events('responses', 'insights_events')").fetchall(),
                    key=str)
    assert events == ATTRIBUTED
    missed = sorted(algolia.sql("SELECT query_id, item_id, event_name, reason FROM "
                                "algolia_unattributed('responses', 'insights_events')").fetchall(),
                    key=str)
    assert missed == UNATTRIBUTED
    algolia.execute("CREATE TABLE shown AS SELECT * FROM algolia_rankings('responses')")
    algolia.execute("CREATE TABLE events AS SELECT * FROM "
                    "algolia_events('responses', 'insights_events')")
    report = algolia.sql("SELECT query_id, ndcg FROM ndcg_report('shown', 'events', k := 10)"
                         ).fetchall()
    assert {q: pytest.approx(v, abs=1e-12) for q, v in report} == _ndcg(10)


def test_options_and_bad_input(algolia: duckdb.DuckDBPyConnection, check_cases) -> None:
    def conversions_as_purchases() -> None:
        types = ", event_types := MAP {'conversion': 'purchase', 'click': 'click'}"
        found = set(algolia.sql("SELECT query_id, item_id, event_type FROM algolia_events("
                                f"'responses', 'insights_events'{types})").fetchall())
        assert ("Q3", "C2", "purchase") in found
        assert ("Q1", "P2", "add_to_cart") not in found

    def bad_types() -> None:
        for macro in ("algolia_events", "algolia_unattributed"):
            with pytest.raises(duckdb.Error, match=re.escape(
                    "event_types must be a MAP from Algolia event")):
                algolia.sql(f"SELECT * FROM {macro}('responses', 'insights_events', "
                            "event_types := 7)").fetchall()

    def page_without_size() -> None:
        algolia.execute("CREATE OR REPLACE TABLE no_size AS SELECT * REPLACE "
                        "(NULL::BIGINT AS hitsPerPage) FROM responses")
        with pytest.raises(duckdb.Error, match=r"page must be a whole number >= 0 with "
                                               r"hitsPerPage, got page 1, hitsPerPage NULL"):
            algolia.sql("SELECT * FROM algolia_rankings('no_size')").fetchall()

    def missing_hits() -> None:
        algolia.execute("CREATE OR REPLACE TABLE no_hits AS SELECT * EXCLUDE (hits) "
                        "FROM responses")
        with pytest.raises(duckdb.Error, match='"hits"'):
            algolia.sql("SELECT * FROM algolia_rankings('no_hits')").fetchall()

    check_cases([("conversions as purchases", conversions_as_purchases),
                 ("bad event_types", bad_types), ("page without size", page_without_size),
                 ("missing hits", missing_hits)])


def test_readme_recipe(con: duckdb.DuckDBPyConnection, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sql\n-- Algolia\n(.*?)```", text, re.DOTALL)
    assert block, "README has no Algolia recipe"
    for name, documents in (("responses", RESPONSES), ("insights_events", EVENTS)):
        (tmp_path / f"{name}.ndjson").write_text(
            "".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    results = [r for r in (con.sql(s) for s in block.group(1).split(";") if s.strip())
               if r is not None]
    summary, unattributed = results[-2:]
    expected = _ndcg(10)
    columns = summary.columns
    (row,) = [r for r in summary.fetchall() if r[columns.index("k")] == 10]
    assert row[columns.index("mean_ndcg")] == pytest.approx(
        sum(expected.values()) / len(expected), abs=1e-12)
    assert sum(n for _, n in unattributed.fetchall()) == len(UNATTRIBUTED)


def test_evaluate_takes_responses_and_events(algolia: duckdb.DuckDBPyConnection) -> None:
    """evaluate(responses, events, source='algolia'): the report of the adapters' tables, and the
    warning counting the 4 interactions (of 10 the adapter reads) it could not attribute."""
    warning = (r"^algolia: 4 of 10 interactions \(40 %\) could not be attributed to a search and "
               r"are not graded \(never shown 1, no item 1, no position 1, no query 1\)")
    with pytest.warns(UserWarning, match=warning):
        got = duckdb_ndcg.evaluate("responses", "insights_events", source="algolia", con=algolia)
    rows = got.select("query_id, ndcg").fetchall()
    assert {q: pytest.approx(v, abs=1e-12) for q, v in rows} == _ndcg(10)
