"""`compare_to_sql`: is ranker B better than A? The paired t-test per (slice, cutoff) as one
statement, for the engines of the portable SQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real

from sqlglot import exp

from duckdb_ndcg.portable import _dialects, _ttest
from duckdb_ndcg.portable._events import event_ctes, grades_of, ndcg_options, slices
from duckdb_ndcg.portable._metrics import (
    Builder,
    Columns,
    check_functions,
    column_name,
    cutoffs,
    table_expression,
)
from duckdb_ndcg.portable._sql import case, cast, col, div, double, eq, ident, number, string

# The result's columns after the slice columns (the names and meaning of compare_summary and
# paired_ttest; wins/ties/losses as win_tie_loss with eps 0).
RESULT_COLUMNS = (
    "k",
    "queries",
    "mean_a",
    "mean_b",
    "mean_diff",
    "sd_diff",
    "t",
    "df",
    "p_value",
    "ci_low",
    "ci_high",
    "wins",
    "ties",
    "losses",
)


def _checked_conf(conf: Real) -> float:
    if isinstance(conf, bool) or not isinstance(conf, Real) or not 0 < conf < 1:
        raise ValueError(f"conf must be a number between 0 and 1 (exclusive), got {conf!r}")
    return float(conf)


def _pairs(keys: list[str], ks: list[int | None]) -> list[tuple[str, exp.Select]]:
    """_long (one row per ranker, slice, query, cutoff) and _pairs (A and B side by side; a
    ranking one ranker did not show has NULL for it)."""
    long: exp.Query | None = None
    for k in ks:
        cutoff = cast(exp.null(), "BIGINT") if k is None else number(k)
        select = exp.select(
            *(col(key) for key in keys),
            exp.alias_(col("query_id"), ident("_q")),
            exp.alias_(cutoff, ident("_k")),
            col("_arm"),
            exp.alias_(col(column_name("ndcg", k)), ident("_v")),
        ).from_(exp.to_table(ident("_ndcg")))
        long = select if long is None else exp.union(long, select, distinct=False)
    group = [*keys, "_q", "_k"]
    side = {
        arm: exp.alias_(
            exp.Max(this=case((eq(col("_arm"), string(arm)), col("_v")))), ident(f"_{arm}")
        )
        for arm in ("a", "b")
    }
    pairs = (
        exp.select(*(col(c) for c in group), side["a"], side["b"])
        .from_(exp.to_table(ident("_long")))
        .group_by(*(col(c) for c in group))
    )
    return [("_long", long), ("_pairs", pairs)]


def _summary(keys: list[str]) -> list[tuple[str, exp.Select]]:
    """_dev (pairs both rankers showed, with the difference and its group mean) and _agg (per
    slice and cutoff: counts, means, sd_diff by two passes, exactly 0 for constant differences,
    NULL below 2 queries; wins, ties, losses)."""
    group = [*keys, "_k"]
    difference = exp.Sub(this=col("_b"), expression=col("_a"))
    dev = (
        exp.select(
            "*",
            exp.alias_(difference, ident("_d")),
            exp.alias_(
                exp.Window(
                    this=exp.Avg(this=difference.copy()),
                    partition_by=[col(c) for c in group],
                ),
                ident("_m"),
            ),
        )
        .from_(exp.to_table(ident("_pairs")))
        .where(
            exp.and_(
                exp.not_(exp.Is(this=col("_a"), expression=exp.null())),
                exp.not_(exp.Is(this=col("_b"), expression=exp.null())),
            )
        )
    )
    count = exp.Count(this=exp.Star())
    deviation = exp.Sub(this=col("_d"), expression=col("_m"))
    square = exp.Mul(
        this=exp.paren(deviation, copy=False), expression=exp.paren(deviation.copy(), copy=False)
    )
    sd = case(
        (exp.LT(this=count.copy(), expression=number(2)), cast(exp.null(), "DOUBLE")),
        (eq(exp.Min(this=col("_d")), exp.Max(this=col("_d"))), double(0)),
        default=exp.Sqrt(
            this=div(
                double(exp.Sum(this=square)),
                exp.Nullif(
                    this=exp.Sub(this=count.copy(), expression=number(1)), expression=number(0)
                ),
            )
        ),
    )

    def tally(cond: exp.Expression) -> exp.Expression:
        return exp.Count(this=case((cond, number(1))))

    zero = double(0)
    agg = (
        exp.select(
            *(col(c) for c in group),
            exp.alias_(count, ident("queries")),
            exp.alias_(exp.Avg(this=col("_a")), ident("mean_a")),
            exp.alias_(exp.Avg(this=col("_b")), ident("mean_b")),
            exp.alias_(exp.Avg(this=col("_d")), ident("mean_diff")),
            exp.alias_(sd, ident("sd_diff")),
            exp.alias_(tally(exp.GT(this=col("_d"), expression=zero)), ident("wins")),
            exp.alias_(tally(eq(col("_d"), zero.copy())), ident("ties")),
            exp.alias_(tally(exp.LT(this=col("_d"), expression=zero.copy())), ident("losses")),
        )
        .from_(exp.to_table(ident("_dev")))
        .group_by(*(col(c) for c in group))
    )
    return [("_dev", dev), ("_agg", agg)]


def compare_to_sql(
    dialect: str,
    *,
    rankings_a: str | Sequence[str],
    rankings_b: str | Sequence[str],
    events: str | Sequence[str],
    k: int | None | Sequence[int | None] = 10,
    slice_by: Sequence[str] = (),
    conf: Real = 0.95,
    mapping: Mapping[str, Real] | None = None,
    gain: str | Mapping[Real, Real] = "linear",
    ties: str = "average",
    empty_ideal: Real | None = 0.0,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    event_col: str = "event_type",
    pretty: bool = False,
) -> str:
    """One statement: is ranker B better than A? Student's paired t-test of NDCG@k over the
    queries both rankers showed, one row per (slice, cutoff), the portable form of the
    compare_summary macro with test 't' and query_set 'both'.

    Both rankings tables (query, item, position, the slice_by columns) are judged by `events`
    exactly as in events_to_sql (mapping, gain, ties, empty_ideal). Columns: the slice columns,
    `k`, `queries` (pairs), `mean_a`, `mean_b`, `mean_diff` (B - A), `sd_diff` (sample standard
    deviation), `t`, `df` (queries - 1), `p_value` (two-sided), `ci_low`, `ci_high` (the `conf`
    t-interval of mean_diff, default 0.95), `wins`, `ties`, `losses` (B above, equal to, below
    A); ordered by slice and k. Degenerate groups give what paired_ttest gives: one query ->
    sd_diff, t, df, p_value and the interval NULL; every difference equal -> sd_diff 0, t NULL,
    p_value 1 if they are all 0 else 0, the interval [mean_diff, mean_diff]. Never NaN.

    No engine has Student's t in every version (Presto's t_cdf and ClickHouse's
    studentTTestOneSample are recent), so every dialect gets the same closed forms in plain
    arithmetic (duckdb_ndcg.portable._ttest): the p-value exact for df < 30 (Hill's series for
    integer df), Hill's (1970) normal transformation with Cephes' erfc above, within 2.1e-12 of
    scipy.stats.t (absolute; t in [0, 1000], df up to 10^6); the interval's quantile exact for
    df < 100 and the Cornish-Fisher expansion (to df^-5) above, within 3.4e-13 relative at
    conf 0.95 (2.4e-12 at 0.99, 2.6e-11 at 0.999). p_value is not corrected for the several
    rows: apply Holm or Benjamini-Hochberg to the result (compare_summary does, in DuckDB).

    Example::

        compare_to_sql("postgres", rankings_a="shown_a", rankings_b="shown_b",
                       events="events", k=[5, 10], slice_by=["device"])
    """
    name = _dialects.normalize(dialect)
    grades = grades_of(mapping)
    ks = cutoffs(k)
    opts = ndcg_options(gain, ties, empty_ideal)
    level = _checked_conf(conf)
    names = slices(slice_by, [query_col, item_col, position_col, *RESULT_COLUMNS])
    before = event_ctes(
        name,
        [("a", table_expression(rankings_a)), ("b", table_expression(rankings_b))],
        table_expression(events),
        grades,
        names,
        query_col,
        item_col,
        position_col,
        event_col,
    )
    keys = [f"_s{i}" for i in range(len(names))]
    columns = Columns("_jq", "_ji", "_jr", "_jp", keys=("_arm", *keys))
    ctes, ndcg = Builder(name, ["ndcg"], ks, opts).parts(
        exp.to_table(ident("_judged_run")), columns, before, labels=True
    )
    ctes += [("_ndcg", ndcg), *_pairs(keys, ks), *_summary(keys), *_ttest.stages("_agg", level)]
    outputs = [exp.alias_(col(key), ident(label)) for key, label in zip(keys, names, strict=True)]
    outputs += [exp.alias_(col("_k"), ident("k"))]
    outputs += [col(c) for c in RESULT_COLUMNS[1:]]
    query = (
        exp.select(*outputs)
        .from_(exp.to_table(ident("_tt4")))
        .order_by(*(col(key) for key in keys), col("_k"))
    )
    for cte, body in ctes:
        query = query.with_(ident(cte), as_=body)
    check_functions(query, name)
    return query.sql(dialect=name, pretty=pretty)
