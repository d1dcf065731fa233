"""A realistic, reproducible e-commerce search log with two rankers, made inside DuckDB."""

from __future__ import annotations

import duckdb

from duckdb_ndcg.macros import literal

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


# The GA4 BigQuery export's columns that the ga4_* adapters read, in the export's own types
# (event_params' value and items' fields as BigQuery writes them; more fields are ignored)
_GA4_PARAM = (
    "STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, "
    "float_value DOUBLE, double_value DOUBLE))"
)
_GA4_ITEM = (
    "STRUCT(item_id VARCHAR, item_name VARCHAR, price DOUBLE, quantity BIGINT, "
    "item_revenue DOUBLE, item_list_id VARCHAR, item_list_name VARCHAR, item_list_index VARCHAR)"
)


def ga4_export(con: duckdb.DuckDBPyConnection, path: str) -> int:
    """Write the demo log (``generate`` first) as a Google Analytics 4 BigQuery export to the
    Parquet file ``path``; returns its number of rows (events).

    Each demo session is one user's session (``user_pseudo_id``, ``ga_session_id``) holding one
    search: a ``view_search_results`` (``search_term`` = the query), then one ``view_item_list``
    of the items the session was shown (``item_list_index`` 0-based, as many sites send it,
    ``item_list_name`` ``'search results'``), then a ``select_item`` per click and an
    ``add_to_cart`` / ``purchase`` per cart or purchase, which carry no list or search: the
    ga4_* adapters attribute them to the showing. Times are INT64 microseconds, dates 'YYYYMMDD'.

    Example::

        generate(con, queries=200); ga4_export(con, "events_demo.parquet")
        con.sql("CREATE VIEW ga4_export AS FROM 'events_demo.parquet'")
        con.sql("SELECT * FROM ga4_rankings('ga4_export')")
    """
    price = f"round(5 + ({_hash(0, 'item_id')} % 9500) / 100.0, 2)"
    item = (
        "{{'item_id': item_id, 'item_name': 'Item ' || item_id, 'price': {price}, "
        "'quantity': {quantity}, 'item_revenue': {revenue}, 'item_list_id': {list_id}, "
        "'item_list_name': {list_name}, 'item_list_index': {index}}}"
    )
    shown_item = item.format(price=price, quantity="NULL", revenue="NULL",
                             list_id="'search'", list_name="'search results'",
                             index="(position - 1)::VARCHAR")  # fmt: skip
    acted_item = item.format(
        price=price,
        quantity="CASE WHEN event_type = 'click' THEN NULL ELSE 1 END",
        revenue=f"CASE WHEN event_type = 'purchase' THEN {price} END",
        list_id="CASE WHEN event_type = 'click' THEN 'search' END",
        list_name="CASE WHEN event_type = 'click' THEN 'search results' END",
        index="CASE WHEN event_type = 'click' THEN (position - 1)::VARCHAR END",
    )
    param = (
        "{{'key': {key}, 'value': {{'string_value': {text}, 'int_value': {number}, "
        "'float_value': NULL, 'double_value': NULL}}}}"
    )
    session = param.format(key="'ga_session_id'", text="NULL", number="session_number")
    term = param.format(key="'search_term'", text="query_id", number="NULL")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _demo_ga4 AS
        WITH shown AS (
            -- the items each session was shown: its impressions, in the order of their times
            SELECT session_id, query_id, item_id, device, ts,
                   row_number() OVER (PARTITION BY session_id ORDER BY ts, item_id) AS position
            FROM demo_events WHERE event_type = 'impression'
        ),
        sessions AS (
            SELECT session_id, any_value(query_id) AS query_id, any_value(device) AS device,
                   min(ts) AS listed, dense_rank() OVER (ORDER BY session_id) AS session_number
            FROM shown GROUP BY session_id
        ),
        acted AS (
            SELECT e.session_id, e.item_id, e.event_type, e.ts, s.position
            FROM demo_events AS e JOIN shown AS s USING (session_id, item_id)
            WHERE e.event_type <> 'impression'
        ),
        rows AS (
            SELECT session_id, listed - INTERVAL 1 SECOND AS ts, 'view_search_results' AS event_name,
                   [{session}, {term}] AS params, []::{_GA4_ITEM}[] AS items
            FROM sessions
            UNION ALL
            SELECT session_id, any_value(listed), 'view_item_list', any_value([{session}]),
                   list({shown_item} ORDER BY position)
            FROM shown JOIN sessions USING (session_id, query_id, device)
            GROUP BY session_id
            UNION ALL
            SELECT session_id, ts,
                   CASE event_type WHEN 'click' THEN 'select_item' ELSE event_type END,
                   [{session}], [{acted_item}]
            FROM acted JOIN sessions USING (session_id)
        )
        SELECT strftime(ts, '%Y%m%d') AS event_date, epoch_us(ts) AS event_timestamp,
               event_name, params::{_GA4_PARAM}[] AS event_params,
               'user-' || session_id AS user_pseudo_id,
               {{'category': device}} AS device, items::{_GA4_ITEM}[] AS items,
               {{'purchase_revenue': CASE WHEN event_name = 'purchase'
                                          THEN items[1].item_revenue END}} AS ecommerce
        FROM rows JOIN sessions USING (session_id)
        ORDER BY event_timestamp, user_pseudo_id, event_name
    """)
    con.execute(f"COPY _demo_ga4 TO {literal(str(path))} (FORMAT PARQUET)")
    rows = con.execute("SELECT count(*) FROM _demo_ga4").fetchone()[0]
    con.execute("DROP TABLE _demo_ga4")
    return int(rows)


# The UBI application each demo device's traffic comes from, and how that application counts its
# ordinals: the web shop sends 1-based positions and no impressions; the apps send 0-based
# positions and log impressions, as applications differ within one UBI index (the ESCI sample)
_UBI_APPLICATIONS = "MAP {'desktop': 'shop-web', 'mobile': 'shop-ios', 'tablet': 'shop-android'}"


def ubi_export(con: duckdb.DuckDBPyConnection, folder: str) -> tuple[int, int]:
    """Write the demo log (``generate`` first) as OpenSearch UBI 1.3.0 indexes, exported as NDJSON:
    ``ubi_queries.ndjson`` and ``ubi_events.ndjson`` in the existing ``folder``; returns their
    numbers of documents (queries, events).

    Each demo session is one UBI query (``query_id`` its session, ``user_query`` the search,
    ``client_id`` the user, ``query_response_hit_ids`` the items it showed in order) from the
    application of its device: ``shop-web`` (desktop) logs clicks, add_to_cart and purchase with
    1-based ``position.ordinal``; ``shop-ios`` and ``shop-android`` (mobile, tablet) also log an
    ``impression`` per shown item, and count ordinals from 0. Timestamps are ISO 8601 in UTC.

    Example::

        generate(con, queries=200); ubi_export(con, ".")
        con.sql("SELECT * FROM ubi_rankings('ubi_queries.ndjson', 'ubi_events.ndjson')")
    """
    iso = "strftime({}, '%Y-%m-%dT%H:%M:%S.%gZ')"
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _demo_ubi_shown AS
        SELECT session_id, query_id, item_id, device, ts,
               {_UBI_APPLICATIONS}[device] AS application,
               row_number() OVER (PARTITION BY session_id ORDER BY ts, item_id) AS position
        FROM demo_events WHERE event_type = 'impression'
    """)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _demo_ubi_queries AS
        SELECT any_value(application) AS application, session_id AS query_id,
               'user-' || session_id AS client_id, any_value(query_id) AS user_query,
               {iso.format("min(ts) - INTERVAL 1 SECOND")} AS "timestamp",
               list(item_id ORDER BY position) AS query_response_hit_ids,
               {{'device': any_value(device)}} AS query_attributes
        FROM _demo_ubi_shown GROUP BY session_id ORDER BY "timestamp", query_id
    """)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _demo_ubi_events AS
        WITH acts AS (
            SELECT s.application, e.event_type AS action_name, s.session_id, s.query_id,
                   e.item_id, e.ts, s.position
            FROM demo_events AS e JOIN _demo_ubi_shown AS s USING (session_id, item_id)
            WHERE e.event_type <> 'impression' OR s.application <> 'shop-web'
        )
        SELECT application, action_name, session_id AS query_id, session_id,
               'user-' || session_id AS client_id, query_id AS user_query,
               {iso.format("ts")} AS "timestamp",
               {{'object': {{'object_id': item_id, 'object_id_field': 'sku'}},
                 'position': {{'ordinal': CASE application WHEN 'shop-web' THEN position
                                                          ELSE position - 1 END}}}}
                   AS event_attributes
        FROM acts ORDER BY "timestamp", query_id, action_name, item_id
    """)
    counts = []
    for table, name in (("_demo_ubi_queries", "ubi_queries"), ("_demo_ubi_events", "ubi_events")):
        path = f"{folder.rstrip('/') or '/'}/{name}.ndjson"
        con.execute(f"COPY {table} TO {literal(path)} (FORMAT JSON)")
        counts.append(int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]))
        con.execute(f"DROP TABLE {table}")
    con.execute("DROP TABLE _demo_ubi_shown")
    return counts[0], counts[1]
