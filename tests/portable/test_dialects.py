"""Dialects that cannot run here (trino, bigquery, snowflake, redshift) pinned by golden strings,
and the dialect traps checked on the generated tree of every dialect; argument errors."""

from __future__ import annotations

from functools import cache

import pytest
import sqlglot
from sqlglot import exp

from duckdb_ndcg.portable import DIALECTS, METRICS, events_to_sql, to_sql

# to_sql("dcg", dialect, table="runs", k=3, gain="exponential"), reviewed by hand: float casts on
# every division operand, LN(x) / LN(2) instead of LOG, POWER of DOUBLEs, the engine's own error
# function (FAIL, ERROR) or a failing CAST of the message (Snowflake, Redshift).
EXPECTED = {
    "trino": (
        'WITH "_source" AS (SELECT *, CASE WHEN "_rel" IS NULL THEN CAST(0 AS DOUBLE) WHEN "_rel" < 0 '
        'THEN FAIL(CONCAT(CAST(\'duckdb_ndcg: negative grade (pass negative="zero" to give it gain '
        '0): \' AS VARCHAR), CAST("_rel" AS VARCHAR))) ELSE POWER(CAST(2 AS DOUBLE), CAST("_rel" AS '
        'DOUBLE)) - CAST(1 AS DOUBLE) END AS "_gain" FROM (SELECT "query_id" AS "_query", "rel" AS "_rel",'
        ' "rnk" AS "_rnk", CASE WHEN "rnk" IS NULL THEN 0 ELSE 1 END AS "_returned", CASE WHEN "rel" IS '
        'NULL THEN 0 ELSE 1 END AS "_judged" FROM "runs") AS "_selected"), "_positions" AS (SELECT *, ROW_NUMBER() '
        'OVER (PARTITION BY "_query", "_returned" ORDER BY "_rnk" ASC) AS "_position", RANK() OVER (PARTITION BY '
        '"_query", "_returned" ORDER BY "_rnk" ASC) AS "_group_start", COUNT("_rnk") OVER (PARTITION BY "_query") AS '
        '"_ranked", ROW_NUMBER() OVER (PARTITION BY "_query", "_judged" ORDER BY "_gain" DESC) AS "_ideal_position" FROM '
        '"_source"), "_ties" AS (SELECT *, COUNT(*) OVER (PARTITION BY "_query", "_returned", "_group_start") AS "_group_size", '
        'AVG("_gain") OVER (PARTITION BY "_query", "_returned", "_group_start") AS "_gain_mean" FROM "_positions") SELECT "_query" AS '
        '"query_id", COALESCE(SUM(CASE WHEN "_returned" = 1 AND "_position" <= 3 THEN CAST(("_gain_mean") AS DOUBLE) /'
        ' (CAST((LN(CAST("_position" AS DOUBLE) + CAST(1 AS DOUBLE))) AS DOUBLE) / (LN(CAST(2 AS '
        'DOUBLE)))) END), CAST(0 AS DOUBLE)) AS "dcg" FROM "_ties" GROUP BY "_query"'
    ),
    "bigquery": (
        "WITH `_source` AS (SELECT *, CASE WHEN `_rel` IS NULL THEN CAST(0 AS FLOAT64) WHEN `_rel` < 0"
        " THEN ERROR('duckdb_ndcg: negative grade (pass negative=\"zero\" to give it gain 0): ' || "
        "CAST(`_rel` AS STRING)) ELSE POWER(CAST(2 AS FLOAT64), CAST(`_rel` AS FLOAT64)) - CAST(1 "
        "AS FLOAT64) END AS `_gain` FROM (SELECT `query_id` AS `_query`, `rel` AS `_rel`, `rnk` AS `_rnk`,"
        " CASE WHEN `rnk` IS NULL THEN 0 ELSE 1 END AS `_returned`, CASE WHEN `rel` IS NULL THEN 0 ELSE "
        "1 END AS `_judged` FROM `runs`) AS `_selected`), `_positions` AS (SELECT *, ROW_NUMBER() OVER (PARTITION "
        "BY `_query`, `_returned` ORDER BY `_rnk` ASC) AS `_position`, RANK() OVER (PARTITION BY `_query`, `_returned` ORDER"
        " BY `_rnk` ASC) AS `_group_start`, COUNT(`_rnk`) OVER (PARTITION BY `_query`) AS `_ranked`, ROW_NUMBER() "
        "OVER (PARTITION BY `_query`, `_judged` ORDER BY `_gain` DESC) AS `_ideal_position` FROM `_source`), `_ties` AS "
        "(SELECT *, COUNT(*) OVER (PARTITION BY `_query`, `_returned`, `_group_start`) AS `_group_size`, AVG(`_gain`) OVER "
        "(PARTITION BY `_query`, `_returned`, `_group_start`) AS `_gain_mean` FROM `_positions`) SELECT `_query` AS `query_id`, "
        "COALESCE(SUM(CASE WHEN `_returned` = 1 AND `_position` <= 3 THEN (`_gain_mean`) / ((LN(CAST(`_position` AS FLOAT64) "
        "+ CAST(1 AS FLOAT64))) / (LN(CAST(2 AS FLOAT64)))) END), CAST(0 AS FLOAT64)) AS `dcg` FROM"
        " `_ties` GROUP BY `_query`"
    ),
    "snowflake": (
        'WITH "_source" AS (SELECT *, CASE WHEN "_rel" IS NULL THEN CAST(0 AS DOUBLE) WHEN "_rel" < 0 '
        "THEN CAST('duckdb_ndcg: negative grade (pass negative=\"zero\" to give it gain 0): ' || "
        'CAST("_rel" AS VARCHAR) AS DOUBLE) ELSE POWER(CAST(2 AS DOUBLE), CAST("_rel" AS DOUBLE)) -'
        ' CAST(1 AS DOUBLE) END AS "_gain" FROM (SELECT "query_id" AS "_query", "rel" AS "_rel", "rnk" AS '
        '"_rnk", CASE WHEN "rnk" IS NULL THEN 0 ELSE 1 END AS "_returned", CASE WHEN "rel" IS NULL THEN '
        '0 ELSE 1 END AS "_judged" FROM "runs") AS "_selected"), "_positions" AS (SELECT *, ROW_NUMBER() OVER '
        '(PARTITION BY "_query", "_returned" ORDER BY "_rnk" ASC) AS "_position", RANK() OVER (PARTITION BY "_query", '
        '"_returned" ORDER BY "_rnk" ASC) AS "_group_start", COUNT("_rnk") OVER (PARTITION BY "_query") AS "_ranked", '
        'ROW_NUMBER() OVER (PARTITION BY "_query", "_judged" ORDER BY "_gain" DESC) AS "_ideal_position" FROM "_source"), '
        '"_ties" AS (SELECT *, COUNT(*) OVER (PARTITION BY "_query", "_returned", "_group_start") AS "_group_size", AVG("_gain")'
        ' OVER (PARTITION BY "_query", "_returned", "_group_start") AS "_gain_mean" FROM "_positions") SELECT "_query" AS "query_id",'
        ' COALESCE(SUM(CASE WHEN "_returned" = 1 AND "_position" <= 3 THEN ("_gain_mean") / ((LN(CAST("_position" AS DOUBLE) '
        '+ CAST(1 AS DOUBLE))) / (LN(CAST(2 AS DOUBLE)))) END), CAST(0 AS DOUBLE)) AS "dcg" FROM '
        '"_ties" GROUP BY "_query"'
    ),
    "redshift": (
        'WITH "_source" AS (SELECT *, CASE WHEN "_rel" IS NULL THEN CAST(0 AS DOUBLE PRECISION) WHEN '
        '"_rel" < 0 THEN CAST(\'duckdb_ndcg: negative grade (pass negative="zero" to give it gain '
        '0): \' || CAST("_rel" AS VARCHAR(MAX)) AS DOUBLE PRECISION) ELSE POWER(CAST(2 AS DOUBLE '
        'PRECISION), CAST("_rel" AS DOUBLE PRECISION)) - CAST(1 AS DOUBLE PRECISION) END AS "_gain" '
        'FROM (SELECT "query_id" AS "_query", "rel" AS "_rel", "rnk" AS "_rnk", CASE WHEN "rnk" IS NULL'
        ' THEN 0 ELSE 1 END AS "_returned", CASE WHEN "rel" IS NULL THEN 0 ELSE 1 END AS "_judged" FROM '
        '"runs") AS "_selected"), "_positions" AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY "_query", "_returned" ORDER '
        'BY "_rnk" ASC) AS "_position", RANK() OVER (PARTITION BY "_query", "_returned" ORDER BY "_rnk" ASC) AS '
        '"_group_start", COUNT("_rnk") OVER (PARTITION BY "_query") AS "_ranked", ROW_NUMBER() OVER (PARTITION BY '
        '"_query", "_judged" ORDER BY "_gain" DESC) AS "_ideal_position" FROM "_source"), "_ties" AS (SELECT *, COUNT(*) OVER'
        ' (PARTITION BY "_query", "_returned", "_group_start") AS "_group_size", AVG("_gain") OVER (PARTITION BY "_query", "_returned", '
        '"_group_start") AS "_gain_mean" FROM "_positions") SELECT "_query" AS "query_id", COALESCE(SUM(CASE WHEN "_returned" = 1'
        ' AND "_position" <= 3 THEN CAST(("_gain_mean") AS DOUBLE PRECISION) / (CAST((LN(CAST("_position" AS DOUBLE '
        "PRECISION) + CAST(1 AS DOUBLE PRECISION))) AS DOUBLE PRECISION) / (LN(CAST(2 AS DOUBLE "
        'PRECISION)))) END), CAST(0 AS DOUBLE PRECISION)) AS "dcg" FROM "_ties" GROUP BY "_query"'
    ),
}

# The result column of to_sql("r_precision", dialect, table="runs", empty_ideal=None, ties="key",
# tie_key="item_id"), reviewed by hand: a query with no relevant judged row (the sum of the
# relevance flag _h over all its rows, returned or not, is 0) gets empty_ideal, typed NULL;
# else the value, 0 where it divides by 0.
EMPTY_IDEAL_COLUMN = {
    "trino": (
        'CASE WHEN COALESCE(SUM("_hit"), 0) = 0 THEN CAST(NULL AS DOUBLE) ELSE COALESCE(CAST(('
        'COALESCE(SUM(CASE WHEN "_returned" = 1 AND "_position" <= "_hit_total" THEN CAST("_hit" AS DOUBLE) END), '
        'CAST(0 AS DOUBLE))) AS DOUBLE) / (NULLIF(SUM("_hit"), 0)), CAST(0 AS DOUBLE)) END AS '
        '"r_precision"'
    ),
    "bigquery": (
        "CASE WHEN COALESCE(SUM(`_hit`), 0) = 0 THEN CAST(NULL AS FLOAT64) ELSE COALESCE((COALESCE("
        "SUM(CASE WHEN `_returned` = 1 AND `_position` <= `_hit_total` THEN CAST(`_hit` AS FLOAT64) END), CAST(0 AS "
        "FLOAT64))) / (NULLIF(SUM(`_hit`), 0)), CAST(0 AS FLOAT64)) END AS `r_precision`"
    ),
    "snowflake": (
        'CASE WHEN COALESCE(SUM("_hit"), 0) = 0 THEN CAST(NULL AS DOUBLE) ELSE COALESCE((COALESCE('
        'SUM(CASE WHEN "_returned" = 1 AND "_position" <= "_hit_total" THEN CAST("_hit" AS DOUBLE) END), CAST(0 AS '
        'DOUBLE))) / (NULLIF(SUM("_hit"), 0)), CAST(0 AS DOUBLE)) END AS "r_precision"'
    ),
    "redshift": (
        'CASE WHEN COALESCE(SUM("_hit"), 0) = 0 THEN CAST(NULL AS DOUBLE PRECISION) ELSE COALESCE('
        'CAST((COALESCE(SUM(CASE WHEN "_returned" = 1 AND "_position" <= "_hit_total" THEN CAST("_hit" AS DOUBLE '
        'PRECISION) END), CAST(0 AS DOUBLE PRECISION))) AS DOUBLE PRECISION) / (NULLIF(SUM("_hit"), '
        '0)), CAST(0 AS DOUBLE PRECISION)) END AS "r_precision"'
    ),
}

FLOAT_TYPES = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT}
RAISE_FUNCTION = {
    "duckdb": "ERROR(",
    "sqlite": "JSON(",
    "postgres": "AS DOUBLE PRECISION)",
    "redshift": "AS DOUBLE PRECISION)",
    "snowflake": "AS DOUBLE)",
    "spark": "RAISE_ERROR(",
    "databricks": "RAISE_ERROR(",
    "clickhouse": "throwIf(",
    "trino": "FAIL(",
    "presto": "FAIL(",
    "bigquery": "ERROR(",
}
WHOLE_RANKING = ["r_precision", "bpref"]  # no cutoff
# the metrics whose macro takes empty_ideal
EMPTY_IDEAL = [
    "ndcg",
    "recall_at_k",
    "hit_rate",
    "reciprocal_rank",
    "average_precision",
    "r_precision",
    "f1_at_k",
    "bpref",
]
# Statements exercising every metric and the gain/tie conventions: ties by key, and the tie-group
# means and order guards of ties='average' (r_precision and bpref take no k: their own statement).
ALL_METRICS = [
    {
        "metric": [m for m in METRICS if m not in WHOLE_RANKING],
        "k": [3, None],
        "gain": "exponential",
        "ties": "key",
        "tie_key": "item_id",
    },
    {"metric": [m for m in METRICS if m not in WHOLE_RANKING], "k": [3, None], "p": 0.5},
    {"metric": WHOLE_RANKING, "ties": "key", "tie_key": "item_id"},
    {"metric": WHOLE_RANKING, "threshold": 2},
    {
        "metric": [m for m in EMPTY_IDEAL if m not in WHOLE_RANKING],
        "k": [3, None],
        "empty_ideal": None,
    },
    {"metric": WHOLE_RANKING, "empty_ideal": 1.0},
]


@pytest.mark.parametrize("dialect", sorted(EXPECTED))
def test_golden_string(dialect: str) -> None:
    sql = to_sql("dcg", dialect, table="runs", k=3, gain="exponential")
    # sqlglot 30.30 prints Redshift's power as POW or POWER depending on which dialects were
    # loaded before (both are Redshift functions, the same one): compare with one spelling
    spelled = {"redshift": lambda text: text.replace("POW(", "POWER(")}.get(dialect, str)
    assert spelled(sql) == spelled(EXPECTED[dialect])
    assert spelled(sqlglot.parse_one(sql, read=dialect).sql(dialect)) == spelled(sql)


@pytest.mark.parametrize("dialect", sorted(EMPTY_IDEAL_COLUMN))
def test_golden_empty_ideal_column(dialect: str) -> None:
    sql = to_sql(
        "r_precision", dialect, table="runs", empty_ideal=None, ties="key", tie_key="item_id"
    )
    column = sqlglot.parse_one(sql, read=dialect).expressions[1]
    assert column.sql(dialect) == EMPTY_IDEAL_COLUMN[dialect]
    assert sqlglot.parse_one(sql, read=dialect).sql(dialect) == sql


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("empty", [0.0, 1.0, -0.5, 2, None])
def test_empty_ideal_is_taken_by_every_metric_whose_macro_has_it(
    metric: str, empty: float | None
) -> None:
    """The metrics of EMPTY_IDEAL take empty_ideal, printed as a DOUBLE (or a typed NULL) in
    every dialect; the others refuse it, naming the metrics that take it (unless it is the
    default, 0.0, which is no option given, as for every option)."""
    k = None if metric in WHOLE_RANKING else 3
    if metric not in EMPTY_IDEAL and empty != 0.0:
        with pytest.raises(ValueError) as raised:
            to_sql(metric, "postgres", table="runs", k=k, empty_ideal=empty)
        assert str(raised.value) == (
            f"empty_ideal applies only to {', '.join(EMPTY_IDEAL)}; metric is [{metric!r}]"
        )
        return
    if metric not in EMPTY_IDEAL:
        assert to_sql(metric, "postgres", table="runs", k=k, empty_ideal=0.0) == to_sql(
            metric, "postgres", table="runs", k=k
        )
        return
    written = "NULL" if empty is None else repr(empty)
    for dialect in DIALECTS:
        tree = sqlglot.parse_one(
            to_sql(metric, dialect, table="runs", k=k, empty_ideal=empty), read=dialect
        )
        casts = [c for c in tree.expressions[1].find_all(exp.Cast) if c.to.this in FLOAT_TYPES]
        assert any(c.this.sql() == written for c in casts), (dialect, tree.expressions[1].sql())


@cache  # four tests read each dialect's trees (the tests only read them): 1 to 2 s a dialect
def _trees(dialect: str) -> list[tuple[str, exp.Expression]]:
    sqls = [to_sql(table="runs", dialect=dialect, **statement) for statement in ALL_METRICS]
    return [(sql, sqlglot.parse_one(sql, read=dialect)) for sql in sqls]


def _is_float(node: exp.Expression) -> bool:
    return any(c.to.this in FLOAT_TYPES for c in node.find_all(exp.Cast)) or any(
        isinstance(n, exp.Ln) for n in node.walk()
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_round_trip(dialect: str) -> None:
    for sql, tree in _trees(dialect):
        assert tree.sql(dialect) == sql
    events = events_to_sql(dialect, rankings="r", events="e", k=[5, 10])
    assert sqlglot.parse_one(events, read=dialect).sql(dialect) == events


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_integer_division(dialect: str) -> None:
    for _, tree in _trees(dialect):
        divisions = list(tree.find_all(exp.Div))
        assert len(divisions) >= 3
        for division in divisions:
            # One DOUBLE operand makes the division a float division on every engine.
            assert _is_float(division.this) or _is_float(division.expression), division.sql(dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_logarithm_and_power(dialect: str) -> None:
    """LN(x) / LN(base) only (LOG(b, x) vs LOG(x, b) differs by engine); POWER of DOUBLEs."""
    for sql, tree in _trees(dialect)[:2]:
        assert not list(tree.find_all(exp.Log))
        assert "LOG(" not in sql.upper().replace("_LOG(", "")
        logs = list(tree.find_all(exp.Ln))
        assert logs and all(_is_float(node.this) for node in logs)
        powers = list(tree.find_all(exp.Pow))
        assert powers
        for power in powers:
            assert isinstance(power.this, exp.Cast) and power.this.to.this in FLOAT_TYPES
            assert (
                isinstance(power.expression, exp.Cast) and power.expression.to.this in FLOAT_TYPES
            )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_nulls_guarded(dialect: str) -> None:
    """Denominators through NULLIF, every SUM through COALESCE, no NULL-order-dependent sort,
    no LEAST/GREATEST (their NULL handling differs by engine)."""
    for sql, tree in _trees(dialect):
        assert list(tree.find_all(exp.Nullif))
        for node in tree.find_all(exp.Sum):
            if isinstance(node.parent, exp.Window) or node.find_ancestor(exp.Window):
                continue
            assert node.find_ancestor(exp.Coalesce), node.sql(dialect)
        assert "NULLS FIRST" not in sql and "NULLS LAST" not in sql
        assert not list(tree.find_all(exp.Least)) and not list(tree.find_all(exp.Greatest))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_engine_error_function(dialect: str) -> None:
    sql = to_sql("ndcg", dialect, table="runs")
    assert RAISE_FUNCTION[dialect] in sql
    assert "duckdb_ndcg: negative grade" in sql


@pytest.mark.parametrize("dialect", DIALECTS)
def test_identifiers_are_quoted(dialect: str) -> None:
    sql = to_sql(
        "ndcg",
        dialect,
        table=("my db", 'odd"table'),
        query_col="q id; DROP",
        rel_col="grade",
        rnk_col="rank",
    )
    tree = sqlglot.parse_one(sql, read=dialect)
    names = {c.name for c in tree.find_all(exp.Column)}
    assert {"q id; DROP", "grade", "rank"} <= names
    table = next(t for t in tree.find_all(exp.Table) if t.name == 'odd"table')
    assert table.db == "my db"


BAD_ARGUMENTS = [
    ({"metric": "ndcg", "dialect": "oracle"}, "dialect must be one of"),
    ({"metric": "mrr"}, "metric must be one of"),
    ({"k": 0}, "k must be a positive whole number"),
    ({"k": 2.5}, "k must be a positive whole number"),
    ({"k": [5, 5]}, "k lists a cutoff twice"),
    ({"gain": "quadratic"}, "gain must be"),
    ({"gain": {1: float("nan")}}, "finite number"),
    ({"ties": "first"}, "ties must be"),
    ({"ties": "key"}, "needs tie_key"),
    ({"tie_key": "item_id"}, "only with ties='key'"),
    ({"log_base": 1}, "log_base must be"),
    ({"negative": "clip"}, "negative must be"),
    ({"metric": "precision_at_k", "gain": "exponential"}, "gain applies only to"),
    ({"metric": "ndcg", "threshold": 2}, "threshold applies only to"),
    ({"metric": "dcg", "clamp_k": True}, "clamp_k applies only to"),
    ({"metric": "idcg", "ties": "key", "tie_key": "item_id"}, "ties applies only to"),
    ({"metric": "err", "max_grade": 0}, "max_grade must be a positive number, got 0"),
    ({"metric": "err", "max_grade": float("inf")}, "max_grade must be a positive number"),
    ({"metric": "err", "max_grade": True}, "max_grade must be a positive number"),
    ({"metric": "rbp", "p": 1}, "p must be a number between 0 and 1 .exclusive., got 1"),
    ({"metric": "rbp", "p": "0.5"}, "p must be a number between 0 and 1"),
    ({"metric": "recall_at_k", "denominator": "retrieved"}, "denominator must be 'relevant' or"),
    ({"denominator": "all"}, "denominator must be 'relevant', 'min_k' or 'retrieved'"),
    ({"max_grade": 3}, "max_grade applies only to err"),
    ({"metric": "rbp_residual", "threshold": 2}, "threshold applies only to"),
    ({"p": 0.5}, "p applies only to rbp, rbp_residual"),
    ({"metric": "precision_at_k", "denominator": "min_k"}, "denominator applies only to"),
    ({"metric": "r_precision", "k": 10}, "k does not apply to r_precision"),
    ({"metric": ["ndcg", "bpref"], "k": [None, 5]}, "k does not apply to bpref"),
    ({"metric": "precision_at_k", "empty_ideal": 1.0}, "empty_ideal applies only to ndcg, rec"),
    ({"metric": "err", "empty_ideal": None}, "empty_ideal applies only to"),
    ({"metric": "hit_rate", "empty_ideal": "1"}, "empty_ideal must be a finite number or None"),
    ({"metric": "bpref", "empty_ideal": float("nan")}, "empty_ideal must be a finite number"),
    ({"empty_ideal": True}, "empty_ideal must be a finite number or None .NULL., got True"),
    ({"table": ""}, "table must be"),
    ({"rel_col": ""}, "rel_col must be"),
]


@pytest.mark.parametrize(("arguments", "message"), BAD_ARGUMENTS)
def test_bad_arguments(arguments: dict[str, object], message: str) -> None:
    call = {"metric": "ndcg", "dialect": "duckdb", "table": "runs", **arguments}
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        to_sql(**call)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"mapping": {}}, "mapping must be a non-empty"),
        ({"mapping": {"click": -1}}, "mapping grades must be numbers >= 0"),
        ({"k": -1}, "k must be"),
    ],
)
def test_bad_event_arguments(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        events_to_sql("duckdb", rankings="r", events="e", **arguments)


def test_precision_alias() -> None:
    assert to_sql("precision", "duckdb", table="t", k=3) == to_sql(
        "precision_at_k", "duckdb", table="t", k=3
    )
