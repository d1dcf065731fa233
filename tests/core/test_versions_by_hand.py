"""A hand-computed result for each public macro that no other ``versions`` test reaches: the mean
family, f1_at_k, rbp, rbp_residual and event_match, on every supported DuckDB
(tests/core/test_versions_selection.py). Their oracle sweeps (ranx, ir_measures) run on the
newest DuckDB; ranx compiles its metrics with numba when imported, 18 s of CPU per process.
"""

from __future__ import annotations

from math import log2

import duckdb
import pytest

pytestmark = pytest.mark.versions

# Two queries, untied. q1: grades 3, 0, 1 at positions 1-3 and a 2 judged but not returned
# (relevant at threshold 1: a, c, d); q2: grades 0, 2 at positions 1-2 (relevant: b).
JUDGED = """CREATE TABLE judged AS SELECT * FROM (VALUES
    ('q1', 'a', 3.0, 1), ('q1', 'b', 0.0, 2), ('q1', 'c', 1.0, 3), ('q1', 'd', 2.0, NULL),
    ('q2', 'a', 0.0, 1), ('q2', 'b', 2.0, 2)) AS v(query_id, item_id, rel, rnk)"""

L3 = log2(3)
AT_2 = {
    # q1: 1 of 2 relevant, q2: 1 of 2
    "mean_precision_at_k(query_id, rel, rnk, 2)": (1 / 2 + 1 / 2) / 2,
    # q1: 1 of its 3 relevant, q2: its only one
    "mean_recall_at_k(query_id, rel, rnk, 2)": (1 / 3 + 1) / 2,
    "mean_hit_rate(query_id, rel, rnk, 2)": 1.0,
    "mean_reciprocal_rank(query_id, rel, rnk, 2)": (1 + 1 / 2) / 2,
    # precision at each relevant row returned, over the relevant rows: q1 1 / 3, q2 (1 / 2) / 1
    "mean_average_precision(query_id, rel, rnk, 2)": (1 / 3 + 1 / 2) / 2,
    # q1: 3 / (3 + 2 / log2 3) (the ideal over every judged row), q2: (2 / log2 3) / 2
    "mean_ndcg(query_id, rel, rnk, 2)": (3 / (3 + 2 / L3) + 1 / L3) / 2,
}


@pytest.mark.parametrize("call", sorted(AT_2))
def test_mean_family_at_2(con: duckdb.DuckDBPyConnection, call: str) -> None:
    con.execute(JUDGED)
    (got,) = con.execute(f"SELECT {call} FROM judged").fetchone()
    assert got == pytest.approx(AT_2[call], abs=1e-12)


def test_f1_at_k(con: duckdb.DuckDBPyConnection) -> None:
    """q1 at k = 2: precision 1 / 2, recall 1 / 3 (a, c, d relevant), F1 = 2PR / (P + R) = 2 / 5."""
    con.execute(JUDGED)
    (got,) = con.execute(
        "SELECT f1_at_k(rel, rnk, 2) FROM judged WHERE query_id = 'q1'"
    ).fetchone()
    assert got == pytest.approx(2 / 5, abs=1e-12)


def test_rbp_and_its_residual(con: duckdb.DuckDBPyConnection) -> None:
    """Relevant at position 1, unjudged at 2, not relevant at 3, p = 0.8: rbp (1 - p) = 0.2, the
    residual (1 - p) p for the unjudged row plus p^3 for what follows the ranking."""
    got = con.execute(
        "SELECT rbp(rel, rnk), rbp_residual(rel, rnk) "
        "FROM (VALUES (1, 1), (NULL, 2), (0, 3)) v(rel, rnk)"
    ).fetchone()
    assert got == pytest.approx((0.2, 0.2 * 0.8 + 0.8**3), abs=1e-12)


def test_event_match(con: duckdb.DuckDBPyConnection) -> None:
    """Two events of positive grade (a click on a shown item, a purchase of an unshown one) and an
    impression (grade 0, not sampled): 2 sampled, 1 matched."""
    con.execute(
        "CREATE TABLE shown AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 2)) "
        "v(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q1', 'a', 'click'), "
        "('q1', 'z', 'purchase'), ('q2', 'a', 'impression')) v(query_id, item_id, event_type)"
    )
    assert con.execute("SELECT * FROM event_match('shown', 'events')").fetchall() == [(2, 1)]
