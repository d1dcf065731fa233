"""NDCG from polars data frames, back as polars data frames: ``evaluate(...).pl()``."""

from __future__ import annotations

import polars as pl

import duckdb_ndcg

# what was shown (query, item, position, device) and what users did
shown = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3"],
        "item_id": ["a", "b", "c", "d", "e", "f", "g", "h"],
        "position": [1, 2, 3, 1, 2, 3, 1, 2],
        "device": [
            "mobile",
            "mobile",
            "mobile",
            "desktop",
            "desktop",
            "desktop",
            "mobile",
            "mobile",
        ],
    }
)
events = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q2", "q2", "q3"],
        "item_id": ["a", "c", "f", "f", "h"],
        "event_type": ["click", "purchase", "click", "add_to_cart", "click"],
    }
)

report = duckdb_ndcg.evaluate(shown, events, k=[1, 3], slice_by=["device"]).pl()
summary = duckdb_ndcg.evaluate(shown, events, k=3, slice_by=["device"], shape="summary").pl()
print(report.select("device", "query_id", "k", "ndcg"))
print(summary.select("device", "k", "queries", "mean_ndcg"))
