"""`events_to_sql`: events -> graded relevance -> joined with the rankings -> per-query NDCG@k."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real

from sqlglot import exp

from duckdb_ndcg.conventions import DEFAULT_EVENT_GRADES
from duckdb_ndcg.portable import _dialects, _sources
from duckdb_ndcg.portable._metrics import (
    Builder,
    Columns,
    Options,
    check_functions,
    column_name,
    cutoffs,
    table_expression,
    validate,
)
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


def _shown(
    rankings: Sequence[tuple[str | None, exp.Table]],
    query_col: str,
    item_col: str,
    position_col: str,
    slice_by: Sequence[str],
) -> exp.Select:
    """_shown: the rankings' rows (UNION ALL of several rankers, each tagged `_arm`) as
    (_arm, _s0.., _jq, _ji, _jpos); slice columns become _s0, _s1, ..."""
    selects = []
    for arm, table in rankings:
        projections = [exp.alias_(string(arm), ident("_arm"))] if arm is not None else []
        projections += [exp.alias_(col(s), ident(f"_s{i}")) for i, s in enumerate(slice_by)]
        projections += [
            exp.alias_(col(query_col), ident("_jq")),
            exp.alias_(col(item_col), ident("_ji")),
            exp.alias_(double(col(position_col)), ident("_jpos")),
        ]
        selects.append(exp.select(*projections).from_(table))
    shown = selects[0]
    for other in selects[1:]:
        shown = exp.union(shown, other, distinct=False)
    return shown


def _judged(keys: Sequence[str]) -> exp.Select:
    """_judged_run: per (keys, query, item) of `_shown`, rel from the events (NULL = no event,
    unjudged) and rnk = position (NULL = never shown: counts in the ideal only). A query's graded
    events join each of its rankings (ranker, slice), on the query alone. UNION ALL + GROUP BY
    instead of a FULL JOIN, which ClickHouse fills with defaults, not NULLs."""
    group = [*keys, "_jq"]
    shown = exp.select(
        *(col(key) for key in group),
        col("_ji"),
        exp.alias_(null_double(), ident("_jrel")),
        exp.alias_(col("_jpos"), ident("_jrnk")),
    ).from_(exp.to_table(ident("_shown")))
    rankings = (
        exp.select(*(col(key) for key in group))
        .distinct()
        .from_(exp.to_table(ident("_shown")))
        .subquery(ident("_r"))
    )
    graded = (
        exp.select(
            *(exp.column(ident(key), table=ident("_r")) for key in group),
            exp.alias_(exp.column(ident("_ei"), table=ident("_e")), ident("_ji")),
            exp.alias_(double(exp.column(ident("_eg"), table=ident("_e"))), ident("_jrel")),
            exp.alias_(null_double(), ident("_jrnk")),
        )
        .from_(rankings)
        .join(
            exp.to_table(ident("_rel_ev")).as_(ident("_e")),
            on=eq(
                exp.column(ident("_eq"), table=ident("_e")),
                exp.column(ident("_jq"), table=ident("_r")),
            ),
            join_type="inner",
        )
    )
    both = exp.union(shown, graded, distinct=False)
    return (
        exp.select(
            *(col(key) for key in group),
            col("_ji"),
            exp.alias_(exp.Max(this=col("_jrel")), ident("_jr")),
            exp.alias_(exp.Min(this=col("_jrnk")), ident("_jp")),
        )
        .from_(both.subquery(ident("_u")))
        .group_by(*(col(key) for key in group), col("_ji"))
    )


def slices(slice_by: Sequence[str], reserved: Sequence[str]) -> list[str]:
    """The validated slice_by column names (ValueError naming the problem)."""
    names = [slice_by] if isinstance(slice_by, str) else list(slice_by)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"slice_by must name columns of the rankings, got {slice_by!r}")
        if name in reserved:
            raise ValueError(
                f"slice_by column {name!r} clashes with a column the statement uses or returns "
                f"({', '.join(reserved)})"
            )
    if len(set(names)) < len(names):
        raise ValueError(f"slice_by lists a column twice: {names!r}")
    return names


def grades_of(mapping: Mapping[str, Real] | None) -> Mapping[str, Real]:
    """The event grades: `mapping`, validated, or DEFAULT_EVENT_GRADES."""
    grades = DEFAULT_EVENT_GRADES if mapping is None else mapping
    if not isinstance(grades, Mapping) or not grades:
        raise ValueError(f"mapping must be a non-empty dict event type -> grade, got {mapping!r}")
    for event_type, grade in grades.items():
        if not isinstance(event_type, str):
            # ValueError for every bad argument, as the rest of the API (STYLE.md).
            raise ValueError(f"mapping keys must be event type strings, got {event_type!r}")  # noqa: TRY004
        if isinstance(grade, bool) or not isinstance(grade, Real) or grade < 0:
            raise ValueError(f"mapping grades must be numbers >= 0, got {event_type!r}: {grade!r}")
        number(grade)
    return grades


def ndcg_options(gain: str | Mapping[Real, Real], ties: str, empty_ideal: Real | None) -> Options:
    """The Options of the event pipeline's NDCG (ties 'key' breaks ties by item, descending; at
    k None the ideal is every graded item, shown or not, as in ndcg_report(k := NULL))."""
    opts = Options(
        gain=gain,
        ties=ties,
        tie_key="_ji" if ties == "key" else None,
        log_base=2,
        empty_ideal=empty_ideal,
        clamp_k=False,
        full_ideal=True,
        threshold=1,
        negative="error",
    )
    validate(["ndcg"], opts)
    return opts


def event_ctes(
    dialect: str,
    rankings: Sequence[tuple[str | None, exp.Table]],
    events: exp.Table,
    grades: Mapping[str, Real],
    slice_by: Sequence[str],
    query_col: str,
    item_col: str,
    position_col: str,
    event_col: str,
) -> list[tuple[str, exp.Select]]:
    """_rel_ev, _shown, _judged_run: the judged run of one or more rankers (keys `_arm` when
    tagged, then the slices `_s0`..)."""
    keys = (["_arm"] if rankings[0][0] is not None else []) + [
        f"_s{i}" for i in range(len(slice_by))
    ]
    return [
        ("_rel_ev", _relevance(dialect, events, grades, query_col, item_col, event_col)),
        ("_shown", _shown(rankings, query_col, item_col, position_col, slice_by)),
        ("_judged_run", _judged(keys)),
    ]


def events_to_sql(
    dialect: str,
    *,
    rankings: str | Sequence[str],
    events: str | Sequence[str] | None = None,
    k: int | None | Sequence[int | None] = 10,
    slice_by: Sequence[str] = (),
    mapping: Mapping[str, Real] | None = None,
    gain: str | Mapping[Real, Real] = "linear",
    ties: str = "average",
    empty_ideal: Real | None = 0.0,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    event_col: str = "event_type",
    pretty: bool = False,
    source: str | None = None,
    source_options: Mapping[str, object] | None = None,
) -> str:
    """One statement: per-query NDCG@k of `rankings` (query, item, position) graded by `events`
    (query, item, event type). Each event type has a grade (`mapping`, default
    DEFAULT_EVENT_GRADES: impression/view 0, click 1, add_to_cart/cart 2, purchase 3); a pair's
    relevance is its strongest event; events of items never shown count in the ideal only; an
    unknown event type is an engine error. `slice_by` (default none) names columns of `rankings`
    (device, day): each (slice, query) is its own ranking, judged by the query's events, as in
    ndcg_report; a NULL slice value is a slice of its own. Columns: `query_id`, the slice
    columns, `ndcg` (or `ndcg_at_<k>` for a sequence of cutoffs).

    `source` (default None: the two tables above) reads a vendor's raw tables through the
    portable form of its adapter (sql/sources/): 'ubi' (rankings = the ubi_queries table, events
    = the ubi_events table) or 'ga4' (rankings = the GA4 export, events not given), with
    `source_options` the adapter's options (README "Portable SQL from GA4 and UBI exports");
    the dialect must hold nested arrays (duckdb, bigquery, clickhouse, spark).

    Example::

        events_to_sql("bigquery", rankings="shop.rankings", events="shop.events", k=10)
        events_to_sql("bigquery", rankings="analytics.events_20240101", source="ga4")
        events_to_sql("postgres", rankings="shown", events="events", k=[5, 10],
                      slice_by=["device"])
    """
    name = _dialects.normalize(dialect)
    grades = grades_of(mapping)
    ks = cutoffs(k)
    opts = ndcg_options(gain, ties, empty_ideal)
    labels = isinstance(k, Sequence)
    outputs = ["query_id"] + ([column_name("ndcg", c) for c in ks] if labels else ["ndcg"])
    names = slices(slice_by, [query_col, item_col, position_col, *outputs])
    adapter: list[tuple[str, exp.Select]] = []
    if source is not None:
        adapter = _adapter(name, source, rankings, events, source_options, names, given={
            "query_col": query_col, "item_col": item_col, "position_col": position_col,
            "event_col": event_col})
        rankings, events = "_src_shown", "_src_events"
    elif source_options is not None:
        raise ValueError("source_options: only with source ('ubi' or 'ga4')")
    elif events is None:
        raise ValueError("events must name the events table (or give source='ga4')")
    before = adapter + event_ctes(
        name,
        [(None, table_expression(rankings))],
        table_expression(events),
        grades,
        names,
        query_col,
        item_col,
        position_col,
        event_col,
    )
    keys = tuple(f"_s{i}" for i in range(len(names)))
    columns = Columns("_jq", "_ji", "_jr", "_jp", keys=keys, key_names=tuple(names))
    query = Builder(name, ["ndcg"], ks, opts).build(
        exp.to_table(ident("_judged_run")), columns, before, labels
    )
    check_functions(query, name, allowed=_sources.FUNCTIONS.get(name, ()) if source else ())
    return query.sql(dialect=name, pretty=pretty)


def _adapter(
    dialect: str,
    source: str,
    rankings: str | Sequence[str],
    events: str | Sequence[str] | None,
    options: Mapping[str, object] | None,
    slice_by: Sequence[str],
    given: Mapping[str, str],
) -> list[tuple[str, exp.Select]]:
    """The source's adapter CTEs (ending in _src_shown and _src_events), its inputs checked."""
    if source not in _sources.SOURCE_OPTIONS:
        raise ValueError(f"source must be one of {', '.join(_sources.SOURCE_OPTIONS)}, got {source!r}")
    defaults = {"query_col": "query_id", "item_col": "item_id", "position_col": "position",
                "event_col": "event_type"}
    changed = [f"{k}={v!r}" for k, v in given.items() if v != defaults[k]]
    if changed:
        raise ValueError(f"{', '.join(changed)}: not with source (its adapter names the columns)")
    if slice_by:
        raise ValueError(f"slice_by: not with source={source!r} in portable mode")
    if source == "ga4":
        if events is not None:
            raise ValueError("source='ga4' reads one export: give it as rankings, not events")
        inputs: tuple[str | Sequence[str], ...] = (rankings,)
    else:
        if events is None:
            raise ValueError("source='ubi' reads two tables: rankings=ubi_queries, events=ubi_events")
        inputs = (rankings, events)
    return _sources.source_ctes(dialect, source, inputs, options)
