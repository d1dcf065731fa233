"""The judged run a report scores (issue 20): repeated impressions, search-level events without an
item, slices from the events table, exact key joins and negative gains. Numbers by hand."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import duckdb
import pytest

from duckdb_ndcg import cli
from duckdb_ndcg.evaluate import evaluate

L3 = math.log2(3)


def _table(con: duckdb.DuckDBPyConnection, name: str, columns: str, rows: list[tuple]) -> None:
    values = ", ".join(repr(row) for row in rows)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM (VALUES {values}) t({columns})")


# --- 1. duplicates := 'allow': every impression scored, the ideal from the same impressions ---


@pytest.fixture
def repeated(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    # q: a at 1 and 3 (click, 1), b at 2 (purchase, 3), c at 4 (no event); z never shown (cart, 2)
    # r: e at 1 and 2 (purchase, 3): following the advice gave NDCG (3 + 3 / log2 3) / 3 = 1.63
    _table(con, "shown", "query_id, item_id, position",
           [("q", "a", 1), ("q", "b", 2), ("q", "a", 3), ("q", "c", 4),
            ("r", "e", 1), ("r", "e", 2)])
    _table(con, "events", "query_id, item_id, event_type",
           [("q", "a", "click"), ("q", "b", "purchase"), ("q", "z", "add_to_cart"),
            ("r", "e", "purchase"), ("r", "e", "click")])
    return con


# DCG@3 of q: 1 + 3 / log2 3 + 1 / 2; its impressions' grades and z's: 3, 2, 1, 1, 0, so
# IDCG@3 = 3 + 2 / log2 3 + 1 / 2; shown 4, shown_relevant 3 (a twice, b), relevant 4 (a twice,
# b, z). r: e twice, DCG = IDCG.
Q_DCG = 1.5 + 3 / L3
Q_IDCG = 3.5 + 2 / L3
R_DCG = 3 + 3 / L3
EXPECTED_ALLOW = [
    ("q", 3, pytest.approx(Q_DCG / Q_IDCG, abs=1e-12), pytest.approx(Q_DCG, abs=1e-12),
     pytest.approx(Q_IDCG, abs=1e-12), 4, 3, 4),
    ("r", 3, 1.0, pytest.approx(R_DCG, abs=1e-12), pytest.approx(R_DCG, abs=1e-12), 2, 2, 2),
]


def test_allow_duplicates_scores_each_impression_against_the_same_impressions(
    repeated: duckdb.DuckDBPyConnection,
) -> None:
    got = repeated.execute(
        "SELECT query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant "
        "FROM ndcg_report('shown', 'events', k := 3, duplicates := 'allow') ORDER BY 1"
    ).fetchall()
    assert got == EXPECTED_ALLOW
    summary = repeated.execute(
        "SELECT queries, mean_ndcg, shown_relevant, relevant "
        "FROM ndcg_summary('shown', 'events', k := 3, duplicates := 'allow')"
    ).fetchall()
    assert summary == [(2, pytest.approx((Q_DCG / Q_IDCG + 1) / 2, abs=1e-12), 5, 6)]


def test_allow_duplicates_below_the_cutoff_count_in_the_ideal(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """A repeat further down is an impression too: in the ideal and the relevant count, at every
    cutoff alike, whichever other cutoffs are asked for; the family counts it the same way."""
    # a at 1 and 13, below the rows any of these cutoffs reads (the first max(k) + 1)
    shown = [("q", "a", 1), *(("q", f"f{p}", p) for p in range(2, 13)), ("q", "a", 13)]
    _table(con, "shown", "query_id, item_id, position", shown)
    _table(con, "events", "query_id, item_id, event_type", [("q", "a", "purchase")])
    expected = 3 / (3 + 3 / L3)  # grades of the impressions: 3, 0 (11 times), 3
    for k in ("2", "[2, 10]"):
        got = con.execute(
            "SELECT k, ndcg, relevant, recall_at_k FROM ndcg_report('shown', 'events', "
            f"k := {k}, duplicates := 'allow', metrics := ['ndcg', 'recall_at_k']) WHERE k = 2"
        ).fetchall()
        assert got == [(2, pytest.approx(expected, abs=1e-12), 2, 0.5)]


def test_allow_duplicates_in_evaluate_and_the_cli(
    repeated: duckdb.DuckDBPyConnection, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = evaluate("shown", "events", k=3, duplicates="allow", con=repeated)
    got = rel.project("query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant")
    assert sorted(got.fetchall()) == EXPECTED_ALLOW
    repeated.execute(f"COPY shown TO '{tmp_path / 'shown.csv'}'")
    repeated.execute(f"COPY events TO '{tmp_path / 'events.csv'}'")
    code = cli.main([
        "evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"), "--k", "3",
        "--allow-duplicates", "--output", str(tmp_path / "out.csv"),
    ])
    assert code == 0, capsys.readouterr().err
    out = repeated.execute(
        f"SELECT query_id, ndcg, relevant FROM '{tmp_path / 'out.csv'}' ORDER BY 1"
    ).fetchall()
    assert out == [("q", pytest.approx(Q_DCG / Q_IDCG, abs=1e-12), 4), ("r", 1.0, 2)]


def test_duplicate_error_says_what_allow_means(repeated: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(duckdb.Error, match=r"every impression: each showing gains its item's "
                       r"grade and the ideal holds the item as often as it was shown\)"):
        repeated.execute("SELECT * FROM ndcg_report('shown', 'events', k := 3)").fetchall()


# --- 7. events without an item: dropped and counted when their type is graded 0 or ignored ---


@pytest.fixture
def itemless(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    # q shows a, b; b is clicked. Search-level events have no item: search_refine (not in the
    # default mapping), impression (grade 0).
    _table(con, "shown", "query_id, item_id, position", [("q", "a", 1), ("q", "b", 2)])
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.execute("INSERT INTO events VALUES ('q', 'b', 'click'), ('q', NULL, 'search_refine'), "
                "('q', NULL, 'search_refine'), ('q', NULL, 'impression')")
    return con


ITEMLESS_NDCG = 1 / L3  # b (grade 1) at position 2, ideal: b first


@pytest.mark.parametrize(
    "options",
    [
        "unknown := 'ignore'",  # search_refine ignored, impression graded 0
        "mapping := MAP {'click': 1, 'impression': 0, 'search_refine': 0}",
    ],
)
def test_itemless_events_of_grade_0_or_ignored_are_dropped(
    itemless: duckdb.DuckDBPyConnection, options: str
) -> None:
    assert itemless.execute(
        f"SELECT query_id, item_id, rel FROM event_relevance('events', {options})"
    ).fetchall() == [("q", "b", 1.0)]
    assert itemless.execute(
        f"SELECT ndcg, relevant FROM ndcg_report('shown', 'events', {options})"
    ).fetchall() == [(pytest.approx(ITEMLESS_NDCG, abs=1e-12), 1)]


@pytest.mark.parametrize(
    ("row", "options", "message"),
    [
        # a graded event without its item: a broken log, not a search-level event
        ("('q', NULL, 'click')", "unknown := 'ignore'", ("events table events has NULL in item_id"
         " on an event of a graded type (click)")),
        ("('q', NULL, 'skip')", "mapping := MAP {'click': 1, 'skip': -1}",
         "has NULL in item_id on an event of a graded type (skip)"),
        # an unknown type without an item: the unknown-type error, whose advice fixes both
        ("('q', NULL, 'search_refine')", "", "has event types the mapping lacks: search_refine"),
        ("(NULL, 'b', 'impression')", "", "events table events has NULL in query_id"),
    ],
)
def test_itemless_events_that_matter_are_errors(
    itemless: duckdb.DuckDBPyConnection, row: str, options: str, message: str
) -> None:
    itemless.execute(f"DELETE FROM events WHERE item_id IS NULL; INSERT INTO events VALUES {row}")
    for sql in ("SELECT * FROM event_relevance('events'{})",
                "SELECT * FROM ndcg_report('shown', 'events'{})"):
        with pytest.raises(duckdb.Error, match=re.escape(message)):
            itemless.execute(sql.format(", " + options if options else "")).fetchall()


def test_itemless_events_are_counted_by_evaluate_and_the_cli(
    itemless: duckdb.DuckDBPyConnection, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.warns(UserWarning, match=re.escape(
        "events events: dropped 3 rows without item_id (event types graded 0 or ignored: "
        "impression, search_refine)"
    )):
        rel = evaluate("shown", "events", con=itemless, unknown="ignore")
    assert rel.project("ndcg").fetchall() == [(pytest.approx(ITEMLESS_NDCG, abs=1e-12),)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no item is missing: no warning
        itemless.execute("CREATE TABLE events_ok AS SELECT * FROM events WHERE item_id IS NOT NULL")
        evaluate("shown", "events_ok", con=itemless).fetchall()
    itemless.execute(f"COPY shown TO '{tmp_path / 'shown.csv'}'")
    itemless.execute(f"COPY events TO '{tmp_path / 'events.csv'}'")
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"),
                     "--ignore-unknown"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("query_id"), err
    assert "dropped 3 rows without item_id" in err


def test_events_all_of_unknown_types_are_an_error_in_the_report(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """The checks ran on the (query, item) pairs left: a log without a positive grade and of
    unknown types only gave every query 0.0 instead of the unknown-type error."""
    _table(con, "shown", "query_id, item_id, position", [("q", "a", 1)])
    _table(con, "events", "query_id, item_id, event_type", [("q", "a", "like")])
    with pytest.raises(duckdb.Error, match="has event types the mapping lacks: like"):
        con.execute("SELECT * FROM ndcg_report('shown', 'events')").fetchall()


# --- 20. negative gains in a gain map; key columns with a collation ---

NEGATIVE_MAP = "MAP {0: 0, 1: -1, 2: 3}"
RANKED = "FROM (VALUES (1, 1), (2, 2), (0, 3)) t(r, p)"


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT ndcg(r, p, gain := {NEGATIVE_MAP}) {RANKED}",
        f"SELECT dcg(r, p, gain := {NEGATIVE_MAP}) {RANKED}",
        f"SELECT idcg(r, gain := {NEGATIVE_MAP}) {RANKED}",
        f"SELECT cg(r, p, gain := {NEGATIVE_MAP}) {RANKED}",
        f"SELECT mean_ndcg(1, r, p, gain := {NEGATIVE_MAP}) {RANKED}",
        f"SELECT list_ndcg([1, 2, 0], gain := {NEGATIVE_MAP})",
        "SELECT list_ndcg([1, 2, 0], gain := '{0=0, 1=-1, 2=3}')",
        f"SELECT list_dcg([1, 2, 0], gain := {NEGATIVE_MAP})",
        f"SELECT list_idcg([1, 2, 0], gain := {NEGATIVE_MAP})",
        f"SELECT list_cg([1, 2, 0], gain := {NEGATIVE_MAP})",
        f"SELECT discounted_gain(1, 1, gain := {NEGATIVE_MAP})",
        "SELECT * FROM ndcg_report('shown', 'events', gain := MAP {0: 0, 1: -1, 2: 3, 3: 7})",
    ],
)
def test_a_negative_gain_in_a_gain_map_is_refused(
    repeated: duckdb.DuckDBPyConnection, sql: str
) -> None:
    """ndcg with gains -1 (grade 1 first) and 3 was 0.357 and could exceed 1; now an error
    naming the option that allows it (the report has none: always an error there)."""
    hint = (": the report scores gains of 0 and above" if "ndcg_report" in sql
            else " (pass negative := 'zero' to count it as gain 0)")
    shown = "{0=0, 1=-1, 2=3, 3=7}" if "ndcg_report" in sql else "{0=0, 1=-1, 2=3}"
    message = f"gain map {shown} gives grade 1.0 the negative gain -1.0{hint}"
    with pytest.raises(duckdb.Error, match=re.escape(message)):
        repeated.execute(sql).fetchall()


def test_negative_zero_counts_a_negative_gain_as_0(con: duckdb.DuckDBPyConnection) -> None:
    # grade 1 gains 0, grade 2 gains 3: DCG = 3 / log2 3, IDCG = 3
    assert con.execute(
        f"SELECT ndcg(r, p, gain := {NEGATIVE_MAP}, negative := 'zero') {RANKED}"
    ).fetchall() == [(pytest.approx(1 / L3, abs=1e-12),)]
    assert con.execute(
        f"SELECT list_ndcg([1, 2, 0], gain := {NEGATIVE_MAP}, negative := 'zero'), "
        f"discounted_gain(1, 1, gain := {NEGATIVE_MAP}, negative := 'zero')"
    ).fetchall() == [(pytest.approx(1 / L3, abs=1e-12), 0.0)]


def test_a_negative_grade_in_the_report_names_no_missing_option(
    repeated: duckdb.DuckDBPyConnection,
) -> None:
    """The report has no negative option: its error said "pass negative := 'zero'"."""
    with pytest.raises(duckdb.Error, match=re.escape(
        "mapping gives an event type the negative grade -1.0: the report scores grades of 0 and"
    )):
        repeated.execute("SELECT * FROM ndcg_report('shown', 'events', mapping := "
                         "MAP {'click': -1, 'purchase': 3, 'add_to_cart': 2})").fetchall()


def test_portable_sql_refuses_a_negative_gain_too(con: duckdb.DuckDBPyConnection) -> None:
    from duckdb_ndcg.portable import events_to_sql, to_sql

    gains = {0: 0, 1: -1, 2: 3}
    with pytest.raises(ValueError, match=re.escape(
        "gain map gives grade 1 the negative gain -1 (pass negative='zero' to count it as gain 0)"
    )):
        to_sql("ndcg", "duckdb", table="run", gain=gains)
    with pytest.raises(ValueError, match="negative gain -1"):
        events_to_sql("duckdb", rankings="shown", events="events", k=10, gain=gains)
    con.execute(f"CREATE TABLE run AS SELECT 'q' AS query_id, r AS rel, p AS rnk {RANKED}")
    sql = to_sql("ndcg", "duckdb", table="run", gain=gains, negative="zero")
    assert con.execute(sql).fetchall()[0][-1] == pytest.approx(1 / L3, abs=1e-12)


@pytest.mark.parametrize("collation", ["NOCASE", "NOACCENT", "NOCASE.NOACCENT"])
@pytest.mark.parametrize(("table", "column"), [("events", "item_id"), ("shown", "query_id")])
def test_keys_with_a_collation_are_not_joined_as_equal(
    con: duckdb.DuckDBPyConnection, collation: str, table: str, column: str
) -> None:
    """'A' and 'a' under NOCASE joined: NDCG 1.63 (both shown items took the purchase)."""
    collated = f" COLLATE {collation}"
    shown_q, events_i = (collated, "") if table == "shown" else ("", collated)
    con.execute(f"CREATE TABLE shown(query_id VARCHAR{shown_q}, item_id VARCHAR, position INT)")
    con.execute("INSERT INTO shown VALUES ('q', 'A', 1), ('q', 'a', 2)")
    con.execute(
        f"CREATE TABLE events(query_id VARCHAR, item_id VARCHAR{events_i}, event_type VARCHAR)"
    )
    con.execute("INSERT INTO events VALUES ('q', 'a', 'purchase')")
    label = "rankings table shown" if table == "shown" else "events table events"
    message = (f"{column} of {label} has a collation under which different ids compare equal "
               f"('A' = 'a'): keys are compared exactly, so drop it in a view ({column} COLLATE "
               '"binary")')
    with pytest.raises(duckdb.Error, match=re.escape(message)):
        con.execute("SELECT * FROM ndcg_report('shown', 'events')").fetchall()
    with pytest.raises(duckdb.Error, match=re.escape(message)):
        evaluate("shown", "events", con=con).fetchall()
    # the fix the message names: the same tables, keys compared exactly
    con.execute(f'CREATE VIEW {table}_exact AS SELECT * REPLACE ({column} COLLATE "binary" '
                f"AS {column}) FROM {table}")
    exact = ("shown_exact", "events") if table == "shown" else ("shown", "events_exact")
    assert con.execute(
        f"SELECT ndcg FROM ndcg_report('{exact[0]}', '{exact[1]}')"
    ).fetchall() == [(pytest.approx(1 / L3, abs=1e-12),)]


# --- 18. collapse is checked whatever unknown says ---


@pytest.mark.parametrize(("value", "shown"), [("NULL", "NULL"), ("'mean'", "'mean'"),
                                              ("'MAX'", "'MAX'")])
@pytest.mark.parametrize("unknown", ["ignore", "error"])
def test_a_bad_collapse_is_an_error_also_when_unknown_types_are_ignored(
    repeated: duckdb.DuckDBPyConnection, value: str, shown: str, unknown: str
) -> None:
    """With unknown := 'ignore' every NDCG was 0.0. Choices are exact, as for every option
    ('MAX' is not 'max', as 'AVERAGE' is not a ties value)."""
    message = f"collapse must be 'max', 'sum' or 'last', got {shown}"
    for sql in ((f"SELECT * FROM event_relevance('events', collapse := {value}, "
                f"unknown := '{unknown}')"),
                (f"SELECT * FROM ndcg_report('shown', 'events', collapse := {value}, "
                f"unknown := '{unknown}', duplicates := 'allow')")):
        with pytest.raises(duckdb.Error, match=re.escape(message)):
            repeated.execute(sql).fetchall()
    python = None if value == "NULL" else value.strip("'")
    with pytest.raises(ValueError, match=re.escape(message.replace("NULL", "None"))):
        evaluate("shown", "events", con=repeated, collapse=python, unknown=unknown)


# --- 6. a slice from the events table, taken per query (evaluate() and the CLI) ---


@pytest.fixture
def event_slices(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    # q1 and q2 were searched on mobile, q3 on desktop, q4 has no events (device NULL)
    _table(con, "shown", "query_id, item_id, position",
           [("q1", "a", 1), ("q1", "b", 2), ("q2", "a", 1), ("q3", "a", 1), ("q3", "b", 2),
            ("q4", "a", 1)])
    _table(con, "events", "query_id, item_id, event_type, device",
           [("q1", "b", "click", "mobile"), ("q1", "a", "impression", "mobile"),
            ("q2", "a", "purchase", "mobile"), ("q3", "a", "click", "desktop")])
    return con


# NDCG@10: q1 = (1 / log2 3) / 1, q2 = 1, q3 = 1, q4 = 0 (no positive grade)
EVENT_SLICE_SUMMARY = [
    ("desktop", 1, 1.0),
    ("mobile", 2, pytest.approx((1 / L3 + 1) / 2, abs=1e-12)),
    (None, 1, 0.0),
]


def test_a_slice_from_the_events_is_taken_per_query(
    event_slices: duckdb.DuckDBPyConnection, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = evaluate("shown", "events", con=event_slices, slice_by=["device"], shape="summary")
    got = rel.project("device, queries, mean_ndcg").order("device NULLS LAST").fetchall()
    assert got == EVENT_SLICE_SUMMARY
    report = evaluate("shown", "events", con=event_slices, slice_by=["device"])
    assert sorted(report.project("query_id, device").fetchall(), key=str) == [
        ("q1", "mobile"), ("q2", "mobile"), ("q3", "desktop"), ("q4", None)]
    event_slices.execute(f"COPY shown TO '{tmp_path / 'shown.csv'}'")
    event_slices.execute(f"COPY events TO '{tmp_path / 'events.csv'}'")
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"),
                     "--slice-by", "device", "--summary", "--output", str(tmp_path / "s.csv")])
    assert code == 0, capsys.readouterr().err
    assert event_slices.execute(
        f"SELECT device, queries, mean_ndcg FROM '{tmp_path / 's.csv'}' ORDER BY device NULLS LAST"
    ).fetchall() == EVENT_SLICE_SUMMARY


def test_a_query_whose_events_disagree_on_the_slice_is_an_error(
    event_slices: duckdb.DuckDBPyConnection,
) -> None:
    event_slices.execute("INSERT INTO events VALUES ('q1', 'a', 'view', 'desktop')")
    with pytest.raises(duckdb.Error, match=re.escape(
        "events table events gives query_id q1 more than one device (desktop, mobile): a slice "
        "taken from the events must have one value per query"
    )):
        evaluate("shown", "events", con=event_slices, slice_by=["device"]).fetchall()
    with pytest.raises(ValueError, match=re.escape(
        "neither rankings shown nor events events has a column 'channel' (slice_by[0])"
    )):
        evaluate("shown", "events", con=event_slices, slice_by=["channel"])


def test_the_readme_recipe_for_a_slice_of_the_events(
    event_slices: duckdb.DuckDBPyConnection,
) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = readme.index("CREATE VIEW shown_by_device")
    recipe = readme[start:readme.index("```", start)]
    *view, query = [s for s in recipe.split(";") if s.strip()]
    event_slices.execute(";".join(view))
    got = event_slices.execute(query + " ORDER BY device NULLS LAST").fetchall()
    assert [(d, n, m) for d, _, n, m, *_ in got] == EVENT_SLICE_SUMMARY
    event_slices.execute("INSERT INTO events VALUES ('q1', 'a', 'view', 'desktop')")
    with pytest.raises(duckdb.Error, match="query q1 has more than one device"):
        event_slices.execute(query).fetchall()


def test_a_slice_from_the_events_in_a_database_opened_read_only(
    event_slices: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """The per-query view is registered on the connection, not created in its database."""
    path = tmp_path / "logs.duckdb"
    event_slices.execute(f"ATTACH '{path}' AS logs")
    event_slices.execute("CREATE TABLE logs.shown AS SELECT * FROM shown; "
                         "CREATE TABLE logs.events AS SELECT * FROM events; DETACH logs")
    with duckdb.connect(str(path), read_only=True) as read_only:
        rel = evaluate("shown", "events", con=read_only, slice_by=["device"], shape="summary")
        got = rel.project("device, queries, mean_ndcg").order("device NULLS LAST").fetchall()
    assert got == EVENT_SLICE_SUMMARY
