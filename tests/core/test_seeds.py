"""The seed documents' worked examples, reproduced to the digits they print.

Seeds: ``/work/shared/seeds`` (000: grades 3,2,3,0,1,2; 001: Precision@K of 1-0-1-1-0-0-1;
002/003/004: IDCG@4 of 3,2,2,1 and the ``predict_list``/``ground_truth`` code).
"""

from __future__ import annotations

import functools
import math

import duckdb
import pytest

GRADES = [3, 2, 3, 0, 1, 2]
GROUND_TRUTH = {"A": 0.1, "B": 0.5, "C": 0.7, "D": 0.5, "E": 0.1}
CASES = {1: ["A", "B", "C"], 2: ["D", "A", "C", "B", "E"]}


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> object:
    return con.execute(sql, params or []).fetchone()[0]


@pytest.fixture
def grades_table(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Seed 000's six documents D1..D6 as rows (rel, rnk = position)."""
    con.execute(
        "CREATE TABLE docs AS SELECT unnest($1) AS rel, generate_subscripts($1, 1) AS rnk",
        [GRADES],
    )
    return con


@pytest.fixture
def cases_table(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The two ``cases`` of seeds 002/004 as a FULL OUTER JOIN of the ranking with the judgments:
    judged-but-not-returned items get a NULL rnk."""
    con.execute("CREATE TABLE ground_truth (item VARCHAR, rel DOUBLE)")
    con.executemany("INSERT INTO ground_truth VALUES (?, ?)", list(GROUND_TRUTH.items()))
    con.execute("CREATE TABLE predict (case_id INTEGER, item VARCHAR, rnk INTEGER)")
    con.executemany(
        "INSERT INTO predict VALUES (?, ?, ?)",
        [(case, item, pos) for case, items in CASES.items() for pos, item in enumerate(items, 1)],
    )
    con.execute(
        """
        CREATE TABLE judged_run AS
        SELECT c.case_id, g.item, g.rel, p.rnk
        FROM (SELECT DISTINCT case_id FROM predict) AS c
        CROSS JOIN ground_truth AS g
        LEFT JOIN predict AS p ON p.case_id = c.case_id AND p.item = g.item
        """
    )
    return con


LIST_FORMS = [
    ("SELECT list_cg($1)", 11, 0),
    ("SELECT list_dcg($1)", 6.861, 3),
    ("SELECT list_idcg($1)", 7.141, 3),
    ("SELECT list_ndcg($1)", 0.961, 3),
    ("SELECT list_dcg($1, 6)", 6.861, 3),
    ("SELECT list_idcg($1, 6)", 7.141, 3),
    ("SELECT list_ndcg($1, 6)", 0.961, 3),
    ("SELECT list_cg($1, 6)", 11, 0),
]
LIST_FORM_IDS = ["cg6", "dcg6", "idcg6", "ndcg6", "dcg@6", "idcg@6", "ndcg@6", "cg@6"]


def _list_form(con: duckdb.DuckDBPyConnection, sql: str, printed: float, digits: int) -> None:
    assert round(one(con, sql, [GRADES]), digits) == printed


def test_seed_000_list_forms(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each form of LIST_FORMS a case, on one connection."""
    count = check_cases(
        (case_id, functools.partial(_list_form, con, *case))
        for case_id, case in zip(LIST_FORM_IDS, LIST_FORMS, strict=True)
    )
    assert count == 8


AGGREGATE_FORMS = [
    ("cg(rel, rnk)", 11, 0),
    ("dcg(rel, rnk)", 6.861, 3),
    ("idcg(rel)", 7.141, 3),
    ("ndcg(rel, rnk)", 0.961, 3),
    ("ndcg(rel, rnk, 6)", 0.961, 3),
]


def _aggregate_form(con: duckdb.DuckDBPyConnection, agg: str, printed: float, digits: int) -> None:
    assert round(one(con, f"SELECT {agg} FROM docs"), digits) == printed


def test_seed_000_aggregate_forms(grades_table: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Each aggregate of AGGREGATE_FORMS a case, on one connection."""
    count = check_cases(
        (case[0], functools.partial(_aggregate_form, grades_table, *case))
        for case in AGGREGATE_FORMS
    )
    assert count == 5


def test_seed_000_dcg_terms(grades_table: duckdb.DuckDBPyConnection) -> None:
    """The seed's table of terms: 3 + 1.262 + 1.5 + 0 + 0.387 + 0.712, as the running window."""
    terms = grades_table.execute(
        "SELECT discounted_gain(rel, rnk) FROM docs ORDER BY rnk"
    ).fetchall()
    assert [round(t, 3) for (t,) in terms] == [3, 1.262, 1.5, 0, 0.387, 0.712]


def test_seed_000_cg_ignores_order(con: duckdb.DuckDBPyConnection) -> None:
    """CG is a plain sum, so reordering changes DCG but not CG (seed 000)."""
    swapped = [3, 2, 0, 3, 1, 2]
    assert one(con, "SELECT list_cg($1)", [swapped]) == one(con, "SELECT list_cg($1)", [GRADES])
    assert one(con, "SELECT list_dcg($1)", [swapped]) < one(con, "SELECT list_dcg($1)", [GRADES])


def test_seed_idcg_at_4(con: duckdb.DuckDBPyConnection) -> None:
    """IDCG@4 = 3/log2(2) + 2/log2(3) + 2/log2(4) + 1/log2(5) = 5.6925... (seeds 002, 004)."""
    value = one(con, "SELECT list_idcg([3, 2, 2, 1], 4)")
    assert math.floor(value * 10_000) / 10_000 == 5.6925
    assert value == pytest.approx(3 + 2 / math.log2(3) + 2 / 2 + 1 / math.log2(5), abs=1e-12)
    assert one(con, "SELECT list_idcg([1, 2, 2, 3], 4)") == value


PREDICT_LIST_FORMS = [
    ("SELECT list_dcg([0.1, 0.5, 0.7])", 0.7654648767857287),
    ("SELECT list_idcg([0.1, 0.5, 0.7, 0.5, 0.1])", 1.3472178133165222),
    (
        "SELECT list_ndcg([0.1, 0.5, 0.7], ideal := [0.1, 0.5, 0.7, 0.5, 0.1])",
        0.6048882832133625,
    ),
    (
        "SELECT list_ndcg([0.1, 0.5, 0.7], NULL, ideal := [0.1, 0.5, 0.7, 0.5, 0.1])",
        0.6048882832133625,
    ),
]
PREDICT_LIST_IDS = ["dcg", "idcg-all-five", "ndcg", "ndcg-k-null"]


def _predict_list_form(con: duckdb.DuckDBPyConnection, sql: str, printed: float) -> None:
    assert one(con, sql) == pytest.approx(printed, abs=1e-15)


def test_seed_predict_list_list_forms(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    """Seed 002's printed values. IDCG is printed as 1.3472178133165222 (002) and
    1.347217813316522 (004): both round to the same double within 1e-15. Each of
    PREDICT_LIST_FORMS a case, on one connection."""
    count = check_cases(
        (case_id, functools.partial(_predict_list_form, con, *case))
        for case_id, case in zip(PREDICT_LIST_IDS, PREDICT_LIST_FORMS, strict=True)
    )
    assert count == 4


def test_seed_idcg_both_printed_forms(con: duckdb.DuckDBPyConnection) -> None:
    value = one(con, "SELECT list_idcg([0.1, 0.5, 0.7, 0.5, 0.1])")
    assert value == pytest.approx(1.3472178133165222, abs=1e-15)
    assert value == pytest.approx(1.347217813316522, abs=1e-15)


PREDICT_AGGREGATE_FORMS = [
    ("dcg(rel, rnk)", 0.7654648767857287),
    ("idcg(rel)", 1.3472178133165222),
    ("ndcg(rel, rnk)", 0.6048882832133625),
    ("ndcg(rel, rnk, NULL)", 0.6048882832133625),
    ("ndcg(rel, rnk, ties := 'key', tie_key := item)", 0.6048882832133625),
]


def _predict_aggregate_form(con: duckdb.DuckDBPyConnection, agg: str, printed: float) -> None:
    value = one(con, f"SELECT {agg} FROM judged_run WHERE case_id = 1")
    assert value == pytest.approx(printed, abs=1e-15)


def test_seed_predict_list_aggregate_forms(
    cases_table: duckdb.DuckDBPyConnection, check_cases
) -> None:
    """Case 1 of seed 002 from the joined table: D and E are judged but not returned (NULL rnk),
    so they count in IDCG only, which k NULL cuts at the 3 returned items. Each aggregate of
    PREDICT_AGGREGATE_FORMS a case, on one connection."""
    count = check_cases(
        (case[0], functools.partial(_predict_aggregate_form, cases_table, *case))
        for case in PREDICT_AGGREGATE_FORMS
    )
    assert count == 5


def test_seed_mean_ndcg(cases_table: duckdb.DuckDBPyConnection) -> None:
    """Mean NDCG of the two cases (seeds 002, 004) = 0.7356022113638424, as avg over GROUP BY."""
    mean = one(
        cases_table,
        "SELECT avg(n) FROM (SELECT ndcg(rel, rnk) AS n FROM judged_run GROUP BY case_id)",
    )
    assert mean == pytest.approx(0.7356022113638424, abs=1e-15)


def test_seed_mean_ndcg_list_forms(con: duckdb.DuckDBPyConnection) -> None:
    ideal = list(GROUND_TRUTH.values())
    mean = one(
        con,
        "SELECT avg(list_ndcg(rels, ideal := $2)) FROM unnest($1) AS t(rels)",
        [[[GROUND_TRUTH[i] for i in items] for items in CASES.values()], ideal],
    )
    assert mean == pytest.approx(0.7356022113638424, abs=1e-15)


@pytest.mark.parametrize(("k", "expected"), [(3, 2 / 3), (5, 3 / 5)])
def test_seed_001_precision_at_k(con: duckdb.DuckDBPyConnection, k: int, expected: float) -> None:
    """1-0-1-1-0-0-1: Top-3 = 2/3 (66.7%), Top-5 = 3/5 (60%) (seed 001)."""
    value = one(
        con,
        "SELECT precision_at_k(r, p, $2) FROM unnest($1) WITH ORDINALITY AS u(r, p)",
        [[1, 0, 1, 1, 0, 0, 1], k],
    )
    assert value == pytest.approx(expected, abs=1e-15)


def test_seed_exponential_gain_formula_2(con: duckdb.DuckDBPyConnection) -> None:
    """Formula (2): sum (2^rel - 1) / log2(i + 1)."""
    expected = math.fsum((2**r - 1) / math.log2(i + 1) for i, r in enumerate(GRADES, 1))
    value = one(con, "SELECT list_dcg($1, gain := 'exponential')", [GRADES])
    assert value == pytest.approx(expected, abs=1e-12)
    assert value == pytest.approx(
        7 + 3 / math.log2(3) + 7 / 2 + 0 + 1 / math.log2(6) + 3 / math.log2(7), abs=1e-12
    )


BINARY_FORMS = [
    "list_dcg($1, gain := '{g}')",
    "list_ndcg($1, gain := '{g}')",
    "list_idcg($1, gain := '{g}')",
    "list_cg($1, gain := '{g}')",
]
BINARY_RELS = [[1, 0, 1, 1, 0, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0]]


def _formulas_agree(con: duckdb.DuckDBPyConnection, form: str, rels: list[int]) -> None:
    linear = one(con, "SELECT " + form.format(g="linear"), [rels])
    exponential = one(con, "SELECT " + form.format(g="exponential"), [rels])
    assert linear == exponential


def test_seed_binary_grades_formulas_agree(con: duckdb.DuckDBPyConnection, check_cases) -> None:
    """For binary grades (2^0 - 1) = 0 and (2^1 - 1) = 1, so formulas (1) and (2) agree. Each
    (grades, form) a case, on one connection."""
    count = check_cases(
        (f"{rels}-{form}", functools.partial(_formulas_agree, con, form, rels))
        for rels in BINARY_RELS
        for form in BINARY_FORMS
    )
    assert count == 16


def test_seed_non_binary_grades_formulas_differ(con: duckdb.DuckDBPyConnection) -> None:
    linear = one(con, "SELECT list_ndcg($1, gain := 'linear')", [GRADES])
    exponential = one(con, "SELECT list_ndcg($1, gain := 'exponential')", [GRADES])
    assert linear != pytest.approx(exponential, abs=1e-6)
