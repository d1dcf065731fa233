"""Make the DuckDB file a Superset database points at: the ndcg macros plus a judged search log.

    python examples/superset/build_db.py ndcg.duckdb [queries]

Tables (plain tables, so Superset lists them as datasets):
  shown(query_id, item_id, position, score, device)     what ranker A showed, 10 items per query
  events(session_id, query_id, item_id, event_type, ts, device)   clicks, carts, purchases
  judged_run(query_id, item_id, device, rel, rnk)       one row per (query, item): the grade from
      the events (0 when shown without events) and the position (NULL: graded but never shown),
      the input of ndcg(rel, rnk, k) and mean_ndcg(query_id, rel, rnk, k)

Superset 6.1 runs DuckDB 1.5: install() writes a new file in DuckDB 1.4's storage, which 1.4, 1.5
and 2.x all open, and the tables added afterwards keep that storage.
"""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

import duckdb_ndcg
from duckdb_ndcg.demo import generate


def build(path: Path, queries: int = 600) -> None:
    """Write ``path`` afresh: macros, ``shown``, ``events`` and ``judged_run``."""
    path.unlink(missing_ok=True)
    duckdb_ndcg.install(path)  # the macros, in a new file every DuckDB since 1.4 opens
    with duckdb.connect(str(path)) as con:
        generate(con, queries=queries)
        con.execute(
            "CREATE TABLE shown AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = 'A'"
        )
        con.execute("CREATE TABLE events AS SELECT * FROM demo_events")
        con.execute("DROP TABLE demo_rankings")
        con.execute("DROP TABLE demo_events")
        # the FULL OUTER JOIN of what was shown with the grades the events give (ndcg_report's
        # rules: a shown item without events has grade 0, a graded item never shown is ideal only)
        con.execute("""
            CREATE TABLE judged_run AS
            WITH graded AS (SELECT * FROM event_relevance('events')),
                 queries AS (SELECT DISTINCT query_id, device FROM shown)
            SELECT query_id, item_id, q.device, coalesce(g.rel, 0.0) AS rel, s.position AS rnk
            FROM shown AS s FULL OUTER JOIN graded AS g USING (query_id, item_id)
            JOIN queries AS q USING (query_id)
            ORDER BY query_id, rnk
        """)


if __name__ == "__main__":
    build(Path(sys.argv[1]), *(int(a) for a in sys.argv[2:3]))
    print(f"wrote {sys.argv[1]}")
