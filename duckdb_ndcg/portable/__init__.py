"""Portable SQL: the metrics of the DuckDB macros as one window-function statement per engine,
built as a sqlglot expression tree and printed for the target dialect.

Example::

    from duckdb_ndcg.portable import compare_to_sql, events_to_sql, to_sql
    print(to_sql("ndcg", "postgres", table="judged_run", k=[5, 10]))
    print(compare_to_sql("spark", rankings_a="shown_a", rankings_b="shown_b", events="events"))
    print(events_to_sql("bigquery", rankings="analytics.events_20240101", source="ga4", k=10))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real

from duckdb_ndcg.portable._clicks import click_grades_to_sql
from duckdb_ndcg.portable._compare import compare_to_sql
from duckdb_ndcg.portable._dialects import DIALECTS
from duckdb_ndcg.portable._dialects import normalize as _normalize
from duckdb_ndcg.portable._estimates import (
    ips_estimate_to_sql,
    ips_ndcg_to_sql,
    slate_estimate_to_sql,
)
from duckdb_ndcg.portable._events import DEFAULT_EVENT_GRADES, events_to_sql
from duckdb_ndcg.portable._metrics import (
    METRICS,
    Builder,
    Columns,
    Options,
    check_functions,
    column_name,
    cutoffs,
    metric_names,
    table_expression,
    validate,
)

__all__ = [
    "DEFAULT_EVENT_GRADES",
    "DIALECTS",
    "METRICS",
    "click_grades_to_sql",
    "column_name",
    "compare_to_sql",
    "events_to_sql",
    "ips_estimate_to_sql",
    "ips_ndcg_to_sql",
    "slate_estimate_to_sql",
    "to_sql",
]


def to_sql(
    metric: str | Sequence[str],
    dialect: str,
    *,
    table: str | Sequence[str],
    k: int | None | Sequence[int | None] = None,
    gain: str | Mapping[Real, Real] = "linear",
    ties: str = "average",
    tie_key: str | None = None,
    log_base: Real = 2,
    empty_ideal: Real | None = 0.0,
    clamp_k: bool = False,
    full_ideal: bool = False,
    threshold: Real = 1,
    negative: str = "error",
    max_grade: Real = 4,
    p: Real = 0.8,
    denominator: str = "relevant",
    query_col: str = "query_id",
    item_col: str = "item_id",
    rel_col: str = "rel",
    rnk_col: str = "rnk",
    pretty: bool = False,
) -> str:
    """One SQL statement computing `metric` per query on `dialect`, from `table` read like the
    aggregate macros (NULL rnk = judged, not returned; NULL rel = unjudged).

    Metrics: ndcg, dcg, idcg, cg, precision_at_k, recall_at_k, hit_rate, reciprocal_rank,
    average_precision, r_precision, f1_at_k, bpref, err, rbp, rbp_residual, judged_at_k (METRICS).
    Conventions are the macros' (k, gain, ties, tie_key, log_base, empty_ideal, clamp_k,
    full_ideal, threshold, negative; err's max_grade, rbp's p, the denominator of recall_at_k
    and average_precision), each for the metrics whose macro takes it; r_precision and bpref
    take no k. empty_ideal (a number, or None for NULL, which avg() skips) is ndcg's result when
    IDCG is 0 and the result of recall_at_k, hit_rate, reciprocal_rank, average_precision,
    r_precision, f1_at_k and bpref for a query with no relevant judged row (rel >= threshold,
    returned or not); a query with relevant rows none of which is found scores 0 all the same
    (1.0 is XGBoost's AP of an empty query; torchmetrics' empty_target_action 'neg', 'pos',
    'skip' are 0.0, 1.0, None). Under ties='average' the
    order-dependent metrics (hit_rate, reciprocal_rank, average_precision, err, bpref) raise an
    engine error where a tie group's order could change the value (the macros return the
    expectation over tied orders there); ties='key' always answers. The result has `query_id`
    and one column: the metric's name when `metric` and `k` are single values, else
    `column_name(metric, k)` for each metric and cutoff (`ndcg_at_10`, `precision_at_5`; `ndcg` for k None). Bad grades (negative, not in a
    gain map) and missing tie keys raise an engine error, as the macros do.

    Example::

        to_sql("ndcg", "spark", table="runs", k=10, gain="exponential")
        # duckdb-ndcg sql ndcg --dialect spark --k 10 --table runs --gain exponential
        to_sql("err", "postgres", table="runs", k=20, max_grade=3, ties="key", tie_key="item_id")
        to_sql("average_precision", "spark", table="runs", k=10, empty_ideal=None)
        # duckdb-ndcg sql average_precision --dialect spark --k 10 --empty-ideal null
    """
    name = _normalize(dialect)
    metrics = metric_names(metric)
    ks = cutoffs(k)
    opts = Options(
        gain=gain,
        ties=ties,
        tie_key=tie_key,
        log_base=log_base,
        empty_ideal=empty_ideal,
        clamp_k=clamp_k,
        full_ideal=full_ideal,
        threshold=threshold,
        negative=negative,
        max_grade=max_grade,
        p=p,
        denominator=denominator,
    )
    validate(metrics, opts, ks)
    for label, value in (
        ("query_col", query_col),
        ("item_col", item_col),
        ("rel_col", rel_col),
        ("rnk_col", rnk_col),
    ):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{label} must be a non-empty column name, got {value!r}")
    labels = (
        not isinstance(metric, str)
        or len(ks) > 1
        or (isinstance(k, Sequence) and not isinstance(k, str))
    )
    query = Builder(name, metrics, ks, opts).build(
        table_expression(table), Columns(query_col, item_col, rel_col, rnk_col), labels=labels
    )
    check_functions(query, name)
    return query.sql(dialect=name, pretty=pretty)
