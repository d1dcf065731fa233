"""ips_estimate_to_sql, slate_estimate_to_sql and ips_ndcg_to_sql on real engines (SQLite,
PostgreSQL, ClickHouse; DuckDB itself; BigQuery's text read back by sqlglot and run on DuckDB):
equal to obp 0.5.7's numbers on the Open Bandit Dataset sample and on its synthetic slate log
(tests/fixtures/clicks/obp_*.csv, recorded offline by make_obp_fixtures.py and
make_obp_slate_fixtures.py), to the hand-computed numbers of tests/clicks/ (restated below), and
to the DuckDB macros (numbers to 1e-12, counts and warnings exactly); each bad input an engine
error. Spark is not run here: a Spark statement costs 4-15 s on the test machine (SNRIPS on obp's
slate log: 6 s in a warm session, 15 s cold), most of this module's budget."""

from __future__ import annotations

import csv
import math
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import sqlglot
from conftest import Engine, _ddl

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.portable import ips_estimate_to_sql, ips_ndcg_to_sql, slate_estimate_to_sql

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "clicks"
ENGINES = ("sqlite", "postgres", "clickhouse")
TOLERANCE = 1e-12


def read(name: str) -> list[dict[str, str]]:
    with open(FIXTURES / name, newline="") as f:
        return list(csv.DictReader(f))


def typed(rows: list[dict[str, str]], columns: list[tuple[str, str]]) -> list[tuple]:
    kinds = {"BIGINT": int, "DOUBLE": float, "TEXT": str}
    return [tuple(kinds[t](r[c]) for c, t in columns) for r in rows]


# obp's Open Bandit Dataset sample (random logging policy) and its README's Bernoulli TS policy
OBD_COLUMNS = [("item_id", "BIGINT"), ("position", "BIGINT"), ("click", "BIGINT"),
               ("propensity_score", "DOUBLE")]
POLICY_COLUMNS = [("item_id", "BIGINT"), ("position", "BIGINT"), ("probability", "DOUBLE")]
SLATE_COLUMNS = [("slate_id", "BIGINT"), ("position", "BIGINT"), ("item_id", "BIGINT"),
                 ("click", "BIGINT"), *[(f"{p}pscore{s}", "DOUBLE") for p in ("", "evaluation_")
                                        for s in ("", "_item_position", "_cascade")]]
CLICK_COLUMNS = [("session_id", "TEXT"), ("query_id", "TEXT"), ("item_id", "TEXT"),
                 ("position", "BIGINT"), ("click", "BIGINT")]
RUN_COLUMNS = [("query_id", "TEXT"), ("item_id", "TEXT"), ("rnk", "BIGINT")]

# tests/clicks/test_ips_estimate.py's hand example: weights row 1 1 / 0.5 = 2; row 2 0 (item 2
# is not in the policy); rows 3 and 4 0.5 / 0.25 = 2. Position 1: IPS (1 × 2 + 0) / 2 = 1,
# SNIPS 2 / 2 = 1; position 2: IPS (0 + 1 × 2) / 2 = 1, SNIPS 2 / 4 = 0.5; all: IPS 4 / 4 = 1,
# SNIPS 4 / 6. Clipped at 1.5: every weight 2 -> 1.5: 0.75 each.
HAND_LOGS = [(1, 1, 1, 0.5), (2, 1, 0, 0.5), (1, 2, 0, 0.25), (3, 2, 1, 0.25)]
HAND_POLICY = [(1, 1, 1.0), (3, 2, 0.5), (1, 2, 0.5)]
HAND_IPS = {"ips": (1.0, 1.0, 1.0), "snips": (1.0, 0.5, 4 / 6), "clipped": (0.75, 0.75, 0.75)}
# tests/clicks/test_slate_estimate.py's two slates (columns as SLATE_COLUMNS but item_id, which
# the estimate does not read: 0 here) and their estimates per position 1, 2 and all
HAND_SLATES = [(1, 1, 0, 1, 1 / 8, 1 / 2, 1 / 2, 1 / 2, 1.0, 1.0),
               (1, 2, 0, 0, 1 / 8, 1 / 4, 1 / 8, 1 / 2, 1 / 2, 1 / 2),
               (2, 1, 0, 0, 1 / 4, 1 / 2, 1 / 2, 0.0, 0.0, 0.0),
               (2, 2, 0, 1, 1 / 4, 1 / 2, 1 / 4, 0.0, 1 / 4, 0.0)]
HAND_SLATE = {"sips": (2, 0, 2), "snsips": (1, 0, 1), "iips": (1, 0.25, 1.25),
              "sniips": (1, 0.2, 1.2), "rips": (1, 0, 1), "snrips": (1, 0, 1)}
SUFFIX = {"sips": "", "iips": "_item_position", "rips": "_cascade",
          "snsips": "", "sniips": "_item_position", "snrips": "_cascade"}
# tests/clicks/test_ips_ndcg.py's four searches; weights 1, 2, 3 at positions 1, 2, 3 (eta 1).
# q1: ips_dcg (3 + 1 / log2(3) + 1 + 0) / 3, ips_ndcg (1 + 0.5) / 2; q2: 2 and 1; all searches:
# (3 + 1 / log2(3) + 1 + 2) / 4 and (1 + 0.5 + 1) / 3. k 1: q1 1 and 0.5; all 5 / 4 and 2 / 3.
HAND_CLICKS = [("s1", "q1", "a", 1, 1), ("s1", "q1", "b", 2, 0), ("s1", "q1", "c", 3, 1),
               ("s2", "q1", "a", 1, 0), ("s2", "q1", "b", 2, 1), ("s2", "q1", "c", 3, 0),
               ("s3", "q1", "a", 1, 0), ("s4", "q2", "x", 1, 0), ("s4", "q2", "y", 2, 1)]
HAND_RUN = [("q1", "c", 1), ("q1", "a", 2), ("q1", "b", 3), ("q2", "y", 1), ("q2", "x", 2)]
L3 = 1 / math.log2(3)
HAND_NDCG = {10: [(4 + L3) / 3, 0.75, 2.0, 1.0, (6 + L3) / 4, 2.5 / 3],
             1: [1.0, 0.5, 2.0, 1.0, 5 / 4, 2 / 3]}

# the seeded click log's first 100 pages (named ips_pages: the engines are shared with
# test_clicks_portable, whose first_pages they are), ranked anew by PyClick's PBM grade
FIRST_PAGES = [r for r in typed(read("log.csv"), CLICK_COLUMNS) if r[0] < "s0100"]
_GRADES = defaultdict(list)
for _r in read("pyclick_first_pages.csv"):
    _GRADES[_r["query_id"]].append((-float(_r["pbm"]), _r["item_id"]))
PBM_RUN = [(q, d, i + 1) for q, items in sorted(_GRADES.items())
           for i, (_, d) in enumerate(sorted(items))]
EXAM = [(int(r["position"]), float(r["pbm_exam"])) for r in read("pyclick_exam.csv")]

TABLES = {  # name: (columns, rows)
    "obd_random_all": (OBD_COLUMNS, typed(read("obd_random_all.csv"), OBD_COLUMNS)),
    "obd_bts_policy": (POLICY_COLUMNS, typed(read("obd_bts_policy.csv"), POLICY_COLUMNS)),
    "obp_slates": (SLATE_COLUMNS, typed(read("obp_slate_log.csv"), SLATE_COLUMNS)),
    "hand_logs": (OBD_COLUMNS, HAND_LOGS),
    "hand_policy": (POLICY_COLUMNS, HAND_POLICY),
    "hand_slates": ([c for c in SLATE_COLUMNS], HAND_SLATES),
    "hand_clicks": (CLICK_COLUMNS, HAND_CLICKS),
    "hand_run": (RUN_COLUMNS, HAND_RUN),
    "ips_pages": (CLICK_COLUMNS, FIRST_PAGES),
    "pbm_run": (RUN_COLUMNS, PBM_RUN),
    "pbm_exam": ([("position", "BIGINT"), ("propensity", "DOUBLE")], EXAM),
}
_LOADED: set[tuple[str, str]] = set()


def load(engine: Engine, *names: str) -> None:
    """The tables on the engine, once per session (the engines are session fixtures)."""
    for name in names:
        if (engine.dialect, name) in _LOADED:
            continue
        for statement in statements(engine.dialect, name):
            try:
                engine.run(statement)
            except Exception as error:  # psycopg: a CREATE or INSERT has no rows to fetch
                if "didn't produce records" not in str(error):
                    raise
        _LOADED.add((engine.dialect, name))


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def statements(dialect: str, name: str) -> list[str]:
    """CREATE TABLE as conftest's _ddl, and the INSERT written here: sqlglot takes 2.7 s to
    build the 10,000 rows of the Open Bandit sample (our fixtures' numbers and ids only)."""
    columns, rows = TABLES[name]
    create, insert = _ddl(dialect, name, columns, rows[:1])
    head = insert[:insert.index(" VALUES ")]
    values = ", ".join("(" + ", ".join(map(_literal, row)) + ")" for row in rows)
    return [create, f"{head} VALUES {values}"]


@pytest.fixture(scope="module")
def macros() -> Iterator[duckdb.DuckDBPyConnection]:
    """The DuckDB macros on the same tables: the truth besides the oracles' numbers."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        for name in TABLES:
            for statement in statements("duckdb", name):
                con.execute(statement)
            _LOADED.add(("duckdb", name))
        yield con


def same(got: list[tuple], want: list[tuple]) -> None:
    """Row by row: numbers to TOLERANCE (relative above 1: the ESS of 10,000 rows is 1639.5,
    summed in another order), the rest (counts, keys, warnings) exactly."""
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            if isinstance(b, float) and a is not None:
                assert abs(float(a) - b) < TOLERANCE * max(1.0, abs(b)), (g, w)
            elif isinstance(b, int) and not isinstance(b, bool) and a is not None:
                assert int(a) == b and float(a) == b, (g, w)
            else:
                assert a == b, (g, w)


_MACRO: dict[str, list[tuple]] = {}


def macro(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    if sql not in _MACRO:
        _MACRO[sql] = con.execute(sql).fetchall()
    return _MACRO[sql]


def ips_calls() -> Iterator[tuple[str, dict]]:
    """(the macro's call, the portable function's arguments) of each ips_estimate case."""
    for estimator, clip in (("ips", None), ("snips", None), ("clipped", 10)):
        extra = f", clip := {clip}" if clip else ""
        yield ((f"SELECT * FROM ips_estimate('obd_random_all', 'obd_bts_policy', estimator := "
               f"'{estimator}'{extra})"),
               {"logs": "obd_random_all", "policy": "obd_bts_policy", "estimator": estimator,
                "clip": clip})
    for estimator in HAND_IPS:
        clip = 1.5 if estimator == "clipped" else None
        extra = ", clip := 1.5" if clip else ""
        yield ((f"SELECT * FROM ips_estimate('hand_logs', 'hand_policy', estimator := "
               f"'{estimator}'{extra})"),
               {"logs": "hand_logs", "policy": "hand_policy", "estimator": estimator,
                "clip": clip})


def slate_calls(table: str) -> Iterator[tuple[str, str, dict]]:
    for estimator, suffix in SUFFIX.items():
        yield (estimator,
               (f"SELECT * FROM slate_estimate('{table}', estimator := '{estimator}', "
               f"propensity_col := 'pscore{suffix}', evaluation_col := "
               f"'evaluation_pscore{suffix}')"),
               {"logs": table, "estimator": estimator, "propensity_col": f"pscore{suffix}",
                "evaluation_col": f"evaluation_pscore{suffix}"})


NDCG_CALLS = [  # (macro options, portable options, logs, ranking)
    ("", {}, "hand_clicks", "hand_run"),
    (", k := 1", {"k": 1}, "hand_clicks", "hand_run"),
    (", k := 3, eta := 0.5", {"k": 3, "eta": 0.5}, "ips_pages", "pbm_run"),
    (", propensity := 'pbm_exam'", {"propensity": "pbm_exam"}, "ips_pages", "pbm_run"),
]


def check_ips(engine: Engine, macros: duckdb.DuckDBPyConnection) -> None:
    """Every case equal to the macro; obp's IPW, SNIPW, clipped IPW (lambda_ 10) and README
    1.198126...; the hand example's estimates."""
    obp = {r["position"] or None: r for r in read("obp_estimates.csv")}
    column = {"ips": "ipw", "snips": "snipw", "clipped": "ipw_clipped"}
    for sql, kwargs in ips_calls():
        got = engine.run(ips_estimate_to_sql(engine.dialect, **kwargs))
        same(got, macro(macros, sql))
        estimates = [r[4] for r in got]
        if kwargs["logs"] == "obd_random_all":
            want = [float(obp[p][column[kwargs["estimator"]]]) for p in ("1", "2", "3", None)]
            assert max(map(abs, (a - b for a, b in zip(estimates, want)))) < TOLERANCE
            if kwargs["estimator"] == "ips":
                assert abs(got[-1][7] - 1.198126315789) < TOLERANCE
        else:
            assert estimates == pytest.approx(HAND_IPS[kwargs["estimator"]], abs=1e-15)


def check_slates(
    engine: Engine, macros: duckdb.DuckDBPyConnection, tables: tuple[str, ...]
) -> None:
    """Each of obp's six slate estimators, per position and overall, and the hand example."""
    obp = {r["position"] or None: r for r in read("obp_slate_estimates.csv")}
    for table in tables:
        for estimator, sql, kwargs in slate_calls(table):
            got = engine.run(slate_estimate_to_sql(engine.dialect, **kwargs))
            same(got, macro(macros, sql))
            if table == "obp_slates":
                want = [float(obp[p][estimator]) for p in ("1", "2", "3", None)]
            else:
                want = HAND_SLATE[estimator]
            assert max(abs(r[5] - w) for r, w in zip(got, want)) < TOLERANCE, estimator


def check_ndcg(engine: Engine, macros: duckdb.DuckDBPyConnection) -> None:
    """The hand example (k 10 and 1) and the seeded log's first pages (power law, eta 1 and 0.5,
    and PyClick's examination as the propensity table), equal to the macro."""
    for extra, kwargs, logs, ranking in NDCG_CALLS:
        got = engine.run(ips_ndcg_to_sql(engine.dialect, logs=logs, ranking=ranking, **kwargs))
        same(got, macro(macros, f"SELECT * FROM ips_ndcg('{logs}', '{ranking}'{extra})"))
        if logs == "hand_clicks":
            assert [x for r in got for x in r[3:5]] == pytest.approx(
                HAND_NDCG[kwargs.get("k", 10)], abs=1e-15)


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_equal_obp_the_hand_numbers_and_the_macros(
    engine: Engine, macros: duckdb.DuckDBPyConnection
) -> None:
    load(engine, *TABLES)
    check_ips(engine, macros)
    check_slates(engine, macros, ("obp_slates",))  # the hand slates: on DuckDB (test_duckdb)
    check_ndcg(engine, macros)


@pytest.mark.versions
def test_duckdb(macros: duckdb.DuckDBPyConnection) -> None:
    """On DuckDB itself (every supported version): the same cases, and a policy per query."""
    engine = Engine("duckdb", lambda sql: macros.execute(sql).fetchall())
    check_ips(engine, macros)
    check_slates(engine, macros, ("hand_slates",))  # obp's: on the other engines and BigQuery
    check_ndcg(engine, macros)
    macros.execute("CREATE OR REPLACE TABLE q_logs AS SELECT *, CASE WHEN position = 1 THEN 'q1' "
                   "ELSE 'q2' END AS query_id FROM hand_logs")
    macros.execute("CREATE OR REPLACE TABLE q_policy AS SELECT *, CASE WHEN position = 1 THEN "
                   "'q1' ELSE 'q2' END AS query_id FROM hand_policy UNION ALL SELECT 4, 2, 0.9, "
                   "'q9'")
    got = macros.execute(ips_estimate_to_sql("duckdb", logs="q_logs", policy="q_policy",
                                             estimator="snips", query_col="query_id")).fetchall()
    same(got, macros.execute("SELECT * FROM ips_estimate('q_logs', 'q_policy', estimator := "
                             "'snips', query_col := 'query_id')").fetchall())
    assert [r[4] for r in got] == pytest.approx(HAND_IPS["snips"], abs=1e-15)
    # a NULL query: an error here (the macro would match it to the policy's NULL query)
    macros.execute("UPDATE q_logs SET query_id = NULL WHERE item_id = 2")
    with pytest.raises(duckdb.Error, match=re.escape(
            "logs table q_logs has NULL in query_id (1 rows)")):
        macros.execute(ips_estimate_to_sql("duckdb", logs="q_logs", policy="q_policy",
                                           query_col="query_id"))
    # an empty log: the overall row alone, with the macro's warning
    macros.execute("CREATE OR REPLACE TABLE empty_logs AS FROM hand_logs LIMIT 0")
    got = macros.execute(ips_estimate_to_sql("duckdb", logs="empty_logs",
                                             policy="hand_policy")).fetchall()
    assert got == macros.execute("SELECT * FROM ips_estimate('empty_logs', 'hand_policy')"
                                 ).fetchall()
    assert got[0][-1] == "the new policy covers none of the 0 logged rows"


def test_bigquery_round_trip(macros: duckdb.DuckDBPyConnection) -> None:
    """No BigQuery here: its text, read back by sqlglot as BigQuery and run on DuckDB, gives the
    macros' rows (the statement is BigQuery's grammar, with its ERROR() as the raiser)."""
    sql, kwargs = next(ips_calls())
    _, slate_sql, slate_kwargs = list(slate_calls("obp_slates"))[-1]  # snrips
    extra, ndcg_kwargs, logs, ranking = NDCG_CALLS[-1]  # a propensity table
    for text, want in (
        (ips_estimate_to_sql("bigquery", **kwargs), sql),
        (slate_estimate_to_sql("bigquery", **slate_kwargs), slate_sql),
        (ips_ndcg_to_sql("bigquery", logs=logs, ranking=ranking, **ndcg_kwargs),
         f"SELECT * FROM ips_ndcg('{logs}', '{ranking}'{extra})"),
    ):
        assert "ERROR(" in text
        back = sqlglot.transpile(text, read="bigquery", write="duckdb")[0]
        same(macros.execute(back).fetchall(), macro(macros, want))


def test_warnings_equal_the_macros(macros: duckdb.DuckDBPyConnection, postgres_engine: Engine,
                                   clickhouse_engine: Engine, sqlite_engine: Engine) -> None:
    """The warnings' texts (ESS to one decimal, nothing covered, a query not ranked) as the
    macros', on every engine: one row of 200 weighs 1000, the others 0.001."""
    skewed = [(i, 1, i % 2, 0.001 if i == 0 else 1.0) for i in range(200)]
    policy = [(i, 1, 1.0 if i == 0 else 0.0) for i in range(200)]
    TABLES["skewed"] = (OBD_COLUMNS, skewed)
    TABLES["skewed_policy"] = (POLICY_COLUMNS, policy)
    TABLES["elsewhere"] = (POLICY_COLUMNS, [(9, 1, 1.0)])
    TABLES["q1_run"] = (RUN_COLUMNS, [r for r in HAND_RUN if r[0] == "q1"])
    for name in ("skewed", "skewed_policy", "elsewhere", "q1_run"):
        for statement in statements("duckdb", name):
            macros.execute(statement.replace("CREATE TABLE", "CREATE OR REPLACE TABLE"))
    cases = [
        (ips_estimate_to_sql, {"logs": "skewed", "policy": "skewed_policy"},
         "SELECT * FROM ips_estimate('skewed', 'skewed_policy')"),
        (ips_estimate_to_sql, {"logs": "hand_logs", "policy": "elsewhere", "estimator": "snips"},
         "SELECT * FROM ips_estimate('hand_logs', 'elsewhere', estimator := 'snips')"),
        (ips_ndcg_to_sql, {"logs": "hand_clicks", "ranking": "q1_run"},
         "SELECT * FROM ips_ndcg('hand_clicks', 'q1_run')"),
    ]
    for engine in (postgres_engine, clickhouse_engine, sqlite_engine):
        load(engine, "skewed", "skewed_policy", "elsewhere", "q1_run", "hand_logs", "hand_clicks")
        for function, kwargs, sql in cases:
            got = engine.run(function(engine.dialect, **kwargs))
            want = macros.execute(sql).fetchall()
            same(got, want)
            assert got[-1][-1] is not None, sql
    assert macros.execute(cases[0][2]).fetchall()[-1][-1].startswith("effective sample size 1.0")


BAD = [  # (id, function, tables {name: rows}, options, the error's words up to its count)
    ("propensity-0", ips_estimate_to_sql,
     {"bad_logs": [(1, 1, 1, 0.0)], "bad_policy": [(1, 1, 1.0)]},
     {"logs": "bad_logs", "policy": "bad_policy"},
     "propensity_score of logs table bad_logs must be a probability in (0, 1]"),
    ("propensity-null", ips_estimate_to_sql,
     {"bad_logs2": [(1, 1, 1, None)], "bad_policy": [(1, 1, 1.0)]},
     {"logs": "bad_logs2", "policy": "bad_policy"},
     "propensity_score of logs table bad_logs2 must be a probability in (0, 1]"),
    ("click-2", ips_estimate_to_sql,
     {"bad_logs3": [(1, 1, 2, 0.5)], "bad_policy": [(1, 1, 1.0)]},
     {"logs": "bad_logs3", "policy": "bad_policy"}, "click of logs table bad_logs3 must be 1 or 0"),
    ("policy-over-one", ips_estimate_to_sql,
     {"bad_logs4": [(1, 1, 1, 0.5)], "bad_policy2": [(1, 1, 0.7), (2, 1, 0.6)]},
     {"logs": "bad_logs4", "policy": "bad_policy2"},
     "the probabilities of policy table bad_policy2 at position "),
    ("policy-twice", ips_estimate_to_sql,
     {"bad_logs4": [(1, 1, 1, 0.5)], "bad_policy3": [(1, 1, 0.5), (1, 1, 0.5)]},
     {"logs": "bad_logs4", "policy": "bad_policy3"}, "policy table bad_policy3 lists "),
    ("slate-propensity-0", slate_estimate_to_sql,
     {"bad_slates": [(1, 1, 0, 1, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5)]},
     {"logs": "bad_slates", "propensity_col": "pscore", "evaluation_col": "evaluation_pscore"},
     "pscore of logs table bad_slates must be a probability in (0, 1]"),
    ("prefix-grows", slate_estimate_to_sql,
     {"bad_slates2": [(1, 1, 0, 1, 0.5, 0.5, 0.1, 0.5, 0.5, 0.5),
                      (1, 2, 0, 1, 0.5, 0.5, 0.2, 0.5, 0.5, 0.5)]},
     {"logs": "bad_slates2", "estimator": "rips", "propensity_col": "pscore_cascade",
      "evaluation_col": "evaluation_pscore_cascade"},
     ("estimator := 'rips' weighs the probability of the slate down to the position, which "
     "cannot grow down a slate, but pscore_cascade of logs table bad_slates2 grows in ")),
    ("slate-probability-varies", slate_estimate_to_sql,
     {"bad_slates3": [(1, 1, 0, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5),
                      (1, 2, 0, 1, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5)]},
     {"logs": "bad_slates3", "propensity_col": "pscore", "evaluation_col": "evaluation_pscore"},
     "but pscore of logs table bad_slates3 differs within "),
    ("position-0", ips_ndcg_to_sql, {"bad_clicks": [("s1", "q1", "a", 0, 1)]},
     {"logs": "bad_clicks", "ranking": "hand_run"},
     ("propensity := 'power' reads position as whole numbers from 1, but a click in logs table "
     "bad_clicks is at ")),
    ("clicked-twice", ips_ndcg_to_sql,
     {"bad_clicks2": [("s1", "q1", "a", 1, 1), ("s1", "q1", "a", 2, 1)]},
     {"logs": "bad_clicks2", "ranking": "hand_run"}, "logs table bad_clicks2 has "),
    ("propensity-missing", ips_ndcg_to_sql, {"bad_bias": [(1, 1.0), (2, 0.5)]},
     {"logs": "hand_clicks", "ranking": "hand_run", "propensity": "bad_bias"},
     "duckdb_ndcg: position "),
    ("rank-ties", ips_ndcg_to_sql, {"bad_run": [("q1", "a", 1), ("q1", "b", 1)]},
     {"logs": "hand_clicks", "ranking": "bad_run"}, "rnk of ranking table bad_run has "),
]
_BAD_COLUMNS = {ips_estimate_to_sql: (OBD_COLUMNS, POLICY_COLUMNS),
                slate_estimate_to_sql: (SLATE_COLUMNS,),
                ips_ndcg_to_sql: (CLICK_COLUMNS, RUN_COLUMNS)}


def _bad_table(function: object, name: str, rows: list[tuple]) -> None:
    """The bad case's table in TABLES, typed by its role (logs, policy, ranking, bias)."""
    if name == "bad_bias":
        TABLES[name] = ([("position", "BIGINT"), ("propensity", "DOUBLE")], rows)
        return
    roles = _BAD_COLUMNS[function]
    TABLES[name] = (roles[1] if "policy" in name or "run" in name else roles[0], rows)


@pytest.mark.parametrize("dialect", [*ENGINES, "duckdb"])
def test_bad_input_is_an_engine_error(
    dialect: str, macros: duckdb.DuckDBPyConnection, check_cases,
    request: pytest.FixtureRequest,
) -> None:
    """Each rule an engine error carrying the words (SQLite's json() shows none); on DuckDB the
    words of the macro too, on the same tables."""
    engine = (Engine("duckdb", lambda sql: macros.execute(sql).fetchall()) if dialect == "duckdb"
              else request.getfixturevalue(f"{dialect}_engine"))
    load(engine, "hand_run", "hand_clicks")

    def case(function, tables: dict, kwargs: dict, words: str):
        def check() -> None:
            for name, rows in tables.items():
                _bad_table(function, name, rows)
            load(engine, *tables)
            expected = "malformed JSON" if engine.dialect == "sqlite" else words
            with pytest.raises(Exception, match=re.escape(expected)):
                engine.run(function(engine.dialect, **kwargs))
        return check

    check_cases((name, case(*rest)) for name, *rest in BAD)
    if engine.dialect == "duckdb":  # the same tables: the macro says the same
        for name, function, _, kwargs, words in BAD:
            macro_name = {ips_estimate_to_sql: "ips_estimate",
                          slate_estimate_to_sql: "slate_estimate",
                          ips_ndcg_to_sql: "ips_ndcg"}[function]
            tables = [v for k, v in kwargs.items() if k in ("logs", "policy", "ranking")]
            options = "".join(f", {k} := '{v}'" for k, v in kwargs.items()
                              if k not in ("logs", "policy", "ranking"))
            args = ", ".join(f"'{t}'" for t in tables)
            with pytest.raises(duckdb.Error, match=re.escape(
                    words.replace("must be 1 or 0", "must be true/false or 1/0"))):
                engine.run(f"SELECT * FROM {macro_name}({args}{options})")


def test_python_errors() -> None:
    """A bad option is one ValueError line naming it; the bootstrap is refused."""
    for call, words in (
        (lambda: ips_estimate_to_sql("spark", logs="l", policy="p", estimator="dr"),
         "estimator must be 'ips', 'snips' or 'clipped', got 'dr'"),
        (lambda: ips_estimate_to_sql("spark", logs="l", policy="p", estimator="clipped"),
         "estimator := 'clipped' needs clip := <the largest weight, a number > 0>, got None"),
        (lambda: ips_estimate_to_sql("spark", logs="l", policy="p", ci="bootstrap"),
         "ci := 'bootstrap' has no portable SQL"),
        (lambda: slate_estimate_to_sql("spark", logs="l", ci="bootstrap"),
         "ci := 'bootstrap' has no portable SQL"),
        (lambda: slate_estimate_to_sql("spark", logs="l", estimator="dr"),
         "estimator must be 'sips', 'iips', 'rips', 'snsips', 'sniips' or 'snrips', got 'dr'"),
        (lambda: ips_ndcg_to_sql("spark", logs="l", ranking="r", k=0),
         "k must be a whole number >= 1, got 0"),
        (lambda: ips_ndcg_to_sql("spark", logs="l", ranking="r", eta=-1),
         "propensity := 'power' needs eta := <a finite number >= 0>, got -1"),
        (lambda: ips_ndcg_to_sql("spark", logs="l", ranking="r", propensity=None),
         "propensity must be 'power' or a table name, got None"),
        (lambda: ips_ndcg_to_sql("spark", logs="l", ranking="r", item_col=""),
         "item_col must be a non-empty column name, got ''"),
        (lambda: ips_ndcg_to_sql("nosql", logs="l", ranking="r"), "dialect must be one of"),
    ):
        with pytest.raises(ValueError, match=re.escape(words)) as raised:
            call()
        assert "\n" not in str(raised.value)


def test_cli_prints_the_sql(
    macros: duckdb.DuckDBPyConnection, capsys: pytest.CaptureFixture[str]
) -> None:
    """duckdb-ndcg ips LOGS POLICY --dialect D prints the statement (here DuckDB's, run against
    the macro); the flags it cannot honour are usage errors in flag words."""
    assert cli.main(["ips", "obd_random_all", "obd_bts_policy", "--dialect", "duckdb",
                     "--estimator", "clipped", "--clip", "10"]) == 0
    sql = capsys.readouterr().out
    same(macros.execute(sql).fetchall(), macro(macros, (
        "SELECT * FROM ips_estimate('obd_random_all', 'obd_bts_policy', estimator := "
        "'clipped', clip := 10)")))
    for argv, words in (
        (["--dialect", "spark", "--ci", "bootstrap"], "--ci bootstrap has no portable SQL"),
        (["--dialect", "spark", "--output", "x.csv"], "--output: not with --dialect"),
        (["--pretty"], "--pretty: only with --dialect"),
        (["--dialect", "spark", "--estimator", "clipped"], "--estimator clipped needs --clip"),
    ):
        assert cli.main(["ips", "obd_random_all", "obd_bts_policy", *argv]) == cli.USAGE
        assert words in capsys.readouterr().err


def test_readme_recipe(postgres_engine: Engine) -> None:
    """The README's calls, run on PostgreSQL over obp's sample: obp's 1.198126... and SNRIPS."""
    readme = (FIXTURES.parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("from duckdb_ndcg import ips_estimate_to_sql")
    names: dict[str, object] = {}
    exec(readme[start:readme.index("```", start)], names)  # noqa: S102 -- our README's recipe
    load(postgres_engine, "obd_random_all", "obd_bts_policy", "obp_slates")
    got = postgres_engine.run(names["ips"])
    assert got[-1][0] is None and abs(got[-1][7] - 1.198126315789) < TOLERANCE
    slates = postgres_engine.run(names["slates"])
    want = float(read("obp_slate_estimates.csv")[0]["snrips"])
    assert slates[-1][0] is None and abs(slates[-1][5] - want) < TOLERANCE
