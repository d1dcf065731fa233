"""Common slips in calling the event macros: each works as meant or is one error line naming the
fix. Numbers are hand-computed: one query, item a at position 1 (not clicked) and b at 2
(clicked, grade 1), so NDCG@10 = (1 / log2 3) / 1 = 0.6309."""

from __future__ import annotations

import math

import duckdb
import pytest

NDCG = 1 / math.log2(3)


@pytest.fixture
def log(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    con.execute(
        "CREATE TABLE r_prod AS SELECT * FROM (VALUES ('q1', 'a', 1, 'mobile', 'A'), "
        "('q1', 'b', 2, 'mobile', 'A'), ('q2', 'a', 1, 'desktop', 'B'), "
        "('q2', 'b', 2, 'desktop', 'B')) t(query_id, item_id, position, device, arm)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q1', 'b', 'click'), "
        "('q2', 'b', 'click'), ('q2', 'a', 'impression')) t(query_id, item_id, event_type)"
    )
    con.execute("CREATE SCHEMA logs")
    con.execute("CREATE TABLE logs.ev AS SELECT * FROM events")
    return con


# each macro called with bare (unquoted) table names, and with the names quoted: same rows
BARE_NAMES = {
    "ndcg_report": "SELECT ndcg FROM ndcg_report({r}, {e})",
    "ndcg_summary": "SELECT mean_ndcg FROM ndcg_summary({r}, {e})",
    "compare_rankers": "SELECT ndcg_a, ndcg_b FROM compare_rankers({r}, {r}, {e})",
    "compare_summary": "SELECT mean_a, mean_b FROM compare_summary({r}, {r}, {e})",
    "ab_summary": "SELECT mean_a, mean_b FROM ab_summary({r}, {e}, 'arm', baseline := 'A')",
    "event_relevance": "SELECT item_id, rel FROM event_relevance({e}) ORDER BY ALL",
    "event_match": "SELECT sampled, matched FROM event_match({r}, {e})",
}


@pytest.mark.parametrize("macro", sorted(BARE_NAMES))
@pytest.mark.parametrize("events", ["events", "logs.ev"])
def test_bare_table_names_work(log: duckdb.DuckDBPyConnection, macro: str, events: str) -> None:
    sql = BARE_NAMES[macro]
    quoted = log.execute(sql.format(r="'r_prod'", e=f"'{events}'")).fetchall()
    assert log.execute(sql.format(r="r_prod", e=events)).fetchall() == quoted
    if macro == "ndcg_report":
        assert quoted == [(pytest.approx(NDCG),), (pytest.approx(NDCG),)]


def test_bare_table_names_in_error_messages(log: duckdb.DuckDBPyConnection) -> None:
    log.execute("CREATE TABLE ev_null AS SELECT * FROM (VALUES (NULL, 'b', 'click')) "
                "t(query_id, item_id, event_type)")
    log.execute("CREATE TABLE r_null AS SELECT 'q1' AS query_id, 'a' AS item_id, "
                "NULL::INT AS position")
    # a bare name that is also a column where the message is built (shown, rel) stays the name
    log.execute("CREATE TABLE shown AS SELECT * FROM r_null")
    log.execute("CREATE TABLE rel AS SELECT * FROM ev_null")
    for sql, message in [
        ("SELECT * FROM ndcg_summary(r_prod, ev_null)", "events table ev_null has NULL in query_id"),
        ("SELECT * FROM event_relevance(ev_null)", "events table ev_null has NULL in query_id"),
        ("SELECT * FROM ndcg_report(r_prod, rel)", "events table rel has NULL in query_id"),
        ("SELECT * FROM ndcg_report(shown, events)", "rankings table shown has NULL in"),
        ("SELECT * FROM ndcg_report(r_null, events)", "rankings table r_null has NULL in"),
        ("SELECT * FROM ndcg_report(r_prod, logs.ev, slice_by := ['day'])",
         "neither rankings table r_prod nor events table logs.ev has a column day"),
        ("SELECT * FROM ab_summary(r_prod, events, 'arm', baseline := 'C')",
         "no row of r_prod has arm = C"),
    ]:
        with pytest.raises(duckdb.Error, match=message):
            log.execute(sql).fetchall()


def test_bare_table_named_like_a_column(log: duckdb.DuckDBPyConnection) -> None:
    """A rankings table named like ab_summary's slice column: its name, not the column's value."""
    log.execute("CREATE TABLE device AS SELECT * FROM r_prod")
    with pytest.raises(duckdb.Error, match="no row of device has arm = C"):
        log.execute(
            "SELECT * FROM ab_summary(device, events, 'arm', baseline := 'C', "
            "slice_by := ['device'])"
        ).fetchall()


# each macro with slice_by as one column name (text) and as a list of it: same rows
ONE_SLICE = {
    "ndcg_report": "SELECT device, ndcg FROM ndcg_report('r_prod', 'events', slice_by := {s}) "
    "ORDER BY ALL",
    "ndcg_summary": "SELECT device, mean_ndcg FROM ndcg_summary('r_prod', 'events', "
    "slice_by := {s})",
    "compare_rankers": "SELECT device, diff FROM compare_rankers('r_prod', 'r_prod', 'events', "
    "slice_by := {s}) ORDER BY ALL",
    "compare_summary": "SELECT device, mean_a FROM compare_summary('r_prod', 'r_prod', 'events', "
    "slice_by := {s})",
    "ab_summary": "SELECT device, arm FROM ab_summary('r_prod', 'events', 'device', "
    "baseline := 'mobile', slice_by := {s})",
}


@pytest.mark.parametrize("macro", sorted(ONE_SLICE))
def test_slice_by_takes_one_name_as_text(log: duckdb.DuckDBPyConnection, macro: str) -> None:
    sql = ONE_SLICE[macro]
    if macro == "ab_summary":
        # the arm is the slice: each slice holds one arm, so no test row (and no error)
        sql = sql.replace("'device', baseline := 'mobile'", "'arm', baseline := 'A'")
    listed = log.execute(sql.format(s="['device']")).fetchall()
    assert log.execute(sql.format(s="'device'")).fetchall() == listed
    if macro == "ndcg_summary":
        assert listed == [("desktop", pytest.approx(NDCG)), ("mobile", pytest.approx(NDCG))]


def test_slice_by_names_an_unknown_column_as_text(log: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match="neither rankings table r_prod nor events table events "
                       "has a column day"):
        log.execute("SELECT * FROM ndcg_summary('r_prod', 'events', slice_by := 'day')").fetchall()


# mapping as a STRUCT literal and as the text form of a MAP (the form gain accepts): the MAP
MAPPINGS = {
    "map": "MAP {'click': 1, 'impression': 0}",
    "struct": "{'click': 1, 'impression': 0}",
    "text": "'{click=1, impression=0}'",
}
MAPPING_SQL = {
    "ndcg_report": "SELECT ndcg FROM ndcg_report('r_prod', 'events', mapping := {m})",
    "ndcg_summary": "SELECT mean_ndcg FROM ndcg_summary('r_prod', 'events', mapping := {m})",
    "compare_rankers": "SELECT ndcg_a FROM compare_rankers('r_prod', 'r_prod', 'events', "
    "mapping := {m})",
    "compare_summary": "SELECT mean_a FROM compare_summary('r_prod', 'r_prod', 'events', "
    "mapping := {m})",
    "ab_summary": "SELECT mean_a FROM ab_summary('r_prod', 'events', 'arm', baseline := 'A', "
    "mapping := {m})",
    "event_relevance": "SELECT item_id, rel FROM event_relevance('events', mapping := {m}) "
    "ORDER BY ALL",
    "event_match": "SELECT sampled, matched FROM event_match('r_prod', 'events', mapping := {m})",
}


@pytest.mark.parametrize("macro", sorted(MAPPING_SQL))
@pytest.mark.parametrize("form", ["struct", "text"])
def test_mapping_as_struct_or_text(log: duckdb.DuckDBPyConnection, macro: str, form: str) -> None:
    sql = MAPPING_SQL[macro]
    as_map = log.execute(sql.format(m=MAPPINGS["map"])).fetchall()
    assert log.execute(sql.format(m=MAPPINGS[form])).fetchall() == as_map
    if macro == "ndcg_report":
        assert as_map == [(pytest.approx(NDCG),), (pytest.approx(NDCG),)]


def test_mapping_that_is_no_map_is_one_error(log: duckdb.DuckDBPyConnection) -> None:
    for mapping in ["'click'", "42", "['click']"]:
        for sql in [
            f"SELECT * FROM ndcg_summary('r_prod', 'events', mapping := {mapping})",
            f"SELECT * FROM event_match('r_prod', 'events', mapping := {mapping})",
        ]:
            with pytest.raises(duckdb.Error, match=r"mapping must be a MAP from event type to "
                               r"grade, e\.g\. MAP \{'click': 1, 'purchase': 3\}, got "):
                log.execute(sql).fetchall()
