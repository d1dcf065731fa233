"""The portable UBI and GA4 statements (events_to_sql(..., source=...), issue 22 item 7) on the
suite's local Spark session (spark_engine's): every query's NDCG@2 and NDCG@10 equal the
hand-made numbers of tests/sources/test_ubi.py and test_ga4.py (scikit-learn's ndcg_score on
grades worked out by hand from the documents), for UBI, GA4 attributed 'last' and GA4 attributed
'first', in one test sharing one load of the fixtures.

Adaptive query execution is off while the statements run: they are CTE-nested, Spark inlines a
CTE wherever it is read, and each statement becomes dozens of small stages that adaptive
execution plans again one by one. Measured after another Spark test (the session warm; load
about 4.5, --durations): the three statements 26.3 s with it, 18.6 s without, the same rows;
as one UNION ALL query they took 25.7 s (Spark's InlineCTE and analyser rules grow with it)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Engine

from duckdb_ndcg.portable import events_to_sql

# the hand-made numbers live with the DuckDB adapters' tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sources"))
import test_ga4
import test_ubi

GA4 = (
    "event_date STRING, event_timestamp BIGINT, event_name STRING, event_params ARRAY<STRUCT<"
    "key: STRING, value: STRUCT<string_value: STRING, int_value: BIGINT, float_value: DOUBLE, "
    "double_value: DOUBLE>>>, user_pseudo_id STRING, device STRUCT<category: STRING, "
    "operating_system: STRING>, items ARRAY<STRUCT<item_id: STRING, item_name: STRING, price: "
    "DOUBLE, quantity: BIGINT, item_revenue: DOUBLE, item_list_id: STRING, item_list_name: "
    "STRING, item_list_index: STRING>>"
)
UBI_QUERIES = "query_id STRING, application STRING, query_response_hit_ids ARRAY<STRING>"
UBI_EVENTS = (
    "action_name STRING, query_id STRING, application STRING, event_attributes STRUCT<object: "
    "STRUCT<object_id: STRING>, position: STRUCT<ordinal: BIGINT>>"
)
KS = (2, 10)


@pytest.fixture(scope="module")
def spark(spark_engine: Engine) -> Iterator[object]:
    """The suite's SparkSession (spark_engine's), with the UBI and GA4 fixtures of
    tests/sources as temporary views, adaptive execution off while this module runs."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.getOrCreate()
    session.createDataFrame([tuple(r) for r in test_ga4._export()], GA4).createOrReplaceTempView(
        "sources_ga4_export")
    queries = [(q["query_id"], q["application"], list(q["query_response_hit_ids"]))
               for q in test_ubi.QUERIES]
    session.createDataFrame(queries, UBI_QUERIES).createOrReplaceTempView("sources_ubi_queries")
    events = []
    for e in test_ubi.EVENTS:
        attributes = e["event_attributes"]
        item = attributes.get("object", {}).get("object_id")
        events.append((e["action_name"], e["query_id"], e["application"],
                       {"object": {"object_id": None if item is None else str(item)},
                        "position": {"ordinal": attributes["position"]["ordinal"]}}))
    session.createDataFrame(events, UBI_EVENTS).createOrReplaceTempView("sources_ubi_events")
    adaptive = session.conf.get("spark.sql.adaptive.enabled")
    session.conf.set("spark.sql.adaptive.enabled", "false")
    yield session
    session.conf.set("spark.sql.adaptive.enabled", adaptive)
    for view in ("sources_ga4_export", "sources_ubi_queries", "sources_ubi_events"):
        session.catalog.dropTempView(view)


def test_ubi_and_ga4_on_spark(spark: object) -> None:
    """UBI, GA4 'last' (the default) and GA4 'first' (test_ga4's S2 purchase of b goes to S1,
    where b sat at position 2) in one query: each case's rows equal the hand-made NDCG."""
    first = test_ga4.ATTRIBUTED - {(test_ga4.S2, "b", "purchase", "purchase", 25.0, 1)} | {
        (test_ga4.S1, "b", "purchase", "purchase", 25.0, 2)}
    cases = {
        "ubi": ({"source": "ubi", "rankings": "sources_ubi_queries",
                 "events": "sources_ubi_events"},
                {k: test_ubi._ndcg(k) for k in KS}),
        "ga4 last": ({"source": "ga4", "rankings": "sources_ga4_export"},
                     {k: test_ga4._ndcg(test_ga4._grades(test_ga4.ATTRIBUTED), k) for k in KS}),
        "ga4 first": ({"source": "ga4", "rankings": "sources_ga4_export",
                       "source_options": {"attribution": "first"}},
                      {k: test_ga4._ndcg(test_ga4._grades(first), k) for k in KS}),
    }
    got: dict[str, dict[str, tuple[float, float]]] = {}
    for case, (arguments, _) in cases.items():
        rows = spark.sql(events_to_sql("spark", k=list(KS), **arguments)).collect()
        got[case] = {query: tuple(ndcg) for query, *ndcg in rows}
    for case, (_, expected) in cases.items():
        want = {q: tuple(pytest.approx(expected[k][q], abs=1e-12) for k in KS)
                for q in expected[KS[0]]}
        assert got[case] == want, case
