"""A realistic, reproducible e-commerce search log with two rankers, made inside DuckDB."""

from __future__ import annotations

import duckdb

# Every table generate() creates or replaces (demo_candidates only while it runs), and the start
# of the comment it gives the two it keeps: how the CLI tells them from a user's tables.
TABLES = ("demo_candidates", "demo_events", "demo_rankings")
MARK = "duckdb_ndcg demo"

_CATALOG = 30  # candidate items per query
_SHOWN = 10  # items each ranker shows

# Every random draw hashes ONE value, the seed and the draw's parts joined by ':', so it is
# deterministic under parallel execution. DuckDB's multi-argument hash(a, b, ...) combines the
# hashes of its arguments with correlated low bits: hash(seed, query_id, s) % 2 gave only two
# A/B patterns over sessions 0-3 across all queries.


def _hash(seed: int, *parts: str) -> str:
    """SQL: a 64-bit hash of the seed and ``parts`` (SQL expressions) as one text value."""
    return f"hash(concat_ws(':', {int(seed)}, {', '.join(parts)}))"


def _u(seed: int, *parts: str) -> str:
    """SQL: a uniform draw in [0, 1) from the seed and ``parts``."""
    return f"({_hash(seed, *parts)} / 18446744073709551616.0)"


def generate(con: duckdb.DuckDBPyConnection, *, queries: int = 2000, seed: int = 7) -> None:
    """Create tables ``demo_rankings`` and ``demo_events`` in ``con``.

    ``demo_rankings(query_id, item_id, position, score, ranker, device)``: ranker ``'A'``
    (production, noisy) and ``'B'`` (candidate, less noisy) each show 10 of 30 candidate items.
    ``demo_events(session_id, query_id, item_id, event_type, ts, device)``: an A/B test, half of
    the sessions see A, half B; users click with a position bias (1 / position^0.8) times the
    item's hidden quality; some clicks become add_to_cart, a few purchases.

    Example::

        generate(con, queries=500); con.sql("SELECT * FROM ndcg_summary('demo_rankings', ...)")
    """
    if not isinstance(queries, int) or queries < 1:
        raise ValueError(f"queries must be a positive whole number, got {queries!r}")
    quality = f"floor(4 * pow({_u(seed, 'q', 'i', '1')}, 1.6))"
    con.execute(f"""
        CREATE OR REPLACE TABLE demo_candidates AS
        SELECT 'q' || lpad(q::VARCHAR, 5, '0') AS query_id,
               'sku-' || lpad(((q * 7919 + i * 104729) % 100000)::VARCHAR, 5, '0') AS item_id,
               {quality} AS quality,
               ['mobile', 'desktop', 'tablet'][1 + ({_hash(seed, "q", "'device'")} % 3)::INTEGER]
                   AS device,
               q, i
        FROM range({queries}) AS a(q), range({_CATALOG}) AS b(i)
    """)
    con.execute(f"""
        CREATE OR REPLACE TABLE demo_rankings AS
        WITH scored AS (
            SELECT query_id, item_id, device, r.ranker,
                   round(quality + r.noise * (2 * {_u(seed, "q", "i", "r.ranker")} - 1), 4) AS score
            FROM demo_candidates,
                 (VALUES ('A', 3.0), ('B', 1.2)) AS r(ranker, noise)
        )
        SELECT query_id, item_id,
               row_number() OVER (PARTITION BY ranker, query_id ORDER BY score DESC, item_id)
                   AS position,
               score, ranker, device
        FROM scored
        QUALIFY position <= {_SHOWN}
    """)
    con.execute(f"""
        CREATE OR REPLACE TABLE demo_events AS
        WITH sessions AS (
            SELECT query_id, device, s,
                   'sess-' || query_id || '-' || s::VARCHAR AS session_id,
                   CASE WHEN {_hash(seed, "query_id", "s", "'ab'")} % 2 = 0 THEN 'A' ELSE 'B' END
                       AS ranker,
                   TIMESTAMP '2024-03-01' + to_seconds(
                       ({_hash(seed, "query_id", "s", "'t'")} % (14 * 86400))::BIGINT) AS started
            FROM (SELECT DISTINCT query_id, device, q FROM demo_candidates),
                 range(1 + ({_hash(seed, "q", "'n'")} % 4)::BIGINT) AS t(s)
        ),
        seen AS (
            SELECT s.session_id, s.query_id, r.item_id, r.position, s.started, s.device,
                   c.quality, {_u(seed, "s.session_id", "r.item_id", "'u'")} AS u
            FROM sessions AS s
            JOIN demo_rankings AS r USING (query_id, ranker)
            JOIN demo_candidates AS c USING (query_id, item_id)
        ),
        acts AS (
            SELECT *, 'impression' AS event_type, 0 AS step FROM seen
            UNION ALL
            SELECT *, 'click', 1 FROM seen
            WHERE u < pow(position, -0.8) * (0.01 + 0.12 * quality)
            UNION ALL
            SELECT *, 'add_to_cart', 2 FROM seen
            WHERE u < pow(position, -0.8) * (0.01 + 0.12 * quality) * (0.1 + 0.2 * quality)
            UNION ALL
            SELECT *, 'purchase', 3 FROM seen
            WHERE u < pow(position, -0.8) * (0.01 + 0.12 * quality) * (0.1 + 0.2 * quality)
                      * 0.12 * quality
        )
        SELECT session_id, query_id, item_id, event_type,
               started + to_seconds(position * 3 + step * 20) AS ts, device
        FROM acts
        ORDER BY ts, session_id, step
    """)
    con.execute("DROP TABLE demo_candidates")
    for table in ("demo_rankings", "demo_events"):
        con.execute(f"COMMENT ON TABLE {table} IS '{MARK} (seed {int(seed)}, {queries} queries)'")
