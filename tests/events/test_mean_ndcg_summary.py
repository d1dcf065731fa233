"""mean_ndcg over a judged log equals ndcg_summary over the raw log, slice by slice."""

from __future__ import annotations

import functools

import duckdb
import pytest

from duckdb_ndcg.demo import generate

# One row per (ranker, query, item): what the ranker showed with its grade (0 without events), and
# the query's graded items it did not show (rnk NULL: ideal only) -- ndcg_report's rules.
JUDGED = """
CREATE TABLE judged AS
WITH graded AS (SELECT * FROM event_relevance('demo_events')),
     keys AS (SELECT DISTINCT ranker, device, query_id FROM demo_rankings)
SELECT s.ranker, s.device, s.query_id, coalesce(g.rel, 0.0) AS rel, s.position AS rnk
FROM demo_rankings AS s LEFT JOIN graded AS g USING (query_id, item_id)
UNION ALL
SELECT k.ranker, k.device, k.query_id, g.rel, NULL AS rnk
FROM keys AS k JOIN graded AS g USING (query_id)
WHERE NOT EXISTS (SELECT 1 FROM demo_rankings AS s
                  WHERE s.ranker = k.ranker AND s.query_id = g.query_id AND s.item_id = g.item_id)
"""


SLICES = [["ranker"], ["ranker", "device"], ["device", "ranker"]]
KS = [1, 5, 10]


def _equal(con: duckdb.DuckDBPyConnection, slices: list[str], k: int) -> None:
    cols = ", ".join(f'"{s}"' for s in slices)
    summary = {
        tuple(row[:-1]): row[-1]
        for row in con.execute(
            f"SELECT {cols}, mean_ndcg FROM ndcg_summary('demo_rankings', 'demo_events', "
            "k := ?, slice_by := ?)",
            [k, slices],
        ).fetchall()
    }
    measure = {
        tuple(row[:-1]): row[-1]
        for row in con.execute(
            f"SELECT {cols}, mean_ndcg(query_id, rel, rnk, ?) FROM judged GROUP BY {cols}", [k]
        ).fetchall()
    }
    assert measure.keys() == summary.keys() and len(summary) >= 2
    for key, mean in summary.items():
        assert measure[key] == pytest.approx(mean, abs=1e-12), key


def test_mean_ndcg_equals_ndcg_summary(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each (slices, k) a case, all reading the same log (generate is seeded: the same tables
    every time), made once."""
    generate(con, queries=300)
    con.execute(JUDGED)
    count = check_cases(
        (f"{k}-{'-'.join(slices)}", functools.partial(_equal, con, slices, k))
        for slices in SLICES
        for k in KS
    )
    assert count == 9
