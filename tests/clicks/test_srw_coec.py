"""click_grades(model := 'coec') on SRW's own ESCI UBI sample, against SearchRelevance Workbench's
rule recorded offline (tests/fixtures/clicks/make_srw_coec.py: a port of CoecClickModel.java run on
an excerpt of src/test/data-esci/ubi_queries_events.ndjson, ratings printed as Java's "%.3f").

The excerpt is a real log with SRW's quirks: (query, item) pairs with clicks and no impression
(12 at max_rank 20; graded 0 with impressions 0, as SRW does), ordinals up to 20, two
applications."""

from __future__ import annotations

import duckdb
import pytest
from clicks_data import FIXTURES, read_csv

CASES = {  # the fixture's case: click_grades' options
    "max_rank_20": "",
    "max_rank_3": ", max_rank := 3",
    "dates": ", time_col := 'day', start_date := '2024-12-11', end_date := '2025-01-24'",
}


@pytest.fixture
def esci(log: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    log.execute("CREATE TABLE IF NOT EXISTS esci AS SELECT * FROM read_csv(?, header := true, "
                "columns := {'user_query': 'VARCHAR', 'object_id': 'VARCHAR', "
                "'action_name': 'VARCHAR', 'ordinal': 'INTEGER', 'day': 'DATE', "
                "'session': 'VARCHAR'})", [str(FIXTURES / "srw_esci_events.csv")])
    return log


@pytest.mark.versions
@pytest.mark.parametrize("case", CASES)
def test_coec_equals_srw_on_its_esci_sample(esci: duckdb.DuckDBPyConnection, case: str) -> None:
    """Every pair's rating (to the printed 3 decimals), clicks, impressions and lowest ordinal."""
    got = {(q, d): (rel, clicks, imps, rnk) for q, d, rel, clicks, imps, rnk in esci.execute(
        "SELECT query_id, item_id, rel, clicks, impressions, rnk FROM click_grades('esci', "
        "query_col := 'user_query', item_col := 'object_id', position_col := 'ordinal', "
        f"action_col := 'action_name'{CASES[case]})").fetchall()}
    oracle = {(r["user_query"], r["object_id"]): (
        float(r["rating"]), int(r["clicks"]), int(r["impressions"]), int(r["rank"]))
        for r in read_csv("srw_esci_coec.csv") if r["case"] == case}
    assert len(oracle) > 200
    assert sum(v[0] > 0 for v in oracle.values()) > 20  # not a table of zeros
    assert got == oracle
