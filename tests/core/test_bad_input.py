"""Bad input raises a ``duckdb.Error`` whose message names the problem, never a silent number."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg

# Two-row groups for the aggregates: (rel, rnk, item).
ROWS = "FROM (VALUES {}) AS v(rel, rnk, item)"
GOOD = "(2, 1.0, 'a'), (0, 2.0, 'b')"
NEGATIVE = "(-2, 3.0, 'c')"
GRADE = "('{}'::DOUBLE, 3.0, 'c')"
RANK = "(1, '{}'::DOUBLE, 'c')"
HUGE = "(1e308, 1, 'a'), (1e308, 2, 'b'), (1e308, 3, 'c')"
EXP_1024 = "(1024, 1, 'a'), (0, 2, 'b')"


def rows(*values: str) -> str:
    return ROWS.format(", ".join(values))


AGGREGATES = [
    "cg(rel, rnk)",
    "dcg(rel, rnk)",
    "ndcg(rel, rnk)",
    "ndcg(rel, rnk, 3)",
    "idcg(rel)",
]
FAMILY = [
    "precision_at_k(rel, rnk, 1)",
    "recall_at_k(rel, rnk, 1)",
    "hit_rate(rel, rnk, 1, ties := 'key', tie_key := item)",
    "reciprocal_rank(rel, rnk, ties := 'key', tie_key := item)",
    "average_precision(rel, rnk, ties := 'key', tie_key := item)",
]
LISTS = ["list_cg({})", "list_dcg({})", "list_idcg({})", "list_ndcg({})"]

CASES: list[tuple[str, str, str]] = [
    # (id, sql, message regex)
    *[
        (f"negative-grade-{f}", f"SELECT {f.format('[1, -1]')}", r"negative grade -1.*'zero'")
        for f in LISTS
    ],
    *[
        (
            f"negative-grade-{a}",
            f"SELECT {a} {rows(GOOD, NEGATIVE)}",
            r"negative grade -2",
        )
        for a in AGGREGATES
    ],
    *[
        (
            f"{v}-grade-{f}",
            f"SELECT {f.format(f'[1, {v!r}::DOUBLE]')}",
            rf"grade must be a finite number, got {v}",
        )
        for f in LISTS
        for v in ("nan", "inf", "-inf")
    ],
    *[
        (
            f"{v}-grade-{a}",
            f"SELECT {a} {rows(GOOD, GRADE.format(v))}",
            rf"grade must be a finite number, got {v}",
        )
        for a in AGGREGATES + FAMILY
        for v in ("nan", "inf")
    ],
    *[
        (
            f"{v}-rank-{a}",
            f"SELECT {a} {rows(GOOD, RANK.format(v))}",
            r"rank keys must be finite numbers \(found NaN or infinity\)",
        )
        for a in ["dcg(rel, rnk)", "ndcg(rel, rnk)", "cg(rel, rnk)", *FAMILY]
        for v in ("nan", "inf", "-inf")
    ],
    *[
        (
            f"k={k}-{f}",
            f"SELECT {f.format('[1, 2], ' + k)}",
            r"k must be a positive whole number or NULL, got",
        )
        for f in LISTS
        for k in ("0", "-1", "1.5", "'nan'::DOUBLE", "'inf'::DOUBLE", "'ten'")
    ],
    *[
        (
            f"k={k}-{a}",
            f"SELECT {a.replace('rnk)', 'rnk, ' + k + ')', 1)} {rows(GOOD)}",
            r"k must be a positive whole number or NULL, got",
        )
        for a in [
            "dcg(rel, rnk)",
            "ndcg(rel, rnk)",
            "cg(rel, rnk)",
            "precision_at_k(rel, rnk)",
            "recall_at_k(rel, rnk)",
            "average_precision(rel, rnk)",
        ]
        for k in ("0", "-3", "2.5")
    ],
    ("k=0-idcg", f"SELECT idcg(rel, 0) {rows(GOOD)}", r"k must be a positive whole number"),
    ("max_k=0-curve", "SELECT * FROM ndcg_curve('t', max_k := 0)", r"k must be a positive whole"),
    *[
        (
            f"gain-{f}",
            "SELECT " + f.format("[1, 2], gain := 'expo'"),
            r"gain must be 'linear', 'exponential' or a MAP from grade to gain, got 'expo'",
        )
        for f in LISTS
    ],
    ("gain-ndcg", f"SELECT ndcg(rel, rnk, gain := 'log') {rows(GOOD)}", r"gain must be .*, got 'log'"),
    (
        "ties-ndcg",
        f"SELECT ndcg(rel, rnk, ties := 'first') {rows(GOOD)}",
        r"ties must be 'average' or 'key', got 'first'",
    ),
    (
        "ties-precision",
        f"SELECT precision_at_k(rel, rnk, ties := 'min') {rows(GOOD)}",
        r"ties must be 'average' or 'key', got 'min'",
    ),
    (
        "negative-option",
        "SELECT list_dcg([1], negative := 'abs')",
        r"negative must be 'error' or 'zero', got 'abs'",
    ),
    ("log-base-1", "SELECT list_dcg([1, 2], log_base := 1)", r"log_base must be a finite number greater than 1"),
    (
        "log-base-0.5",
        f"SELECT dcg(rel, rnk, log_base := 0.5) {rows(GOOD)}",
        r"log_base must be a finite number greater than 1",
    ),
    (
        "gain-map-missing",
        "SELECT list_dcg([1, 2], gain := MAP {0: 0, 1: 1})",
        r"grade 2 is not in the gain map \{0=0, 1=1\}",
    ),
    (
        "gain-map-text-missing",
        "SELECT list_ndcg([1, 3], gain := '{0=0, 1=1, 2=3}')",
        r"grade 3 is not in the gain map",
    ),
    (
        "gain-map-missing-ideal",
        f"SELECT ndcg(rel, rnk, gain := MAP {{2: 3}}) {rows(GOOD)}",
        r"grade 0(\.0)? is not in the gain map",
    ),
    (
        "ties-key-without-tie-key",
        f"SELECT ndcg(rel, rnk, ties := 'key') {rows(GOOD)}",
        r"ties := 'key' needs tie_key := <column> with no NULLs",
    ),
    (
        "ties-key-null-tie-key",
        f"SELECT ndcg(rel, rnk, ties := 'key', tie_key := item) {rows(GOOD, '(1, 3.0, NULL)')}",
        r"tie_key := <column> with no NULLs",
    ),
    (
        "discounted-gain-position-0",
        "SELECT discounted_gain(1, 0)",
        r"rnk must be a position 1, 2, 3, \.\.\., got 0",
    ),
    ("discounted-gain-position-1.5", "SELECT discounted_gain(1, 1.5)", r"rnk must be a position"),
    ("discounted-gain-null", "SELECT discounted_gain(1, NULL)", r"rnk must be a position.*NULL"),
    # a NULL setting is an error naming it, never a plausible number (k and empty_ideal excepted)
    *[
        (f"null-{option}-{metric}", f"SELECT {metric}(rel, rnk, 1, {option} := NULL) {rows(GOOD)}",
         rf"{option} must be .*got NULL")
        for metric, options in {
            "ndcg": ("gain", "ties", "negative", "log_base"),
            "dcg": ("gain", "ties", "negative", "log_base"),
            "cg": ("gain", "ties", "negative"),
            "precision_at_k": ("threshold", "ties"),
            "recall_at_k": ("threshold", "ties"),
            "hit_rate": ("threshold", "ties"),
            "reciprocal_rank": ("threshold", "ties"),
            "average_precision": ("threshold", "ties"),
        }.items()
        for option in options
    ],
    ("null-gain-idcg", f"SELECT idcg(rel, 1, gain := NULL) {rows(GOOD)}", r"gain must be .*NULL"),
    # clamp_k, full_ideal, p and max_k: NULL was read as false, gave NULL or gave no rows
    *[
        (f"null-{option}-{name}", "SELECT " + f.format(f"{option} := NULL"),
         rf"{option} must be true or false, got NULL")
        for name, f in {
            "ndcg@1": f"ndcg(rel, rnk, 1, {{}}) {rows(GOOD)}",
            "ndcg": f"ndcg(rel, rnk, {{}}) {rows(GOOD)}",
            "mean_ndcg": f"mean_ndcg(item, rel, rnk, {{}}) {rows(GOOD)}",
            "list_ndcg@1": "list_ndcg([1, 2], 1, {})",
            "list_ndcg": "list_ndcg([1, 2], {})",
        }.items()
        for option in ("clamp_k", "full_ideal")
    ],
    *[
        (f"null-p-{m}", f"SELECT {m}(rel, rnk, p := NULL) {rows(GOOD)}",
         r"p must be a number between 0 and 1 \(exclusive\), got NULL")
        for m in ("rbp", "rbp_residual")
    ],
    ("null-max_k-curve", "SELECT * FROM ndcg_curve('t', max_k := NULL)",
     r"max_k must be a positive whole number, got NULL"),
    *[
        (f"null-{option}-{f}", "SELECT " + f.format(f"[1, 2], {option} := NULL"),
         rf"{option} must be .*got NULL")
        for f in LISTS
        for option in ("gain", "negative")
    ],
    *[
        (f"null-log_base-{f}", "SELECT " + f.format("[1, 2], log_base := NULL"),
         r"log_base must be a finite number greater than 1, got NULL")
        for f in ("list_dcg({})", "list_idcg({})", "list_ndcg({})")
    ],
    # an ideal below the ranking gave NDCG above 1 (4.76, 8.85); it must hold, best first, at
    # least the ranking's gain at each place (every judged grade of the query includes rels')
    *[
        (f"ideal-short-{i}", f"SELECT {sql}",
         rf"ideal must hold every judged grade of rels .*, got rels {shown}")
        for i, (sql, shown) in enumerate([
            ("list_ndcg([3, 2, 1], ideal := [1])", r"\[3, 2, 1\], ideal \[1\]"),
            ("list_ndcg([3, 3, 3, 3, 3], ideal := [1])", r"\[3, 3, 3, 3, 3\], ideal \[1\]"),
            # NDCG@2 would be 1.0 (not above it), but the ideal lacks the grade 2 of rels
            ("list_ndcg([3, 0, 2], 2, ideal := [3])", r"\[3, 0, 2\], ideal \[3\]"),
            ("list_ndcg([3, 2], ideal := [3, 1, 1, NULL])", r"\[3, 2\], ideal \[3, 1, 1, NULL\]"),
            ("list_ndcg([3, 2], ideal := [3, 1], gain := 'exponential')", r"\[3, 2\]"),
            # gains compared, not grades: 1 -> 5 exceeds 2 -> 3
            ("list_ndcg([1, 0], ideal := [2], gain := MAP {0: 0, 1: 5, 2: 3})", r"\[1, 0\]"),
            ("list_ndcg(r, ideal := i) FROM (VALUES ([1, 0], [2]), ([2, 1], [2])) AS t(r, i)",
             r"\[2, 1\], ideal \[2\]"),
        ])
    ],
    # non-finite results are refused where they would arise
    *[
        (f"log-base-{v}", f"SELECT ndcg(rel, rnk, log_base := '{v}') {rows(GOOD)}",
         rf"log_base must be a finite number greater than 1, got {v}")
        for v in ("nan", "inf")
    ],
    (
        "exponential-overflow",
        f"SELECT ndcg(rel, rnk, 10, gain := 'exponential') {rows(EXP_1024)}",
        r"grade 1024(\.0)? is too large for gain 'exponential'.*below 997",
    ),
    (
        "exponential-overflow-list",
        "SELECT list_ndcg([1024, 1], gain := 'exponential')",
        r"grade 1024 is too large for gain 'exponential'",
    ),
    (
        "huge-linear-grade",
        f"SELECT ndcg(rel, rnk) {rows(HUGE)}",
        r"grade 1e\+308 is too large for gain 'linear'",
    ),
    *[
        (f"gain-map-{v}", f"SELECT ndcg(rel, rnk, gain := MAP {{0: 0, 2: '{v}'::DOUBLE}}) {rows(GOOD)}",
         r"gain map .* has a NaN, infinite")
        for v in ("nan", "inf")
    ],
    ("gain-map-nan-list", "SELECT list_dcg([1], gain := MAP {1: 'nan'::DOUBLE})", r"has a NaN"),
    # text grades compared alphabetically, text or date keys failed deep inside a macro
    *[
        (f"{what}-{kind}-{agg.split('(')[0]}", f"SELECT {agg} FROM (VALUES ({rel}, {rnk})) AS v(rel, rnk)",
         rf"{what} must be a number, got {kind}")
        for agg in ("ndcg(rel, rnk, 10)", "dcg(rel, rnk)", "cg(rel, rnk)", "precision_at_k(rel, rnk, 5)",
                    "hit_rate(rel, rnk, 5)", "average_precision(rel, rnk)")
        for what, kind, rel, rnk in (
            ("rel", "VARCHAR", "'3'", "1"),
            ("rnk", "VARCHAR", "3", "'a'"),
            ("rnk", "DATE", "3", "DATE '2024-01-01'"),
            ("rnk", "TIMESTAMP", "3", "TIMESTAMP '2024-01-01 10:00'"),
        )
    ],
    # keys 2^60 and 2^60 + 1 are one DOUBLE: they tied (NDCG 0.815 instead of 1.0)
    *[
        (f"wide-key-{t}-{agg.split('(')[0]}",
         f"SELECT {agg} FROM (VALUES (1, {v}::{t}), (0, {v}::{t} + 1)) AS v(rel, rnk)",
         r"rnk holds a key beyond 2\^53")
        for agg in ("ndcg(rel, rnk)", "precision_at_k(rel, rnk, 1)", "rbp(rel, rnk)")
        for t, v in (("BIGINT", 2**60), ("UBIGINT", 2**60), ("HUGEINT", -(2**60)))
    ],
    # DECIMAL keys of more than 15 digits: two keys one DOUBLE tied likewise (0.815)
    *[
        (f"wide-decimal-{t}-{agg.split('(')[0]}",
         f"SELECT {agg} FROM (VALUES (1, {v}::{t}), (0, {w}::{t})) AS v(rel, rnk)",
         r"rnk is " + re.escape(t) + r" with keys up to .*, where two keys may be one DOUBLE and "
         r"tie: cast it to DOUBLE if 15 significant digits tell your keys apart")
        for agg in ("ndcg(rel, rnk)", "precision_at_k(rel, rnk, 1)", "rbp(rel, rnk)")
        for t, v, w in (("DECIMAL(18,0)", "123456789012345678", "123456789012345679"),
                        ("DECIMAL(18,3)", "123456789012345.678", "123456789012345.679"),
                        ("DECIMAL(38,10)", "1234567890123.0000000001", "1234567890123.0000000002"),
                        # few digits, but a scale a DOUBLE's spacing passes at 4.5e-5: refused
                        ("DECIMAL(38,20)", "0.25", "0.5"))
    ],
    ("rel-VARCHAR-idcg", "SELECT idcg(rel) FROM (VALUES ('3')) AS v(rel)", r"rel must be a number"),
    ("threshold-nan", f"SELECT precision_at_k(rel, rnk, 1, threshold := 'nan') {rows(GOOD)}",
     r"threshold must be a finite number, got nan"),
]


@pytest.fixture(scope="module")
def con_t() -> Iterator[duckdb.DuckDBPyConnection]:
    """One connection for the whole module: a failed statement leaves it usable."""
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        connection.execute("CREATE TABLE t AS SELECT 'q' AS query_id, 1 AS rel, 1 AS rnk")
        yield connection


@pytest.mark.parametrize(("sql", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises(con_t: duckdb.DuckDBPyConnection, sql: str, message: str) -> None:
    with pytest.raises(duckdb.Error, match=message):
        con_t.execute(sql).fetchall()


def test_case_ids_are_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT list_dcg([1, -1], negative := 'zero')", 1.0),
        (
            "SELECT list_ndcg([0, -5, 2], negative := 'zero')",
            (2 / 2) / (2 + 0 / 1.5849625007211562),
        ),
        (f"SELECT dcg(rel, rnk, negative := 'zero') {rows(GOOD, NEGATIVE)}", 2.0),
        (f"SELECT idcg(rel, negative := 'zero') {rows(GOOD, NEGATIVE)}", 2.0),
    ],
)
def test_negative_zero_gives_gain_zero(
    con_t: duckdb.DuckDBPyConnection, sql: str, expected: float
) -> None:
    assert con_t.execute(sql).fetchone()[0] == pytest.approx(expected, abs=1e-12)


def test_tied_ranks_beyond_the_cut_are_fine(con_t: duckdb.DuckDBPyConnection) -> None:
    """Ties after position k + 1 cannot change an order-dependent metric cut at k."""
    value = con_t.execute(
        f"SELECT reciprocal_rank(rel, rnk, 1) {rows('(1, 1.0, 1)', '(0, 2.0, 2)', '(0, 2.0, 3)')}"
    ).fetchone()[0]
    assert value == 1.0


RUN_OK = "q1 Q0 d1 1 2.0 run\n"
QRELS_OK = "q1 0 d1 1\n"


@pytest.mark.parametrize(
    ("reader", "text", "columns", "message"),
    [
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d1 2 1.0 run\n",
            "*",
            r"item 'd1' is listed more than once for query 'q1' \(lines 1, 2\)",
        ),
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d1 2 1.0 run\n",
            "item_id, rnk",
            r"listed more than once",
        ),
        ("read_trec_run", RUN_OK + "q1 Q0 d1 2 1.0 run\n", "count(*)", r"listed more than once"),
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d2 2 1.0\n",
            "*",
            r"line 2: a run line has 6 fields .* got 5",
        ),
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d2 2 high run\n",
            "item_id, rnk",
            r"line 2: score 'high' is not a finite number",
        ),
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d2 2 nan run\n",
            "*",
            r"score 'nan' is not a finite number",
        ),
        (
            "read_trec_run",
            RUN_OK + "q1 Q0 d2 2 inf run\n",
            "*",
            r"score 'inf' is not a finite number",
        ),
        (
            "read_qrels",
            QRELS_OK + "q1 0 d1 2\n",
            "*",
            r"item 'd1' is judged more than once for query 'q1' \(lines 1, 2\)",
        ),
        ("read_qrels", QRELS_OK + "q1 0 d1 2\n", "query_id, item_id", r"judged more than once"),
        (
            "read_qrels",
            QRELS_OK + "\n\nq1 0 d2\n",
            "count(*)",
            r"line 4: a qrels line has 4 fields .* got 3",
        ),
        (
            "read_qrels",
            QRELS_OK + "q1 0 d2 good\n",
            "item_id",
            r"line 2: grade 'good' is not a finite number",
        ),
        ("read_qrels", QRELS_OK + "q1 0 d2 NaN\n", "*", r"grade 'NaN' is not a finite number"),
    ],
    ids=[
        "run-duplicate",
        "run-duplicate-pruned-columns",
        "run-duplicate-count",
        "run-5-fields",
        "run-score-text",
        "run-score-nan",
        "run-score-inf",
        "qrels-duplicate",
        "qrels-duplicate-pruned-columns",
        "qrels-3-fields-after-blank-lines",
        "qrels-grade-text",
        "qrels-grade-nan",
    ],
)
def test_bad_trec_file_raises(
    con_t: duckdb.DuckDBPyConnection,
    tmp_path: Path,
    reader: str,
    text: str,
    columns: str,
    message: str,
) -> None:
    """Every line is checked even when the query selects none of the checked columns (a
    regression: the checks used to sit in the score/rel column and were pruned away)."""
    path = tmp_path / "file.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(duckdb.Error, match=message):
        con_t.execute(f"SELECT {columns} FROM {reader}($1)", [str(path)]).fetchall()


def test_same_item_in_two_queries_is_fine(con_t: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d1 1 2.0 r\n", encoding="utf-8")
    assert con_t.execute("SELECT count(*) FROM read_trec_run($1)", [str(path)]).fetchone() == (2,)


def test_integer_keys_up_to_2_53_are_fine(con_t: duckdb.DuckDBPyConnection) -> None:
    """The 2^53 bound refuses only what could tie: keys 2^53 - 1 and 2^53 stay apart, and a
    query whose BIGINT keys are all NULL (nothing returned) is scored, not refused."""
    rows = con_t.execute(
        "SELECT q, ndcg(rel, rnk) FROM (VALUES (1, 1, 9007199254740991::BIGINT), "
        "(1, 0, 9007199254740992::BIGINT), (2, 1, NULL::BIGINT)) AS v(q, rel, rnk) "
        "GROUP BY q ORDER BY q"
    ).fetchall()
    assert rows == [(1, 1.0), (2, 0.0)]


def test_wide_decimal_keys_a_double_tells_apart_are_fine(con_t: duckdb.DuckDBPyConnection) -> None:
    """Wide DECIMAL keys within what a DOUBLE tells apart at their scale are scored: 0.25 and
    0.5 as DECIMAL(18,6), 2^53 - 1 and 2^53 as DECIMAL(18,0), 123456789.123 and .124 as
    DECIMAL(16,3), and a query of NULL keys."""
    # one VALUES list per type: a column of several DECIMAL types is one wider DECIMAL
    for keys in ("0.25::DECIMAL(18,6), 0.5::DECIMAL(18,6)",
                 "9007199254740991::DECIMAL(18,0), 9007199254740992::DECIMAL(18,0)",
                 "123456789.123::DECIMAL(16,3), 123456789.124::DECIMAL(16,3)"):
        first, second = keys.split(", ")
        rows = con_t.execute(
            f"SELECT q, ndcg(rel, rnk) FROM (VALUES (1, 1, {first}), (1, 0, {second}), "
            "(2, 1, NULL)) AS v(q, rel, rnk) GROUP BY q ORDER BY q"
        ).fetchall()
        assert rows == [(1, 1.0), (2, 0.0)], keys
