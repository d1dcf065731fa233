"""`duckdb-ndcg sql <metric> --dialect`: the family metrics and their options (--max-grade, --p,
--denominator) print to_sql's statement, which on DuckDB equals the macros; bad values are one
line in the CLI's terms."""

from __future__ import annotations

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli
from duckdb_ndcg.portable import METRICS

# judged_run: a tie at rnk 2 (grades 3 and 0), an unjudged row, a judged row never returned
ROWS = (
    "('q', 'a', 2, 1.0), ('q', 'b', 3, 2.0), ('q', 'c', 0, 2.0), ('q', 'd', NULL, 3.0),"
    " ('q', 'e', 1, 4.0), ('q', 'f', 1, NULL), ('r', 'a', 0, 1.0), ('r', 'b', 4, 2.0)"
)
# (flags, keyword arguments of to_sql, the macro call it must equal)
CASES = {
    "err": (
        ["--k", "3", "--max-grade", "5", "--ties", "key", "--tie-key", "item_id"],
        {"k": 3, "max_grade": 5, "ties": "key", "tie_key": "item_id"},
        "err(rel, rnk, 3, max_grade := 5, ties := 'key', tie_key := item_id)",
        None,
    ),
    "rbp": (
        ["--p", "0.6"],
        {"p": 0.6},
        "rbp(rel, rnk, p := 0.6)",
        None,
    ),
    "rbp_residual": (
        ["--p", "0.9", "--k", "4"],
        {"p": 0.9, "k": 4},
        "rbp_residual(rel, rnk, p := 0.9, k := 4)",
        None,
    ),
    "average_precision": (
        ["--k", "3", "--denominator", "retrieved", "--ties", "key", "--tie-key", "item_id"],
        {"k": 3, "denominator": "retrieved", "ties": "key", "tie_key": "item_id"},
        (
            "average_precision(rel, rnk, 3, denominator := 'retrieved', ties := 'key', "
            "tie_key := item_id)"
        ),
        None,
    ),
    "recall_at_k": (
        ["--k", "1,2", "--denominator", "min_k"],
        {"k": [1, 2], "denominator": "min_k"},
        "recall_at_k(rel, rnk, 1, denominator := 'min_k')",
        "recall_at_k(rel, rnk, 2, denominator := 'min_k')",
    ),
    "r_precision": ([], {}, "r_precision(rel, rnk)", None),
    "bpref": (
        ["--ties", "key", "--tie-key", "item_id"],
        {"ties": "key", "tie_key": "item_id"},
        "bpref(rel, rnk, ties := 'key', tie_key := item_id)",
        None,
    ),
    "f1_at_k": (["--k", "2"], {"k": 2}, "f1_at_k(rel, rnk, 2)", None),
    "judged_at_k": (["--k", "4"], {"k": 4}, "judged_at_k(rel, rnk, 4)", None),
}


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("metric", CASES)
def test_sql_family_metric_equals_the_macro(
    capsys: pytest.CaptureFixture[str], metric: str
) -> None:
    flags, kwargs, *calls = CASES[metric]
    code, out, err = _main(capsys, "sql", metric, "--dialect", "duckdb", *flags)
    assert code == 0, err
    assert out.strip() == duckdb_ndcg.to_sql(metric, "duckdb", table="judged_run", **kwargs)
    macros = ", ".join(call for call in calls if call)
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            f"CREATE TABLE judged_run AS SELECT * FROM (VALUES {ROWS})"
            " AS t(query_id, item_id, rel, rnk)"
        )
        got = con.execute(out + " ORDER BY 1").fetchall()
        want = con.execute(
            f"SELECT query_id, {macros} FROM judged_run GROUP BY query_id ORDER BY 1"
        ).fetchall()
    assert [row[0] for row in got] == [row[0] for row in want] == ["q", "r"]
    for mine, theirs in zip(got, want, strict=True):
        assert mine[1:] == pytest.approx(theirs[1:], abs=1e-12)
    assert any(0 < value < 1 for row in got for value in row[1:])


# judged_run with queries that have nothing relevant: e (grades 0, an unjudged row, a grade 0
# never returned), u (unjudged only); m's relevant row was never returned (0, not empty_ideal)
EMPTY_ROWS = (
    "('q', 'a', 2, 1.0), ('q', 'b', 0, 2.0), ('q', 'c', 1, 3.0), ('e', 'a', 0, 1.0),"
    " ('e', 'b', NULL, 2.0), ('e', 'c', 0, NULL), ('u', 'a', NULL, 1.0), ('m', 'a', 0, 1.0),"
    " ('m', 'b', 3, NULL)"
)
EMPTY_METRICS = (
    "ndcg",
    "recall_at_k",
    "hit_rate",
    "reciprocal_rank",
    "average_precision",
    "r_precision",
    "f1_at_k",
    "bpref",
)


@pytest.mark.parametrize("metric", EMPTY_METRICS)
@pytest.mark.parametrize(("flag", "value", "literal"), [("1", 1, "1"), ("null", None, "NULL")])
def test_sql_empty_ideal_equals_the_macro(
    capsys: pytest.CaptureFixture[str], metric: str, flag: str, value: object, literal: str
) -> None:
    """--empty-ideal X (null: NULL) is to_sql's empty_ideal, equal on DuckDB to the macro's."""
    k = [] if metric in ("r_precision", "bpref") else ["--k", "2"]
    code, out, err = _main(capsys, "sql", metric, "--dialect", "duckdb", *k, "--empty-ideal", flag)
    assert code == 0, err
    cut = {} if not k else {"k": 2}
    assert out.strip() == duckdb_ndcg.to_sql(
        metric, "duckdb", table="judged_run", empty_ideal=value, **cut
    )
    call = f"{metric}(rel, rnk{', 2' if k else ''}, empty_ideal := {literal})"
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            f"CREATE TABLE judged_run AS SELECT * FROM (VALUES {EMPTY_ROWS})"
            " AS t(query_id, item_id, rel, rnk)"
        )
        got = con.execute(out + " ORDER BY 1").fetchall()
        want = con.execute(
            f"SELECT query_id, {call} FROM judged_run GROUP BY query_id ORDER BY 1"
        ).fetchall()
    assert got == [(q, pytest.approx(v, abs=1e-12)) for q, v in want]
    assert dict(got)["e"] == dict(got)["u"] == value
    assert dict(got)["m"] == 0.0


def test_sql_events_empty_ideal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "sql", "events", "--dialect", "spark", "--empty-ideal", "NULL")
    assert code == 0, err
    assert out.strip() == duckdb_ndcg.events_to_sql(
        "spark", rankings="rankings", events="events", empty_ideal=None
    )


def test_sql_family_options_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["sql", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-grade MAX_GRADE err: the top of the grade scale (default 4)" in text
    assert "--p P rbp, rbp_residual: persistence in (0, 1) (default 0.8)" in text
    assert "--denominator {relevant,min_k,retrieved}" in text and "(default relevant)" in text
    assert "--empty-ideal EMPTY_IDEAL ndcg, events and the metrics whose macro takes it" in text
    for metric in METRICS:
        assert metric in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["err", "--max-grade", "0"], "--max-grade must be a positive number, got 0"),
        (["err", "--max-grade", "x"], "--max-grade: expected a number, got 'x'"),
        (["rbp", "--p", "1"], "--p must be a number between 0 and 1 (exclusive), got 1"),
        (
            ["recall_at_k", "--denominator", "retrieved"],
            "--denominator must be 'relevant' or 'min_k', got 'retrieved'",
        ),
        (["ndcg", "--p", "0.5"], "--p applies only to rbp, rbp_residual"),
        (["ndcg", "--max-grade", "3"], "--max-grade applies only to err"),
        (["precision_at_k", "--denominator", "min_k"], "--denominator applies only to"),
        (["bpref", "--k", "10"], "--k does not apply to bpref, which reads whole rankings"),
        (["events", "--denominator", "min_k"], "--denominator: not used by events"),
        (
            ["precision_at_k", "--empty-ideal", "1"],
            (
                "--empty-ideal applies only to ndcg, recall_at_k, hit_rate, reciprocal_rank, "
                "average_precision, r_precision, f1_at_k, bpref; metric is ['precision_at_k']"
            ),
        ),
        (["err", "--empty-ideal", "null"], "--empty-ideal applies only to ndcg, recall_at_k"),
        (["hit_rate", "--empty-ideal", "none"], "--empty-ideal: expected a number or null, got"),
        (["bpref", "--empty-ideal", "nan"], "--empty-ideal must be a finite number or None"),
    ],
)
def test_sql_family_bad_options(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = _main(capsys, "sql", *args[:1], "--dialect", "postgres", *args[1:])
    assert code == 2 and out == ""
    assert message in err and len(err.splitlines()) == 1


def test_sql_family_options_need_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(capsys, "sql", "rbp", "--p", "0.5")
    assert code == 2 and "--p: only with --dialect" in err
    code, _, err = _main(capsys, "sql", "hit_rate", "--empty-ideal", "null")
    assert code == 2 and "--empty-ideal: only with --dialect" in err


def test_sql_without_dialect_recreates_the_macro_its_callers_bind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`sql ndcg` printed the source without the guard parameter (duckdb_ndcg.macros.guard())
    that every caller passes: running it replaced ndcg, and mean_ndcg, which calls it, no longer
    bound. Printed as created, it replaces ndcg with itself and stays one of ours."""
    code, out, _ = _main(capsys, "sql", "ndcg")
    assert code == 0
    assert "CREATE OR REPLACE MACRO ndcg(" in out and out.lstrip().startswith("--")
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            "CREATE TABLE judged_run AS SELECT * FROM (VALUES " + ROWS + ") t(query_id, item_id, rel, rnk)"
        )
        before = con.execute("SELECT mean_ndcg(query_id, rel, rnk, 3) FROM judged_run").fetchone()
        con.execute(out)
        after = con.execute("SELECT mean_ndcg(query_id, rel, rnk, 3) FROM judged_run").fetchone()
        assert after == before
        duckdb_ndcg.register(con)  # still recognised as ours: replaced without asking
