"""Attribution stays linear in the showings of one (user, item): every source's interactions macro
attributes each interaction through _ndcg_attributed (sql/sources/shared.sql), and the portable
GA4 statement (events_to_sql(..., source='ga4')) finds each list view's search and each
interaction's showing by running windows over time, not by joins on (user, session) and
(user, item).

Growth, not seconds (as tests/core/test_linear_time.py): the same 40,000 GA4 events (20,000
searches, each showing one item and then selecting it) once as 20 users each searching their own
item 1,000 times and once as one user searching one item 20,000 times (a bot). Work linear in the
rows costs about the same both ways; pairing each interaction with every earlier showing of its
(user, item), as the attribution did with a join, costs 1,000 times more pairs on the one user
(16 s against 0.1 s at 20,000; 65 s at 40,000, where the windows take 0.09 s). Times are CPU
seconds of this process, both shapes measured in turn. Values: every select_item goes to the
search just before it (the latest showing), on both shapes."""

from __future__ import annotations

import resource

import duckdb

import duckdb_ndcg
from duckdb_ndcg.portable import events_to_sql

SEARCHES = 20_000


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _export(con: duckdb.DuckDBPyConnection, users: int, searches: int = SEARCHES) -> None:
    """A GA4 export (its columns, nested as BigQuery writes them) of ``searches`` searches by
    ``users`` users: search n by user n % users, one second apart, showing item n % users at
    index 0 half a second later and selected a quarter second after that."""
    con.execute(f"""
        CREATE OR REPLACE TABLE export AS
        SELECT '20240101' AS event_date,
               1704067200000000 + n * 1000000 + o AS event_timestamp, name AS event_name,
               [{{'key': 'ga_session_id', 'value': {{'string_value': NULL, 'int_value': 1,
                  'float_value': NULL, 'double_value': NULL}}}},
                {{'key': 'search_term', 'value': {{'string_value': 'shoes', 'int_value': NULL,
                  'float_value': NULL, 'double_value': NULL}}}}] AS event_params,
               'u' || (n % {users}) AS user_pseudo_id, {{'category': 'mobile'}} AS device,
               CASE WHEN name = 'view_search_results' THEN []
                    ELSE [{{'item_id': 'i' || (n % {users}), 'price': 1.0, 'quantity': 1,
                            'item_revenue': NULL::DOUBLE, 'item_list_name': 'search results',
                            'item_list_index': CASE WHEN name = 'view_item_list' THEN '0' END}}]
               END AS items
        FROM range({searches}) t(n),
             (VALUES ('view_search_results', 0), ('view_item_list', 500000),
                     ('select_item', 750000)) v(name, o)""")


def _attributed(con: duckdb.DuckDBPyConnection) -> tuple[float, list[tuple]]:
    before = _cpu()
    rows = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE split_part(query_id, '/', 3)::BIGINT "
        "= epoch_us(event_at) - 750000), count(DISTINCT query_id) FROM ga4_events('export')"
    ).fetchall()
    return _cpu() - before, rows


def test_one_user_and_item_shown_many_times_is_attributed_in_linear_time() -> None:
    con = duckdb_ndcg.register(duckdb.connect())
    _export(con, users=20)
    spread, spread_rows = _attributed(con)
    _export(con, users=1)
    one, one_rows = _attributed(con)
    # every click goes to the search 0.75 s before it, the one that showed the item last
    assert spread_rows == one_rows == [(SEARCHES, SEARCHES, SEARCHES)]
    assert one < 5 * spread + 1.0, (
        f"one (user, item) shown {SEARCHES:,} times: {one:.2f} CPU s against {spread:.2f} s "
        "for the same rows over 20 pairs"
    )


def test_the_portable_statement_is_linear_too() -> None:
    """The same two shapes through the portable GA4 statement on DuckDB: with joins on (user,
    session) and (user, item) it took 4.2 CPU s against 0.55 s at 5,000 searches and did not
    finish in 5 minutes at 20,000; now 2.5 s against 2.3 s at 40,000. Every search's NDCG@10 is
    1: its one item, selected (the latest showing takes the click)."""
    con = duckdb.connect()
    sql = events_to_sql("duckdb", rankings="export", source="ga4", k=10)
    seconds, rows = {}, {}
    for users in (20, 1):
        _export(con, users=users)
        before = _cpu()
        rows[users] = con.sql(f"SELECT count(*), min(ndcg), max(ndcg) FROM ({sql})").fetchall()
        seconds[users] = _cpu() - before
    assert rows[20] == rows[1] == [(SEARCHES, 1.0, 1.0)]
    assert seconds[1] < 5 * seconds[20] + 1.0, (
        f"one (user, item) shown {SEARCHES:,} times: {seconds[1]:.2f} CPU s against "
        f"{seconds[20]:.2f} s for the same rows over 20 pairs"
    )
