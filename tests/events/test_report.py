"""ndcg_report, event_relevance, ndcg_summary and compare_rankers against hand-mapped qrels."""

from __future__ import annotations

import functools
import math
import random
import re

import duckdb
import pytest
import pytrec_eval

from duckdb_ndcg import demo
from duckdb_ndcg.evaluate import evaluate

GRADE = {"impression": 0, "view": 0, "click": 1, "add_to_cart": 2, "cart": 2, "purchase": 3}


def _random_log(con: duckdb.DuckDBPyConnection, seed: int) -> None:
    rng = random.Random(seed)
    shown, events = [], []
    for q in range(40):
        items = rng.sample(range(60), rng.randint(1, 15))
        for position, item in enumerate(items, start=1):
            shown.append((f"q{q}", f"d{item}", position, rng.choice(["web", "app"])))
        for item in rng.sample(range(60), rng.randint(0, 12)):  # shown or not
            for _ in range(rng.randint(1, 3)):
                events.append((f"q{q}", f"d{item}", rng.choice(list(GRADE))))
    con.execute(
        "CREATE TABLE shown(query_id VARCHAR, item_id VARCHAR, position INT, device VARCHAR)"
    )
    con.executemany("INSERT INTO shown VALUES (?, ?, ?, ?)", shown)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", events)


def _matches_pytrec_eval(con: duckdb.DuckDBPyConnection, k: int) -> None:
    qrels: dict[str, dict[str, int]] = {}
    for q, item, event in con.execute("SELECT * FROM events").fetchall():  # map events by hand
        qrels.setdefault(q, {})[item] = max(qrels.get(q, {}).get(item, 0), GRADE[event])
    run: dict[str, dict[str, float]] = {}
    for q, item, position, _ in con.execute("SELECT * FROM shown").fetchall():
        run.setdefault(q, {})[item] = 1000.0 - position  # distinct scores: no tie rule involved
    judged = {q: qrels[q] for q in run if q in qrels and any(qrels[q].values())}
    oracle = pytrec_eval.RelevanceEvaluator(judged, {f"ndcg_cut.{k}"}).evaluate(run)
    got = dict(
        con.execute(
            "SELECT query_id, ndcg FROM ndcg_report('shown', 'events', k := ?)", [k]
        ).fetchall()
    )
    assert set(got) == set(run)
    for q, value in got.items():
        expected = oracle[q][f"ndcg_cut_{k}"] if q in oracle else 0.0  # no positive grade
        assert value == pytest.approx(expected, abs=1e-9), q


@pytest.mark.versions
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_report_matches_pytrec_eval(
    con: duckdb.DuckDBPyConnection, check_cases, seed: int
) -> None:
    """Each cutoff a case, on the seed's log (made once: the cases only read it)."""
    _random_log(con, seed)
    count = check_cases(
        (f"k={k}", functools.partial(_matches_pytrec_eval, con, k)) for k in (1, 5, 10)
    )
    assert count == 3


def test_report_equals_core_aggregates_and_counts(con: duckdb.DuckDBPyConnection) -> None:
    _random_log(con, 4)
    core = con.execute("""
        SELECT query_id, ndcg(rel, position, 5), dcg(rel, position, 5), idcg(rel, 5),
               count(position), count(position) FILTER (WHERE rel > 0),
               count(*) FILTER (WHERE rel > 0)
        FROM shown FULL OUTER JOIN event_relevance('events') USING (query_id, item_id)
        WHERE query_id IN (SELECT query_id FROM shown)
        GROUP BY query_id ORDER BY query_id""").fetchall()
    got = con.execute("""SELECT query_id, ndcg, dcg, idcg, shown, shown_relevant, relevant
                         FROM ndcg_report('shown', 'events', k := 5) ORDER BY query_id""").fetchall()
    assert [r[0] for r in got] == [r[0] for r in core]
    for mine, theirs in zip(got, core, strict=True):
        assert mine[1:4] == pytest.approx(theirs[1:4], abs=1e-12)
        assert mine[4:] == theirs[4:]


@pytest.mark.versions
def test_several_cutoffs_and_slices(con: duckdb.DuckDBPyConnection) -> None:
    _random_log(con, 5)
    long = con.execute("""SELECT device, query_id, k, ndcg
                          FROM ndcg_report('shown', 'events', k := [1, 10], slice_by := ['device'])
                       """).fetchall()
    for device in ("web", "app"):
        con.execute(f"CREATE TABLE shown_{device} AS SELECT * FROM shown WHERE device = '{device}'")
        for k in (1, 10):
            one = dict(
                con.execute(
                    f"SELECT query_id, ndcg FROM ndcg_report('shown_{device}', 'events', k := ?)",
                    [k],
                ).fetchall()
            )
            sliced = {q: v for d, q, kk, v in long if d == device and kk == k}
            assert sliced == pytest.approx(one, abs=1e-12)
    summary = con.execute(
        "SELECT device, k, queries, mean_ndcg FROM ndcg_summary('shown', "
        "'events', k := [1, 10], slice_by := ['device'])"
    ).fetchall()
    for device, k, queries, mean in summary:
        values = [v for d, _, kk, v in long if d == device and kk == k]
        assert queries == len(values)
        assert mean == pytest.approx(sum(values) / len(values), abs=1e-12)


def test_unshown_events_count_in_ideal_only(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE shown AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'b', 2)) "
        "t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q', 'b', 'click'), "
        "('q', 'z', 'purchase'), ('other', 'a', 'purchase')) t(query_id, item_id, event_type)"
    )
    row = con.execute(
        "SELECT query_id, dcg, idcg, ndcg, shown, shown_relevant, relevant "
        "FROM ndcg_report('shown', 'events', k := 3)"
    ).fetchall()
    dcg, idcg = 1 / 1.5849625007211562, 3 + 1 / 1.5849625007211562
    assert row == [
        (
            "q",
            pytest.approx(dcg, abs=1e-12),
            pytest.approx(idcg, abs=1e-12),
            pytest.approx(dcg / idcg, abs=1e-12),
            2,
            1,
            2,
        )
    ]


@pytest.mark.parametrize(
    ("collapse", "extra", "expected"),
    [("max", "", 3.0), ("sum", "", 7.0), ("last", ", time_col := 'ts'", 1.0)],
)
def test_event_relevance_collapse(
    con: duckdb.DuckDBPyConnection, collapse: str, extra: str, expected: float
) -> None:
    con.execute(
        "CREATE TABLE ev AS SELECT * FROM (VALUES ('q', 'a', 'click', 1), "
        "('q', 'a', 'purchase', 2), ('q', 'a', 'cart', 3), ('q', 'a', 'click', 4)) "
        "t(query_id, item_id, event_type, ts)"
    )
    got = con.execute(
        f"SELECT rel FROM event_relevance('ev', collapse := ?{extra})", [collapse]
    ).fetchall()
    assert got == [(expected,)]


@pytest.mark.versions
def test_event_relevance_mapping_map_and_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "CREATE TABLE ev AS SELECT * FROM (VALUES ('q', 'a', 'order'), ('q', 'b', 'like')) "
        "t(query_id, item_id, event_type)"
    )
    con.execute(
        "CREATE TABLE m AS SELECT * FROM (VALUES ('order', 5), ('like', 1)) t(event_type, g)"
    )
    by_map = con.execute(
        "SELECT item_id, rel FROM event_relevance('ev', mapping := "
        "MAP {'order': 5, 'like': 1}) ORDER BY 1"
    ).fetchall()
    by_table = con.execute(
        "SELECT item_id, rel FROM event_relevance('ev', mapping := "
        "(SELECT map(list(event_type), list(g)) FROM m)) ORDER BY 1"
    ).fetchall()
    assert by_map == by_table == [("a", 5.0), ("b", 1.0)]


BAD_SQL = {
    "unknown event types": (
        "SELECT * FROM event_relevance('ev_bad')",
        "event types the mapping lacks: bounce, like",
    ),
    "NULL item in events": (
        "SELECT * FROM event_relevance('ev_null')",
        "has NULL in item_id on an event of a graded type (click)",
    ),
    "collapse last without time": (
        "SELECT * FROM event_relevance('ev_ok', collapse := 'last')",
        "needs time_col",
    ),
    "bad collapse": (
        "SELECT * FROM event_relevance('ev_ok', collapse := 'mean')",
        "collapse must be",
    ),
    "duplicate impression": (
        "SELECT * FROM ndcg_report('shown_dup', 'ev_ok')",
        "shows item_id a more than once in ranking {'query_id': q}",
    ),
    "NULL key in rankings": ("SELECT * FROM ndcg_report('shown_null', 'ev_ok')", "has NULL in"),
    "unknown slice column": (
        "SELECT * FROM ndcg_report('shown_ok', 'ev_ok', slice_by := ['dev'])",
        "neither rankings table shown_ok nor events table ev_ok has a column dev (named in",
    ),
    "zero cutoff": ("SELECT * FROM ndcg_report('shown_ok', 'ev_ok', k := [0])", "k must be"),
    "bad duplicates option": (
        "SELECT * FROM ndcg_report('shown_ok', 'ev_ok', duplicates := 'x')",
        "duplicates must be",
    ),
    **{
        f"NULL {option}": (
            f"SELECT * FROM ndcg_report('shown_ok', 'ev_ok', {option} := NULL)",
            f"{option} must be",
        )
        for option in ("gain", "ties", "collapse", "unknown", "duplicates", "log_base")
    },
    **{
        f"repeated cutoff in {macro}": (
            f"SELECT * FROM {macro}('shown_ok', {extra}'ev_ok', k := [5, 10, 5])",
            "k lists a cutoff more than once: [5, 10, 5]",
        )
        for macro, extra in (
            ("ndcg_report", ""),
            ("ndcg_summary", ""),
            ("compare_rankers", "'shown_ok', "),
        )
    },
    "repeated NULL cutoff": (
        "SELECT * FROM ndcg_summary('shown_ok', 'ev_ok', k := [NULL, NULL])",
        "k lists a cutoff more than once",
    ),
    "empty cutoff list": (
        "SELECT * FROM ndcg_summary('shown_ok', 'ev_ok', k := []::INT[])",
        "k must be a cutoff or a non-empty list",
    ),
    "item keys of different types": (
        "SELECT * FROM ndcg_report('shown_text_ids', 'ev_int_ids')",
        ("key columns differ in type: rankings shown_text_ids has query_id VARCHAR, item_id VARCHAR"
        " but events ev_int_ids has query_id VARCHAR, item_id INTEGER"),
    ),
    "text times for collapse last": (
        "SELECT * FROM event_relevance('ev_ok', collapse := 'last', time_col := 'event_type')",
        "time_col event_type of events table ev_ok is VARCHAR; collapse := 'last' needs a date",
    ),
    "slice column named like a result column": (
        "SELECT * FROM ndcg_summary('shown_slice_k', 'ev_ok', slice_by := ['k'])",
        "column k of rankings table shown_slice_k has the name of a result column",
    ),
    "text positions": (
        "SELECT * FROM ndcg_report('shown_text_pos', 'ev_ok')",
        "position of rankings table shown_text_pos must be a number, got VARCHAR",
    ),
    "NaN grade in the event mapping": (
        "SELECT * FROM event_relevance('ev_ok', mapping := MAP {'click': 'nan'::DOUBLE})",
        "gives an event type a NaN, infinite or NULL grade",
    ),
}


@pytest.fixture
def bad_tables(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    con.execute(
        "CREATE TABLE ev_ok AS SELECT * FROM (VALUES ('q', 'a', 'click')) "
        "t(query_id, item_id, event_type)"
    )
    con.execute(
        "CREATE TABLE ev_bad AS SELECT * FROM (VALUES ('q', 'a', 'like'), ('q', 'b', 'bounce'), "
        "('q', 'c', 'click')) t(query_id, item_id, event_type)"
    )
    con.execute(
        "CREATE TABLE ev_null AS SELECT * FROM (VALUES ('q', NULL, 'click')) "
        "t(query_id, item_id, event_type)"
    )
    con.execute(
        "CREATE TABLE shown_ok AS SELECT * FROM (VALUES ('q', 'a', 1)) t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE shown_dup AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'a', 2)) "
        "t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE shown_null AS SELECT * FROM (VALUES ('q', 'a', NULL::INT)) "
        "t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE shown_slice_k AS SELECT * FROM (VALUES ('q', 'a', 1, 'x')) "
        "t(query_id, item_id, position, k)"
    )
    con.execute(
        "CREATE TABLE shown_text_pos AS SELECT * FROM (VALUES ('q', 'a', '1')) "
        "t(query_id, item_id, position)"
    )
    # '7', '07' and '7.0' all equal the integer 7 through implicit casts: NDCG was 1.88
    con.execute(
        "CREATE TABLE shown_text_ids AS SELECT * FROM (VALUES ('q', '7', 1), ('q', '07', 2), "
        "('q', '7.0', 3)) t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE ev_int_ids AS SELECT * FROM (VALUES ('q', 7, 'purchase')) "
        "t(query_id, item_id, event_type)"
    )
    return con


def _raises(con: duckdb.DuckDBPyConnection, sql: str, message: str) -> None:
    with pytest.raises(
        duckdb.Error,
        match=re.escape(message),
    ):
        con.execute(sql).fetchall()


def test_bad_input_is_a_clear_error(bad_tables: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Every case of BAD_SQL, each on the same tables (a failed statement changes nothing)."""
    count = check_cases(
        (case, functools.partial(_raises, bad_tables, sql, message))
        for case, (sql, message) in BAD_SQL.items()
    )
    assert count == len(BAD_SQL)


def test_documented_results_for_odd_input(bad_tables: duckdb.DuckDBPyConnection) -> None:
    con = bad_tables
    con.execute("CREATE TABLE ev_empty AS SELECT * FROM ev_ok LIMIT 0")
    assert con.execute(
        "SELECT ndcg, idcg, relevant FROM ndcg_report('shown_ok', 'ev_empty')"
    ).fetchall() == [(0.0, 0.0, 0)]
    assert con.execute(
        "SELECT ndcg FROM ndcg_report('shown_ok', 'ev_empty', empty_ideal := NULL)"
    ).fetchall() == [(None,)]
    assert con.execute(
        "SELECT item_id, rel FROM event_relevance('ev_bad', unknown := 'ignore')"
    ).fetchall() == [("c", 1.0)]
    # every impression scored, and the ideal holds the item as often as it was shown
    assert con.execute(
        "SELECT shown, ndcg, idcg FROM ndcg_report('shown_dup', 'ev_ok', duplicates := 'allow', "
        "k := 2)"
    ).fetchall() == [(2, 1.0, pytest.approx(1 + 1 / 1.5849625007211562, abs=1e-12))]


def test_hostile_names_are_quoted(con: duckdb.DuckDBPyConnection) -> None:
    # DuckDB 1.4/1.5 cannot look up a table whose name holds '"' by name (query_table and
    # con.table drop the doubled quote: a DuckDB limitation, see the README); 2.x can
    table = '"we""ird tbl"' if int(duckdb.__version__.split(".")[0]) >= 2 else '"we\'ird tbl"'
    con.execute(f'CREATE TABLE {table} ("q id" VARCHAR, "it\'em" VARCHAR, "pos;--" INT)')
    con.execute(f"INSERT INTO {table} VALUES ('q', 'a', 1), ('q', 'b', 2)")
    con.execute('CREATE TABLE "ev 2" ("q id" VARCHAR, "it\'em" VARCHAR, "kind" VARCHAR)')
    con.execute("""INSERT INTO "ev 2" VALUES ('q', 'b', 'purchase')""")
    rel = evaluate(
        table,
        '"ev 2"',
        con=con,
        k=2,
        query_col="q id",
        item_col="it'em",
        position_col="pos;--",
        event_col="kind",
    )
    assert rel.fetchall() == [
        (
            "q",
            2,
            pytest.approx(1 / 1.5849625007211562, abs=1e-12),
            pytest.approx(3 / 1.5849625007211562, abs=1e-12),
            3.0,
            2,
            1,
            1,
        )
    ]


@pytest.mark.versions
def test_compare_rankers(con: duckdb.DuckDBPyConnection) -> None:
    demo.generate(con, queries=60)
    for r in ("A", "B"):
        con.execute(
            f"CREATE VIEW r{r} AS SELECT * EXCLUDE (ranker) FROM demo_rankings WHERE ranker = '{r}'"
        )
    rows = con.execute(
        "SELECT query_id, ndcg_a, ndcg_b, diff, mean_diff, queries "
        "FROM compare_rankers('rA', 'rB', 'demo_events', k := 5)"
    ).fetchall()
    a = dict(
        con.execute(
            "SELECT query_id, ndcg FROM ndcg_report('rA', 'demo_events', k := 5)"
        ).fetchall()
    )
    b = dict(
        con.execute(
            "SELECT query_id, ndcg FROM ndcg_report('rB', 'demo_events', k := 5)"
        ).fetchall()
    )
    assert len(rows) == 60
    for q, na, nb, diff, mean_diff, queries in rows:
        assert (na, nb, diff) == pytest.approx((a[q], b[q], b[q] - a[q]), abs=1e-12)
        assert mean_diff == pytest.approx(sum(b.values()) / 60 - sum(a.values()) / 60, abs=1e-12)
        assert queries == 60


@pytest.mark.parametrize("ties", ["average", "key"])
def test_tied_scores_match_core_aggregates(con: duckdb.DuckDBPyConnection, ties: str) -> None:
    """Coarse scores make tie groups straddle every cutoff: the report's second pass over those
    groups must give the aggregates' numbers (which keep every rank key of a group)."""
    rng = random.Random(11)
    shown, events = [], []
    for q in range(60):
        for item in range(rng.randint(1, 25)):
            shown.append((f"q{q}", f"d{item}", rng.choice([0.0, 0.5, 0.5, 1.0, 2.0])))
            if rng.random() < 0.4:
                events.append((f"q{q}", f"d{item}", rng.choice(list(GRADE))))
    con.execute("CREATE TABLE shown(query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?)", shown)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", events)
    for k in (1, 3, 5, 8, None):
        core = con.execute(
            """SELECT query_id, ndcg(rel, -score, ?, ties := ?, tie_key := item_id,
                                     full_ideal := true)
               FROM shown FULL OUTER JOIN event_relevance('events') USING (query_id, item_id)
               WHERE query_id IN (SELECT query_id FROM shown)
               GROUP BY query_id ORDER BY query_id""",
            [k, ties],
        ).fetchall()
        got = con.execute(
            """SELECT query_id, ndcg FROM ndcg_report('shown', 'events', k := ?,
                                                      score_col := 'score', ties := ?)
               ORDER BY query_id""",
            [k, ties],
        ).fetchall()
        assert [r[0] for r in got] == [r[0] for r in core]
        for mine, theirs in zip(got, core, strict=True):
            assert mine[1] == pytest.approx(theirs[1], abs=1e-12), (k, mine[0])


def test_duplicates_below_the_cutoff_cannot_change_the_metric(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """duplicates := 'error' checks the rows a cutoff reads (the first max(k) + 1); a repeat
    further down leaves NDCG@k as it is and only counts in `shown`."""
    con.execute(
        "CREATE TABLE shown AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'b', 2), ('q', 'c', 3),"
        " ('q', 'd', 4), ('q', 'a', 5)) AS t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT 'q' AS query_id, 'b' AS item_id, 'click' AS event_type"
    )
    shallow = con.execute(
        "SELECT shown, ndcg FROM ndcg_report('shown', 'events', k := 2)"
    ).fetchall()
    assert shallow == [(5, pytest.approx(1 / 1.5849625007211562, abs=1e-12))]
    for k in ("4", "NULL"):  # the repeat at position 5 is among the rows these cutoffs read
        with pytest.raises(duckdb.Error, match="shows item_id a more than once"):
            con.execute(f"SELECT * FROM ndcg_report('shown', 'events', k := {k})").fetchall()


def test_integer_keys_of_different_widths_join(con: duckdb.DuckDBPyConnection) -> None:
    """INTEGER and BIGINT ids compare exactly, so they are not refused as different types."""
    con.execute("CREATE TABLE shown AS SELECT 1::INTEGER AS query_id, 7::INTEGER AS item_id, 1 AS position")
    con.execute(
        "CREATE TABLE events AS SELECT 1::BIGINT AS query_id, 7::UBIGINT AS item_id, "
        "'click' AS event_type"
    )
    assert con.execute("SELECT ndcg FROM ndcg_report('shown', 'events')").fetchall() == [(1.0,)]


def test_collapse_last_orders_null_times_first(con: duckdb.DuckDBPyConnection) -> None:
    """A NULL time counts as earlier than every time, so it is the last event only when no event
    of the (query, item) has a time (then the higher grade wins)."""
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q', 'a', 'purchase', NULL::INT), "
        "('q', 'a', 'click', 5), ('q', 'b', 'purchase', NULL), ('q', 'b', 'click', NULL)) "
        "t(query_id, item_id, event_type, ts)"
    )
    got = con.execute(
        "SELECT item_id, rel FROM event_relevance('events', collapse := 'last', time_col := 'ts') "
        "ORDER BY 1"
    ).fetchall()
    assert got == [("a", 1.0), ("b", 3.0)]


@pytest.mark.parametrize("k", [150, 999_999, 2**63 - 1, "1e300"])
def test_cutoffs_beyond_the_top_n_aggregates(con: duckdb.DuckDBPyConnection, k: object) -> None:
    """A cutoff above the top-N aggregates' range (n < 1,000,000) reads whole rankings: the report
    equals the core aggregate, tie groups straddling k = 150 included, and a k beyond every
    ranking equals the whole ranking with trec_eval's full ideal."""
    rng = random.Random(5)
    shown, events = [], []
    for q in range(8):
        for item in range(rng.randint(120, 260)):
            shown.append((f"q{q}", f"d{item}", rng.choice([0.0, 0.5, 1.0, 1.5])))
            if rng.random() < 0.3:
                events.append((f"q{q}", f"d{item}", rng.choice(list(GRADE))))
    con.execute("CREATE TABLE shown(query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO shown VALUES (?, ?, ?)", shown)
    con.execute("CREATE TABLE events(query_id VARCHAR, item_id VARCHAR, event_type VARCHAR)")
    con.executemany("INSERT INTO events VALUES (?, ?, ?)", events)
    core_k = 150 if k == 150 else None
    core = con.execute(
        f"""SELECT query_id, ndcg(rel, -score, {core_k or 'NULL'}, full_ideal := true)
            FROM shown FULL OUTER JOIN event_relevance('events') USING (query_id, item_id)
            GROUP BY query_id ORDER BY query_id"""
    ).fetchall()
    direct = con.execute(
        f"""SELECT query_id, ndcg(rel, -score, {k})
            FROM shown FULL OUTER JOIN event_relevance('events') USING (query_id, item_id)
            GROUP BY query_id ORDER BY query_id"""
    ).fetchall()
    got = con.execute(
        f"SELECT query_id, ndcg FROM ndcg_report('shown', 'events', k := {k}, "
        "score_col := 'score') ORDER BY query_id"
    ).fetchall()
    for mine, theirs, agg in zip(got, core, direct, strict=True):
        assert mine[1] == pytest.approx(theirs[1], abs=1e-12), (k, mine[0])
        assert agg[1] == pytest.approx(theirs[1], abs=1e-12), (k, mine[0])


def test_summary_counts_show_events_that_match_nothing(con: duckdb.DuckDBPyConnection) -> None:
    """Upper-cased item ids in the events gave mean NDCG 0.0 with nothing to say why; the summary
    now shows the graded items (relevant) and how many of them were shown (shown_relevant)."""
    con.execute(
        "CREATE TABLE shown AS SELECT * FROM (VALUES ('q', 'a1', 1), ('q', 'b2', 2), ('r', 'a1', 1))"
        " t(query_id, item_id, position)"
    )
    con.execute(
        "CREATE TABLE events AS SELECT * FROM (VALUES ('q', 'A1', 'click'), ('r', 'A1', 'buy'), "
        "('q', 'B2', 'purchase')) t(query_id, item_id, event_type)"
    )
    con.execute("UPDATE events SET event_type = 'purchase' WHERE event_type = 'buy'")
    row = con.execute(
        "SELECT mean_ndcg, shown_relevant, relevant FROM ndcg_summary('shown', 'events')"
    ).fetchall()
    assert row == [(0.0, 0, 3)]
    con.execute("UPDATE events SET item_id = lower(item_id)")
    row = con.execute(
        "SELECT mean_ndcg, shown_relevant, relevant FROM ndcg_summary('shown', 'events')"
    ).fetchall()
    ndcg_q = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))  # a1 click above b2 purchase
    assert row == [(pytest.approx((ndcg_q + 1.0) / 2, abs=1e-12), 3, 3)]
