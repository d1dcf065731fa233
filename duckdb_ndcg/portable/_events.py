"""`events_to_sql`: events -> graded relevance -> joined with the rankings -> per-query NDCG@k."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real

from sqlglot import exp

from duckdb_ndcg.portable import _dialects
from duckdb_ndcg.portable._sql import (
    cast,
    col,
    concat,
    double,
    eq,
    ident,
    null_double,
    number,
    string,
)

# The grade of each event type: the strongest event of a (query, item) pair is its relevance.
DEFAULT_EVENT_GRADES: dict[str, int] = {
    "impression": 0,
    "view": 0,
    "click": 1,
    "add_to_cart": 2,
    "cart": 2,
    "purchase": 3,
}


def _relevance(
    dialect: str,
    events: exp.Table,
    grades: Mapping[str, Real],
    query_col: str,
    item_col: str,
    event_col: str,
) -> exp.Select:
    """_rel_ev: max grade per (query, item); an unknown (or NULL) event type is an engine error."""
    event = col(event_col)
    ifs = [
        (eq(event.copy(), string(name)), double(number(grade))) for name, grade in grades.items()
    ]
    known = exp.In(this=event.copy(), expressions=[string(name) for name in grades])
    unknown = exp.Not(this=exp.paren(exp.func("COALESCE", known, exp.false()), copy=False))
    grade = _dialects.raise_if(
        dialect,
        unknown,
        concat(
            "duckdb_ndcg: unknown event type (give it a grade in mapping): ",
            exp.func("COALESCE", cast(event.copy(), "TEXT"), string("NULL")),
        ),
        exp.Case(ifs=[exp.If(this=c, true=v) for c, v in ifs]),
    )
    return (
        exp.select(
            exp.alias_(col(query_col), ident("_eq")),
            exp.alias_(col(item_col), ident("_ei")),
            exp.alias_(exp.Max(this=grade), ident("_eg")),
        )
        .from_(events)
        .group_by(col(query_col), col(item_col))
    )


def _judged(rankings: exp.Table, query_col: str, item_col: str, position_col: str) -> exp.Select:
    """_judged_run: rankings UNION ALL relevance, collapsed per (query, item): rel from the events
    (NULL = no event, unjudged), rnk = position (NULL = never shown: counts in the ideal only).
    UNION ALL + GROUP BY instead of a FULL JOIN, which ClickHouse fills with defaults, not NULLs."""
    shown = exp.select(
        exp.alias_(col(query_col), ident("_jq")),
        exp.alias_(col(item_col), ident("_ji")),
        exp.alias_(null_double(), ident("_jrel")),
        exp.alias_(double(col(position_col)), ident("_jrnk")),
    ).from_(rankings)
    graded = exp.select(
        exp.alias_(col("_eq"), ident("_jq")),
        exp.alias_(col("_ei"), ident("_ji")),
        exp.alias_(double(col("_eg")), ident("_jrel")),
        exp.alias_(null_double(), ident("_jrnk")),
    ).from_(exp.to_table(ident("_rel_ev")))
    both = exp.union(shown, graded, distinct=False)
    return (
        exp.select(
            col("_jq"),
            col("_ji"),
            exp.alias_(exp.Max(this=col("_jrel")), ident("_jr")),
            exp.alias_(exp.Min(this=col("_jrnk")), ident("_jp")),
        )
        .from_(both.subquery(ident("_u")))
        .where(
            exp.In(
                this=col("_jq"), query=exp.select(col(query_col)).from_(rankings.copy()).subquery()
            )
        )
        .group_by(col("_jq"), col("_ji"))
    )


def events_to_sql(
    dialect: str,
    *,
    rankings: str | Sequence[str],
    events: str | Sequence[str],
    k: int | None | Sequence[int | None] = 10,
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
    """One statement: per-query NDCG@k of `rankings` (query, item, position) graded by `events`
    (query, item, event type). Each event type has a grade (`mapping`, default
    DEFAULT_EVENT_GRADES: impression/view 0, click 1, add_to_cart/cart 2, purchase 3); a pair's
    relevance is its strongest event; events of items never shown count in the ideal only; an
    unknown event type is an engine error. Columns: `query_id`, `ndcg` (or `ndcg_at_<k>` for a
    sequence of cutoffs).

    Example::

        events_to_sql("bigquery", rankings="shop.rankings", events="shop.events", k=10)
    """
    from duckdb_ndcg.portable._metrics import (
        Builder,
        Columns,
        Options,
        check_functions,
        cutoffs,
        table_expression,
        validate,
    )

    name = _dialects.normalize(dialect)
    grades = DEFAULT_EVENT_GRADES if mapping is None else mapping
    if not isinstance(grades, Mapping) or not grades:
        raise ValueError(f"mapping must be a non-empty dict event type -> grade; got {mapping!r}")
    for event_type, grade in grades.items():
        if not isinstance(event_type, str):
            # ValueError for every bad argument, as the rest of the API (STYLE.md).
            raise ValueError(f"mapping keys must be event type strings; got {event_type!r}")  # noqa: TRY004
        if isinstance(grade, bool) or not isinstance(grade, Real) or grade < 0:
            raise ValueError(f"mapping grades must be numbers >= 0; got {event_type!r}: {grade!r}")
        number(grade)
    ks = cutoffs(k)
    opts = Options(
        gain=gain,
        ties=ties,
        tie_key="_ji" if ties == "key" else None,
        log_base=2,
        empty_ideal=empty_ideal,
        clamp_k=False,
        full_ideal=False,
        threshold=1,
        negative="error",
    )
    validate(["ndcg"], opts)
    before = [
        (
            "_rel_ev",
            _relevance(name, table_expression(events), grades, query_col, item_col, event_col),
        ),
        ("_judged_run", _judged(table_expression(rankings), query_col, item_col, position_col)),
    ]
    labels = isinstance(k, Sequence)
    query = Builder(name, ["ndcg"], ks, opts).build(
        exp.to_table(ident("_judged_run")), Columns("_jq", "_ji", "_jr", "_jp"), before, labels
    )
    check_functions(query, name)
    return query.sql(dialect=name, pretty=pretty)
