"""click_grades_to_sql on real engines: COEC, CTR, DCTR, the cascade model, SDBN and PBM (50 EM
steps unrolled) equal PyClick's fixtures (to 1e-12) and the DuckDB macro, and COEC equals SRW's
rule on SRW's ESCI UBI sample (tests/fixtures/clicks/, recorded offline); each bad input an
engine error. Every engine reads the log's first 100 pages (make_pyclick_first_pages.py records
PyClick there); Spark (about 20 s a session) runs one test."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import sqlglot
from conftest import Engine, _ddl

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.portable import click_grades_to_sql

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "clicks"
MODELS = ("coec", "ctr", "dctr", "cascade", "sdbn", "pbm")
PYCLICK = ("dctr", "cascade", "sdbn", "pbm")  # the columns of pyclick_grades.csv
# Spark: test_spark below; DuckDB: test_bigquery_round_trip and the versions test
ENGINES = ("sqlite", "postgres", "clickhouse")
LOG_COLUMNS = [("session_id", "TEXT"), ("query_id", "TEXT"), ("item_id", "TEXT"),
               ("position", "BIGINT"), ("click", "BIGINT")]
ESCI_COLUMNS = [("user_query", "TEXT"), ("object_id", "TEXT"), ("action_name", "TEXT"),
                ("ordinal", "BIGINT"), ("day", "TEXT"), ("session", "TEXT")]
ESCI = {"query_col": "user_query", "item_col": "object_id", "position_col": "ordinal",
        "action_col": "action_name"}
TOLERANCE = 1e-12


def rows(name: str, columns: list[tuple[str, str]]) -> list[tuple]:
    with open(FIXTURES / name, newline="") as f:
        return [tuple(int(r[c]) if t == "BIGINT" else r[c] for c, t in columns)
                for r in csv.DictReader(f)]


ESCI_ROWS = rows("srw_esci_events.csv", ESCI_COLUMNS)
# the log's first 100 pages, where make_pyclick_first_pages.py records PyClick
FIRST_PAGES = [r for r in rows("log.csv", LOG_COLUMNS) if r[0] < "s0100"]
_LOADED: set[tuple[str, str]] = set()


def load(engine: Engine, name: str, columns: list[tuple[str, str]], data: list[tuple]) -> None:
    """The table on the engine, once per session (the engines are session fixtures)."""
    if (engine.dialect, name) in _LOADED:
        return
    if engine.dialect == "spark":  # a temporary view, as conftest's (a table would be a folder)
        from pyspark.sql import SparkSession

        schema = ", ".join(f"`{c}` {'BIGINT' if t == 'BIGINT' else 'STRING'}" for c, t in columns)
        SparkSession.getActiveSession().createDataFrame(data, schema).createOrReplaceTempView(name)
        _LOADED.add((engine.dialect, name))
        return
    for statement in _ddl(engine.dialect, name, columns, data):
        try:
            engine.run(statement)
        except Exception as error:  # psycopg: a CREATE or INSERT has no rows to fetch
            if "didn't produce records" not in str(error):
                raise
    _LOADED.add((engine.dialect, name))


@pytest.fixture(scope="module")
def macros() -> Iterator[duckdb.DuckDBPyConnection]:
    """The DuckDB macros on the same tables: the truth besides the oracles' fixtures."""
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        for name, columns, data in (("first_pages", LOG_COLUMNS, FIRST_PAGES),
                                    ("esci", ESCI_COLUMNS, ESCI_ROWS)):
            for statement in _ddl("duckdb", name, columns, data):
                con.execute(statement)
        yield con


def graded(found: list[tuple]) -> dict[tuple[str, str], tuple]:
    return {(q, d): (float(rel), int(rnk), int(n), int(c)) for q, d, rel, rnk, n, c in found}


_MACRO: dict[str, dict] = {}


def macro(con: duckdb.DuckDBPyConnection, table: str, model: str, **options: object) -> dict:
    """The macro's grades, computed once per call text (the tables never change)."""
    extra = "".join(f", {k} := {v!r}" for k, v in options.items())
    sql = f"SELECT * FROM click_grades('{table}', model := '{model}'{extra})"
    if sql not in _MACRO:
        _MACRO[sql] = graded(con.execute(sql).fetchall())
    return _MACRO[sql]


def worst(got: dict, want: dict) -> float:
    assert got.keys() == want.keys()
    assert {k: v[1:] for k, v in got.items()} == {k: v[1:] for k, v in want.items()}
    return max(abs(got[k][0] - want[k][0]) for k in want)


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_models_equal_pyclick_and_the_macro(
    engine: Engine, macros: duckdb.DuckDBPyConnection
) -> None:
    load(engine, "first_pages", LOG_COLUMNS, FIRST_PAGES)
    with open(FIXTURES / "pyclick_first_pages.csv", newline="") as f:
        pyclick = list(csv.DictReader(f))
    for model in MODELS:
        sql = click_grades_to_sql(engine.dialect, table="first_pages", model=model,
                                  session_col="session_id")
        got = graded(engine.run(sql))
        want = macro(macros, "first_pages", model, session_col="session_id")
        assert worst(got, want) < TOLERANCE, model
        if model in PYCLICK:
            assert max(abs(got[r["query_id"], r["item_id"]][0] - float(r[model]))
                       for r in pyclick) < TOLERANCE, model


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_coec_equals_srw_on_its_esci_sample(engine: Engine) -> None:
    """The event form (UBI's action_name), SRW's rounding, its pairs clicked but never shown."""
    load(engine, "esci", ESCI_COLUMNS, ESCI_ROWS)
    with open(FIXTURES / "srw_esci_coec.csv", newline="") as f:
        oracle = list(csv.DictReader(f))
    for case, max_rank in (("max_rank_20", 20), ("max_rank_3", 3)):
        got = graded(engine.run(click_grades_to_sql(engine.dialect, table="esci",
                                                    max_rank=max_rank, **ESCI)))
        want = {(r["user_query"], r["object_id"]): (
            float(r["rating"]), int(r["rank"]), int(r["impressions"]), int(r["clicks"]))
            for r in oracle if r["case"] == case}
        assert got == want, case


@pytest.mark.versions
def test_duckdb_bins_and_min_impressions(macros: duckdb.DuckDBPyConnection) -> None:
    """On DuckDB itself (every supported version): bins and min_impressions as the macro's."""
    for options in ({"bins": [0.2, 0.4]}, {"min_impressions": 5}):
        sql = click_grades_to_sql("duckdb", table="first_pages", model="dctr", **options)
        want = macro(macros, "first_pages", "dctr", **options)
        assert graded(macros.execute(sql).fetchall()) == want
    assert 0 < len(want) < 290  # min_impressions left pairs out


def test_spark(spark_engine: Engine, macros: duckdb.DuckDBPyConnection) -> None:
    """Two statements (a Spark statement costs seconds here): SDBN (page windows, the flag form)
    on the log's first 100 pages against PyClick, and COEC (the event form, SRW's rank CTR join)
    on SRW's sample against SRW's numbers. PBM is a gap (GAPS): our error, not Spark's."""
    load(spark_engine, "first_pages", LOG_COLUMNS, FIRST_PAGES)
    with pytest.raises(ValueError, match="model := 'pbm' has no portable SQL for spark: PBM's"):
        click_grades_to_sql("spark", table="first_pages", model="pbm", session_col="session_id")
    with open(FIXTURES / "pyclick_first_pages.csv", newline="") as f:
        pyclick = {(r["query_id"], r["item_id"]): float(r["sdbn"]) for r in csv.DictReader(f)}
    for model in ("sdbn",):
        sql = click_grades_to_sql("spark", table="first_pages", model=model,
                                  session_col="session_id")
        got = graded(spark_engine.run(sql))
        assert worst(got, macro(macros, "first_pages", model, session_col="session_id")) \
            < TOLERANCE, model
        assert max(abs(got[k][0] - v) for k, v in pyclick.items()) < TOLERANCE
    load(spark_engine, "esci", ESCI_COLUMNS, ESCI_ROWS)
    got = graded(spark_engine.run(click_grades_to_sql("spark", table="esci", **ESCI)))
    with open(FIXTURES / "srw_esci_coec.csv", newline="") as f:
        assert got == {(r["user_query"], r["object_id"]): (
            float(r["rating"]), int(r["rank"]), int(r["impressions"]), int(r["clicks"]))
            for r in csv.DictReader(f) if r["case"] == "max_rank_20"}


def test_bigquery_round_trip(macros: duckdb.DuckDBPyConnection) -> None:
    """No BigQuery here: its text, read back by sqlglot as BigQuery and run on DuckDB, gives the
    macro's numbers (the statement is BigQuery's grammar, with its ERROR() as the raiser)."""
    for model in ("coec", "sdbn", "pbm"):
        text = click_grades_to_sql("bigquery", table="first_pages", model=model,
                                   session_col="session_id")
        assert "ERROR(" in text and "`first_pages`" in text
        back = sqlglot.transpile(text, read="bigquery", write="duckdb")[0]
        assert worst(graded(macros.execute(back).fetchall()),
                     macro(macros, "first_pages", model, session_col="session_id")) < TOLERANCE


BAD = [  # (id, rows, options, the error's words); each case's table is bad_<id>
    ("null_query", [("s", None, "a", 1, 1)], {},
     "events table bad_null_query has NULL in query_id"),
    ("click2", [("s", "q", "a", 1, 2)], {}, "click of events table bad_click2 must be 1 or 0"),
    ("negative", [("s", "q", "a", -1, 1)], {},
     "position of events table bad_negative has negative"),
    ("two_results", [("s", "q", "a", 1, 1), ("s", "q", "b", 1, 0)],
     {"model": "pbm", "session_col": "session_id"},
     "(session_id, query_id, position) of bad_two_results show more than one result"),
    ("unseen", [("s", "q", "a", 1, "click")],
     {"model": "ctr", "action_col": "click"}, "has more clicks than impressions"),
]


@pytest.mark.parametrize("engine", ENGINES, indirect=True)
def test_bad_input_is_an_engine_error(engine: Engine, check_cases) -> None:
    def case(name: str, data: list[tuple], options: dict, words: str):
        def check() -> None:
            columns = [*LOG_COLUMNS[:4],
                       ("click", "TEXT" if "action_col" in options else "BIGINT")]
            load(engine, f"bad_{name}", columns, data)
            expected = "malformed JSON" if engine.dialect == "sqlite" else words
            with pytest.raises(Exception, match=re.escape(expected)):
                engine.run(click_grades_to_sql(engine.dialect, table=f"bad_{name}", **options))
        return check

    check_cases((name, case(name, *rest)) for name, *rest in BAD)


def test_python_errors() -> None:
    with pytest.raises(ValueError, match="model := 'dbn' has no portable SQL"):
        click_grades_to_sql("spark", table="t", model="dbn")
    with pytest.raises(ValueError, match=re.escape("model := 'sdbn' reads result pages")):
        click_grades_to_sql("spark", table="t", model="sdbn")
    with pytest.raises(ValueError, match="bins must be a non-empty list"):
        click_grades_to_sql("spark", table="t", bins=[2, 1])
    with pytest.raises(ValueError, match="max_rank must be a whole number >= 1"):
        click_grades_to_sql("spark", table="t", max_rank=0)


def test_readme_recipe(postgres_engine: Engine) -> None:
    """The README's call, run on PostgreSQL over the log's first 100 pages as ``clicks``."""
    readme = (FIXTURES.parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("from duckdb_ndcg import click_grades_to_sql")
    names: dict[str, object] = {}
    exec(readme[start:readme.index("```", start)], names)  # noqa: S102 -- our README's recipe
    load(postgres_engine, "clicks", LOG_COLUMNS, FIRST_PAGES)
    got = graded(postgres_engine.run(names["sql"]))
    with open(FIXTURES / "pyclick_first_pages.csv", newline="") as f:
        pyclick = {(r["query_id"], r["item_id"]): float(r["pbm"]) for r in csv.DictReader(f)}
    assert got.keys() == pyclick.keys()
    assert max(abs(got[k][0] - v) for k, v in pyclick.items()) < TOLERANCE


def test_cli_prints_the_sql(
    macros: duckdb.DuckDBPyConnection, capsys: pytest.CaptureFixture[str]
) -> None:
    """duckdb-ndcg grades TABLE --dialect D prints the statement (here DuckDB's, run against the
    macro); the flags it cannot honour are usage errors in flag words."""
    assert cli.main(["grades", "first_pages", "--dialect", "duckdb", "--model", "sdbn",
                     "--session-col", "session_id"]) == 0
    sql = capsys.readouterr().out
    assert worst(graded(macros.execute(sql).fetchall()),
                 macro(macros, "first_pages", "sdbn", session_col="session_id")) < TOLERANCE
    for argv, words in (
        (["--model", "pbm", "--session-col", "s", "--dialect", "spark"],
         "--model pbm has no portable SQL for spark"),
        (["--dialect", "spark", "--time-col", "day"], "--time-col: not with --dialect"),
        (["--pretty"], "--pretty: only with --dialect"),
    ):
        assert cli.main(["grades", "first_pages", *argv]) == cli.USAGE
        assert words in capsys.readouterr().err
