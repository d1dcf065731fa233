"""`to_sql`: the per-query metrics of the core aggregates as one window-function statement."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

from sqlglot import exp

from duckdb_ndcg.conventions import FAMILY_METRICS, GAIN_METRICS, MACROS, PORTABLE_METRICS
from duckdb_ndcg.portable import _dialects
from duckdb_ndcg.portable._sql import (
    case,
    coalesce,
    col,
    concat,
    div,
    double,
    eq,
    ident,
    ln,
    null_double,
    nullif,
    number,
)

METRICS = PORTABLE_METRICS
_ALIASES = {"precision": "precision_at_k", "recall": "recall_at_k"}
# The options each metric takes here besides k, ties and tie_key: its macro's, as the conventions
# table declares them (duckdb_ndcg.conventions, the one declaration). validate derives
# "<option> applies only to ..." from this table.
_ORDER_OPTIONS = ("k", "ties", "tie_key")
_TAKES: dict[str, tuple[str, ...]] = {
    m: tuple(
        p.name for p in MACROS[m].params if p.default is not None and p.name not in _ORDER_OPTIONS
    )
    for m in METRICS
}
# the ideal sorts grades, not rank keys: no ties option
_NO_TIES = tuple(m for m in METRICS if all(p.name != "ties" for p in MACROS[m].params))
# no cutoff: R and bpref read every returned row
_WHOLE_RANKING = tuple(m for m in METRICS if all(p.name != "k" for p in MACROS[m].params))
# The family metrics whose result for a query with no relevant judged row (rel >= threshold,
# returned or not) is empty_ideal, as the macros' _ndcg_empty; ndcg's empty_ideal is for IDCG 0.
_EMPTY_IDEAL = tuple(m for m in FAMILY_METRICS if "empty_ideal" in _TAKES[m])
# What each metric may divide by (the macros' _ndcg_denominator choices), the default first.
_DENOMINATORS = {
    "recall_at_k": ("relevant", "min_k"),
    "average_precision": ("relevant", "min_k", "retrieved"),
}
# Family metrics whose value depends on the order of tied rank keys: the macros return the
# expectation over tied orders (ties='average'); this SQL does not compute it yet and raises where
# a tie group before the cut could change the value (see Builder._tie_guard). rbp, precision,
# recall, r_precision, f1_at_k and judged_at_k are linear in each row's value: the tie group's
# mean at each position is their exact expectation.
_ORDER_DEPENDENT = ("hit_rate", "reciprocal_rank", "average_precision", "err", "bpref")
# Per-row values and their tie-group means (ties='average'), as ranked_sum reads them.
_TIE_MEAN = {
    "_gain": "_gain_mean",
    "_hit": "_hit_mean",
    "_judged": "_judged_mean",
    "_unjudged": "_unjudged_mean",
}

K = int | None


@dataclass(frozen=True)
class Options:
    """Validated conventions of one statement (see to_sql)."""

    gain: str | Mapping[Real, Real]
    ties: str
    tie_key: str | None
    log_base: Real
    empty_ideal: Real | None
    clamp_k: bool
    full_ideal: bool
    threshold: Real
    negative: str
    max_grade: Real = 4
    p: Real = 0.8
    denominator: str = "relevant"


@dataclass(frozen=True)
class Columns:
    """The input's columns; `keys` are further columns that, with the query, identify one
    ranking (ranker, slice), carried under their own names into the result."""

    query: str
    item: str
    rel: str
    rnk: str
    keys: tuple[str, ...] = ()
    key_names: tuple[str, ...] = ()  # the keys' names in the result (default: the same)


def metric_names(metric: str | Sequence[str]) -> list[str]:
    names = [metric] if isinstance(metric, str) else list(metric)
    if not names:
        raise ValueError("metric must name at least one metric")
    out = []
    for name in names:
        canonical = _ALIASES.get(name, name) if isinstance(name, str) else name
        if canonical not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {name!r}")
        out.append(canonical)
    if len(set(out)) < len(out):
        raise ValueError(f"metric lists a metric twice: {names!r}")
    return out


def cutoffs(k: K | Sequence[K]) -> list[K]:
    ks = list(k) if isinstance(k, Sequence) and not isinstance(k, str) else [k]
    if not ks:
        raise ValueError("k must be a positive whole number, None, or a non-empty sequence of them")
    for value in ks:
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value <= 0
        ):
            raise ValueError(f"k must be a positive whole number or None, got {value!r}")
    if len(set(ks)) < len(ks):
        raise ValueError(f"k lists a cutoff twice: {ks!r}")
    return ks


def column_name(metric: str, k: K) -> str:
    """The result column of metric@k in multi-column statements: `ndcg_at_10`, `precision_at_5`,
    `ndcg` for k None (letters, digits and '_' only, so valid on every engine)."""
    stem = metric.removesuffix("_at_k")
    return stem if k is None else f"{stem}_at_{k}"


def _shown(value: object) -> str:
    """A value as the macros print it in their errors: NULL, or its text."""
    return "NULL" if value is None else str(value)


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def validate(metrics: list[str], opts: Options, ks: Sequence[K] = (None,)) -> None:
    """ValueError for a bad convention, or one given to metrics that do not use it. The new
    family options (max_grade, p, denominator) fail with the macros' own wording."""
    gain = opts.gain
    if isinstance(gain, Mapping):
        if not gain:
            raise ValueError("gain mapping must not be empty")
        for grade, value in gain.items():
            number(grade), number(value)
            if value < 0 and opts.negative != "zero":
                # a negative gain would let DCG exceed the ideal: the macros' rule and words
                raise ValueError(
                    f"gain map gives grade {grade} the negative gain {value} "
                    "(pass negative='zero' to count it as gain 0)"
                )
    elif gain not in ("linear", "exponential"):
        raise ValueError(
            f"gain must be 'linear', 'exponential' or a MAP from grade to gain, got {gain!r}"
        )
    if opts.ties not in ("average", "key"):
        raise ValueError(f"ties must be 'average' or 'key', got {opts.ties!r}")
    if opts.ties == "key" and not isinstance(opts.tie_key, str):
        raise ValueError("ties='key' needs tie_key=<column name>")
    if opts.ties == "average" and opts.tie_key is not None:
        raise ValueError("tie_key is used only with ties='key'")
    if isinstance(opts.log_base, bool) or not isinstance(opts.log_base, Real) or opts.log_base <= 1:
        raise ValueError(f"log_base must be a number greater than 1, got {opts.log_base!r}")
    number(opts.log_base)
    if opts.empty_ideal is not None and not _is_number(opts.empty_ideal):
        raise ValueError(
            f"empty_ideal must be a finite number or None (NULL), got {opts.empty_ideal!r}"
        )
    number(opts.threshold)
    if opts.negative not in ("error", "zero"):
        raise ValueError(f"negative must be 'error' or 'zero', got {opts.negative!r}")
    for flag in ("clamp_k", "full_ideal"):
        if not isinstance(getattr(opts, flag), bool):
            # ValueError for every bad argument, as the rest of the API (STYLE.md).
            raise ValueError(f"{flag} must be True or False, got {getattr(opts, flag)!r}")  # noqa: TRY004
    if not (_is_number(opts.max_grade) and opts.max_grade > 0):
        raise ValueError(f"max_grade must be a positive number, got {_shown(opts.max_grade)}")
    if not (_is_number(opts.p) and 0 < opts.p < 1):
        raise ValueError(f"p must be a number between 0 and 1 (exclusive), got {_shown(opts.p)}")
    for metric in [*(m for m in metrics if m in _DENOMINATORS), "average_precision"]:
        # the metric's own choices, else (no metric takes it) every choice there is
        allowed = _DENOMINATORS[metric]
        if opts.denominator not in allowed:
            got = "NULL" if opts.denominator is None else f"'{opts.denominator}'"
            quoted = [f"'{choice}'" for choice in allowed]
            choices = " or ".join(
                [", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted
            )
            raise ValueError(f"denominator must be {choices}, got {got}")
    defaults = {
        "gain": "linear",
        "log_base": 2,
        "negative": "error",
        "empty_ideal": 0.0,
        "clamp_k": False,
        "full_ideal": False,
        "threshold": 1,
        "max_grade": 4,
        "p": 0.8,
        "denominator": "relevant",
    }
    for name, default in defaults.items():
        users = [m for m in METRICS if name in _TAKES[m]]
        if getattr(opts, name) != default and not set(metrics) & set(users):
            raise ValueError(f"{name} applies only to {', '.join(users)}; metric is {metrics!r}")
    users = [m for m in METRICS if m not in _NO_TIES]
    if opts.ties != "average" and not set(metrics) & set(users):
        raise ValueError(f"ties applies only to {', '.join(users)}; metric is {metrics!r}")
    cut = [k for k in ks if k is not None]
    for metric in metrics:
        if metric in _WHOLE_RANKING and cut:
            raise ValueError(
                f"k does not apply to {metric}, which reads whole rankings, got {cut[0]}"
            )


class Builder:
    """Builds the statement for one dialect: CTEs `_source` (per-row gains and flags),
    `_positions` (positions from row_number/rank windows) and `_ties` (tie-group means, running
    counts), then one GROUP BY query_id."""

    def __init__(self, dialect: str, metrics: list[str], ks: list[K], opts: Options) -> None:
        self.dialect = dialect
        self.metrics = metrics
        self.ks = ks
        self.opts = opts
        self.gains = bool(set(metrics) & set(GAIN_METRICS))
        # the relevance flag _hit, its tie-group mean and running count: metrics with a threshold
        self.family = any("threshold" in _TAKES[m] for m in metrics)
        self.keys: tuple[str, ...] = ()  # set by build: the ranking's key columns besides _query

    # -- per-row expressions ---------------------------------------------------------------
    def _raise(
        self,
        cond: exp.Expression,
        message: exp.Expression,
        value: exp.Expression,
        type_: str = "DOUBLE",
    ) -> exp.Expression:
        return _dialects.raise_if(self.dialect, cond, message, value, type_)

    def _raiser(
        self, cond: exp.Expression, message: exp.Expression, type_: str = "DOUBLE"
    ) -> exp.Expression:
        return _dialects.raiser(self.dialect, cond, message, type_)

    def gain(self) -> exp.Expression:
        rel = col("_rel")
        opts = self.opts
        if isinstance(opts.gain, Mapping):
            ifs = [
                (eq(double(rel.copy()), double(number(g))), double(number(max(v, 0))))
                for g, v in opts.gain.items()
            ]
            unknown = exp.not_(exp.paren(exp.or_(*[c.copy() for c, _ in ifs]), copy=False))
            graded = case(
                *ifs,
                (
                    unknown,
                    self._raiser(
                        unknown, concat("duckdb_ndcg: grade not in the gain map: ", rel.copy())
                    ),
                ),
            )
        elif opts.gain == "exponential":
            graded = exp.Sub(
                this=exp.Pow(this=double(2), expression=double(rel.copy())), expression=double(1)
            )
        else:
            graded = double(rel.copy())
        negative = exp.LT(this=rel.copy(), expression=number(0))
        if opts.negative == "zero":
            below = double(0)
        else:
            below = self._raiser(
                negative.copy(),
                concat(
                    'duckdb_ndcg: negative grade (pass negative="zero" to give it gain 0): ',
                    rel.copy(),
                ),
            )
        return case(
            (exp.Is(this=rel.copy(), expression=exp.null()), double(0)),
            (negative, below),
            default=graded,
        )

    def source(self, table: exp.Expression, columns: Columns) -> exp.Select:
        """_src: the user's columns under internal names, the gain and the relevance flag."""
        returned = case(
            (exp.Is(this=col(columns.rnk), expression=exp.null()), number(0)), default=number(1)
        )
        if self.opts.ties == "key":
            # A returned row without a tie key would sort arbitrarily: the macros raise there.
            returned = case(
                (exp.Is(this=col(columns.rnk), expression=exp.null()), number(0)),
                (
                    exp.Is(this=col(self.opts.tie_key), expression=exp.null()),
                    self._raiser(
                        exp.Is(this=col(self.opts.tie_key), expression=exp.null()),
                        concat(
                            'duckdb_ndcg: ties="key" needs a non-NULL tie key; query ',
                            col(columns.query),
                        ),
                        "BIGINT",
                    ),
                ),
                default=number(1),
            )
        projections = [
            exp.alias_(col(columns.query), ident("_query")),
            *(exp.alias_(col(key), ident(key)) for key in columns.keys),
            exp.alias_(col(columns.rel), ident("_rel")),
            exp.alias_(col(columns.rnk), ident("_rnk")),
            exp.alias_(returned, ident("_returned")),
            exp.alias_(
                case(
                    (exp.Is(this=col(columns.rel), expression=exp.null()), number(0)),
                    default=number(1),
                ),
                ident("_judged"),
            ),
        ]
        if self.opts.ties == "key":
            projections.append(exp.alias_(col(self.opts.tie_key), ident("_tie_key")))
        select = exp.select(*projections).from_(table)
        inner = exp.select("*").from_(select.subquery(ident("_selected")))
        extra = []
        if self.gains:
            extra.append(exp.alias_(self.gain(), ident("_gain")))
        if self.family:
            extra.append(
                exp.alias_(
                    case(
                        (exp.Is(this=col("_rel"), expression=exp.null()), number(0)),
                        (
                            exp.GTE(this=col("_rel"), expression=number(self.opts.threshold)),
                            number(1),
                        ),
                        default=number(0),
                    ),
                    ident("_hit"),
                )
            )
        if "err" in self.metrics:
            extra.append(exp.alias_(self.stop_probability(), ident("_stop")))
        if "bpref" in self.metrics:  # judged and not relevant
            extra.append(
                exp.alias_(
                    case(
                        (exp.Is(this=col("_rel"), expression=exp.null()), number(0)),
                        (
                            exp.GTE(this=col("_rel"), expression=number(self.opts.threshold)),
                            number(0),
                        ),
                        default=number(1),
                    ),
                    ident("_nonrel"),
                )
            )
        if "rbp_residual" in self.metrics:  # unjudged
            extra.append(
                exp.alias_(exp.Sub(this=number(1), expression=col("_judged")), ident("_unjudged"))
            )
        return inner.select(*extra, append=True) if extra else inner

    def stop_probability(self) -> exp.Expression:
        """err's R = (2^grade - 1) / 2^max_grade (unjudged: 0); a grade outside 0..max_grade is
        the macro's error."""
        rel, top = col("_rel"), self.opts.max_grade
        outside = exp.or_(
            exp.LT(this=rel.copy(), expression=number(0)),
            exp.GT(this=rel.copy(), expression=number(top)),
        )
        message = f"duckdb_ndcg: err needs grades between 0 and max_grade {top}, got "
        return case(
            (exp.Is(this=rel.copy(), expression=exp.null()), double(0)),
            (outside, self._raiser(outside.copy(), concat(message, rel.copy()))),
            default=div(
                exp.Sub(
                    this=exp.Pow(this=double(2), expression=double(rel.copy())),
                    expression=double(1),
                ),
                exp.Pow(this=double(2), expression=double(number(top))),
            ),
        )

    def _order(self, column: str, desc: bool) -> exp.Ordered:
        # Every ORDER BY key is non-NULL within its partition (returned rows, judged rows), so the
        # dialect's default NULL placement is used and no NULLS FIRST/LAST is printed.
        first = _dialects.default_nulls_first(self.dialect, desc)
        return exp.Ordered(this=col(column), desc=desc, nulls_first=first)

    def _window(
        self,
        func: exp.Expression,
        partition: list[str],
        order: list[tuple[str, bool]] | None = None,
        running: bool = False,
        before: bool = False,
    ) -> exp.Window:
        """func OVER (PARTITION BY ... ORDER BY ...); `running`: the rows up to the current one,
        `before`: the rows strictly before it."""
        spec = None
        if running:
            spec = exp.WindowSpec(
                kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"
            )
        elif before:
            spec = exp.WindowSpec(
                kind="ROWS",
                start="UNBOUNDED",
                start_side="PRECEDING",
                end="1",
                end_side="PRECEDING",
            )
        return exp.Window(
            this=func,
            partition_by=[col(c) for c in partition],
            order=exp.Order(expressions=[self._order(c, d) for c, d in order]) if order else None,
            spec=spec,
        )

    def positions(self) -> exp.Select:
        """_pos: position among returned rows, tie-group start, ideal position, rows returned."""
        rank_order = [("_rnk", False)] + ([("_tie_key", True)] if self.opts.ties == "key" else [])
        q = ["_query", *self.keys]
        projections = [
            exp.alias_(
                self._window(exp.RowNumber(), [*q, "_returned"], rank_order), ident("_position")
            ),
            exp.alias_(
                self._window(exp.Rank(), [*q, "_returned"], [("_rnk", False)]),
                ident("_group_start"),
            ),
            exp.alias_(self._window(exp.Count(this=col("_rnk")), q), ident("_ranked")),
        ]
        if self.gains:
            projections.append(
                exp.alias_(
                    self._window(exp.RowNumber(), [*q, "_judged"], [("_gain", True)]),
                    ident("_ideal_position"),
                )
            )
        return exp.select("*", *projections).from_(exp.to_table(ident("_source")))

    def ties(self) -> exp.Select:
        """_tie: the mean gain/relevance of each tie group, its size, the running relevant count."""
        group = ["_query", *self.keys, "_returned", "_group_start"]
        projections = [
            exp.alias_(self._window(exp.Count(this=exp.Star()), group), ident("_group_size"))
        ]
        if self.gains:
            projections.append(
                exp.alias_(self._window(exp.Avg(this=col("_gain")), group), ident("_gain_mean"))
            )
        if self.family:
            projections.append(
                exp.alias_(
                    self._window(exp.Avg(this=double(col("_hit"))), group), ident("_hit_mean")
                )
            )
            projections.append(
                exp.alias_(
                    self._window(
                        exp.Sum(this=col("_hit")),
                        ["_query", *self.keys, "_returned"],
                        [("_position", False)],
                        running=True,
                    ),
                    ident("_hits_so_far"),
                )
            )
        query, ranked = ["_query", *self.keys], ["_query", *self.keys, "_returned"]
        if "judged_at_k" in self.metrics:
            projections.append(
                exp.alias_(
                    self._window(exp.Avg(this=double(col("_judged"))), group), ident("_judged_mean")
                )
            )
        if "rbp_residual" in self.metrics:
            projections.append(
                exp.alias_(
                    self._window(exp.Avg(this=double(col("_unjudged"))), group),
                    ident("_unjudged_mean"),
                )
            )
        if "err" in self.metrics:
            # log of the chance to reach the row: sum of ln(1 - R) over the rows before it
            survive = ln(exp.Sub(this=double(1), expression=col("_stop")))
            projections += [
                exp.alias_(
                    self._window(
                        exp.Sum(this=survive), ranked, [("_position", False)], before=True
                    ),
                    ident("_log_survival"),
                ),
                exp.alias_(self._window(exp.Min(this=col("_stop")), group), ident("_stop_min")),
                exp.alias_(self._window(exp.Max(this=col("_stop")), group), ident("_stop_max")),
            ]
        if "bpref" in self.metrics:
            projections += [
                exp.alias_(
                    self._window(
                        exp.Sum(this=col("_nonrel")), ranked, [("_position", False)], running=True
                    ),
                    ident("_nonrel_above"),
                ),
                exp.alias_(
                    self._window(exp.Avg(this=double(col("_nonrel"))), group), ident("_nonrel_mean")
                ),
                exp.alias_(
                    self._window(exp.Sum(this=col("_nonrel")), query), ident("_nonrel_total")
                ),
            ]
        if "bpref" in self.metrics or "r_precision" in self.metrics:
            projections.append(
                exp.alias_(self._window(exp.Sum(this=col("_hit")), query), ident("_hit_total"))
            )
        return exp.select("*", *projections).from_(exp.to_table(ident("_positions")))

    # -- aggregates ------------------------------------------------------------------------
    @staticmethod
    def _within(k: K, *conds: exp.Expression) -> exp.Expression:
        parts = [eq(col("_returned"), number(1))]
        if k is not None:
            parts.append(exp.LTE(this=col("_position"), expression=number(k)))
        return exp.and_(*parts, *conds)

    def _discount(self, position: str) -> exp.Expression:
        """log_base(position + 1) as LN(x) / LN(base): no engine's LOG argument order involved."""
        return div(
            ln(exp.Add(this=double(col(position)), expression=double(1))),
            ln(double(number(self.opts.log_base))),
        )

    def _sum0(self, term: exp.Expression) -> exp.Expression:
        return coalesce(exp.Sum(this=term), double(0))

    def ranked_sum(self, k: K, value: str, weight: str = "none") -> exp.Expression:
        """The weighted sum of a per-row value over the returned rows cut at k, each row's value
        its tie-group mean under ties='average' (the exact expectation over tied orders). Weight
        of position q: 'log', 1 / log_base(q + 1) (DCG); 'none', 1 (CG, hit counts);
        'geometric', (1 - p) p^(q - 1) (RBP)."""
        term = col(_TIE_MEAN[value] if self.opts.ties == "average" else value)
        if weight == "log":
            term = div(term, self._discount("_position"))
        elif weight == "geometric":
            term = exp.Mul(this=double(term), expression=self._geometric("_position"))
        else:
            term = double(term)
        return self._sum0(case((self._within(k), term)))

    def _geometric(self, position: str) -> exp.Expression:
        """(1 - p) * p^(position - 1), in DOUBLEs."""
        p = double(number(self.opts.p))
        return exp.Mul(
            this=exp.paren(exp.Sub(this=double(1), expression=p), copy=False),
            expression=exp.Pow(
                this=p.copy(),
                expression=double(exp.Sub(this=col(position), expression=number(1))),
            ),
        )

    def _returned(self, k: K) -> exp.Expression:
        """least(k, returned rows) without LEAST (its NULL rules differ by engine)."""
        returned = exp.Count(this=col("_rnk"))
        if k is None:
            return returned
        return case(
            (exp.LT(this=returned, expression=number(k)), returned.copy()), default=number(k)
        )

    def ideal(self, cut: exp.Expression | None) -> exp.Expression:
        conds = [eq(col("_judged"), number(1))]
        if cut is not None:
            conds.append(exp.LTE(this=col("_ideal_position"), expression=cut))
        return self._sum0(
            case((exp.and_(*conds), div(col("_gain"), self._discount("_ideal_position"))))
        )

    def ndcg_cut(self, k: K) -> exp.Expression | None:
        opts = self.opts
        if k is not None and opts.clamp_k:
            return case(
                (exp.LT(this=col("_ranked"), expression=number(k)), col("_ranked")),
                default=number(k),
            )
        if k is not None:
            return number(k)
        return None if opts.full_ideal else col("_ranked")

    def _order_matters(self, metric: str, k: K) -> exp.Expression:
        """Whether a returned row's tie group could change `metric` by its order: the group
        starts at a position <= k and mixes relevant with other rows (hit_rate: and straddles k,
        else the same rows are found), rows of different grades (err), or relevant with judged
        non-relevant rows (bpref; unjudged rows are skipped)."""
        if metric == "err":
            conds = [exp.LT(this=col("_stop_min"), expression=col("_stop_max"))]
        elif metric == "bpref":
            conds = [
                exp.GT(this=col("_hit_mean"), expression=number(0)),
                exp.GT(this=col("_nonrel_mean"), expression=number(0)),
            ]
        else:
            conds = [
                exp.GT(this=col("_hit_mean"), expression=number(0)),
                exp.LT(this=col("_hit_mean"), expression=number(1)),
            ]
        if k is not None:
            conds.append(exp.LTE(this=col("_group_start"), expression=number(k)))
            if metric == "hit_rate":
                last = exp.Sub(
                    this=exp.Add(this=col("_group_start"), expression=col("_group_size")),
                    expression=number(1),
                )
                conds.append(exp.GT(this=last, expression=number(k)))
        elif metric == "hit_rate":
            return exp.false()
        return exp.and_(eq(col("_returned"), number(1)), *conds)

    def _tie_guard(self, metric: str, k: K, value: exp.Expression) -> exp.Expression:
        """An error for order-dependent metrics when a tie group whose order could change the
        value starts within the first k returned rows: the macros return the expectation over
        tied orders there, which this portable SQL does not compute yet."""
        if self.opts.ties == "key" or metric not in _ORDER_DEPENDENT:
            return value
        matters = self._order_matters(metric, k)
        if isinstance(matters, exp.Boolean):
            return value
        flag = exp.Max(this=case((matters, number(1)), default=number(0)))
        message = concat(
            f"duckdb_ndcg: {metric} depends on the order of tied rank keys; pass "
            'ties="key", tie_key=<item column>; query ',
            col("_query"),
        )
        return self._raise(eq(flag, number(1)), message, value)

    def _denominator(self, k: K) -> exp.Expression:
        """What recall_at_k and average_precision divide by: every relevant judged row,
        least(relevant, k) ('min_k'), or the relevant rows among the first k ('retrieved')."""
        relevant = exp.Sum(this=col("_hit"))
        if self.opts.denominator == "min_k" and k is not None:
            return case(
                (exp.LT(this=relevant, expression=number(k)), relevant.copy()), default=number(k)
            )
        if self.opts.denominator == "retrieved":
            return self.ranked_sum(k, "_hit")
        return relevant

    def metric(self, metric: str, k: K) -> exp.Expression:
        opts = self.opts
        if metric == "dcg":
            return self.ranked_sum(k, "_gain", "log")
        if metric == "cg":
            return self.ranked_sum(k, "_gain")
        if metric == "idcg":
            return self.ideal(None if k is None else number(k))
        if metric == "ndcg":
            return coalesce(
                div(
                    self.ranked_sum(k, "_gain", "log"),
                    nullif(self.ideal(self.ndcg_cut(k)), double(0)),
                ),
                self._empty_ideal(),
            )
        relevant = exp.Sum(this=col("_hit"))
        hit = eq(col("_hit"), number(1))
        if metric == "precision_at_k":
            denominator = number(k) if k is not None else exp.Count(this=col("_rnk"))
            value = div(self.ranked_sum(k, "_hit"), nullif(denominator, number(0)))
        elif metric == "recall_at_k":
            value = div(self.ranked_sum(k, "_hit"), nullif(self._denominator(k), number(0)))
        elif metric == "hit_rate":
            found = exp.Max(this=case((self._within(k, hit), number(1)), default=number(0)))
            value = case((eq(found, number(1)), double(1)), default=double(0))
        elif metric == "reciprocal_rank":
            value = div(double(1), exp.Min(this=case((self._within(k, hit), col("_position")))))
        elif metric == "average_precision":
            value = div(
                exp.Sum(
                    this=case(
                        (self._within(k, hit), div(double(col("_hits_so_far")), col("_position")))
                    )
                ),
                nullif(self._denominator(k), number(0)),
            )
        elif metric == "r_precision":  # relevant rows among the first R, R = relevant rows
            within_r = exp.LTE(this=col("_position"), expression=col("_hit_total"))
            term = double(col("_hit_mean" if opts.ties == "average" else "_hit"))
            value = div(
                self._sum0(case((self._within(None, within_r), term))), nullif(relevant, number(0))
            )
        elif metric == "f1_at_k":  # 2 hits / (k + relevant)
            size = number(k) if k is not None else exp.Count(this=col("_rnk"))
            value = div(
                exp.Mul(this=double(2), expression=self.ranked_sum(k, "_hit")),
                nullif(exp.Add(this=size, expression=relevant), number(0)),
            )
        elif metric == "bpref":
            value = div(
                self._sum0(case((self._within(None, hit), self._bpref_term()))),
                nullif(relevant, number(0)),
            )
        elif metric == "err":  # sum over q of R_q / q * prod_{i < q} (1 - R_i)
            reach = exp.Exp(this=coalesce(col("_log_survival"), double(0)))
            term = exp.Mul(
                this=div(double(col("_stop")), double(col("_position"))), expression=reach
            )
            value = self._sum0(case((self._within(k), term)))
        elif metric == "rbp":
            value = self.ranked_sum(k, "_hit", "geometric")
        elif metric == "rbp_residual":  # unjudged rows' weight, plus p^m after the m rows read
            rest = exp.Pow(this=double(number(opts.p)), expression=double(self._returned(k)))
            value = exp.Add(this=self.ranked_sum(k, "_unjudged", "geometric"), expression=rest)
        elif metric == "judged_at_k":
            value = div(self.ranked_sum(k, "_judged"), nullif(self._returned(k), number(0)))
        else:  # a metric of METRICS without a branch here: an error, never another's SQL
            raise NotImplementedError(f"portable SQL has no formula for metric {metric!r}")
        value = coalesce(value, double(0))
        if metric in _EMPTY_IDEAL:
            # the macros' _ndcg_empty: no relevant judged row (returned or not) -> empty_ideal;
            # else the value, 0.0 where its own denominator is 0 (AP 'retrieved', nothing found)
            nothing = eq(coalesce(exp.Sum(this=col("_hit")), number(0)), number(0))
            value = case((nothing, self._empty_ideal()), default=value)
        return self._tie_guard(metric, k, value)

    def _empty_ideal(self) -> exp.Expression:
        empty = self.opts.empty_ideal
        return null_double() if empty is None else double(number(empty))

    def _bpref_term(self) -> exp.Expression:
        """A relevant returned row's 1 - min(y, R) / min(N, R), y the judged non-relevant rows
        above it, R and N the query's relevant and judged non-relevant rows (1 when y = 0)."""

        def least(a: str, b: str) -> exp.Expression:
            return case((exp.LT(this=col(a), expression=col(b)), col(a)), default=col(b))

        share = div(
            double(least("_nonrel_above", "_hit_total")),
            nullif(least("_nonrel_total", "_hit_total"), number(0)),
        )
        return case(
            (eq(col("_nonrel_above"), number(0)), double(1)),
            default=exp.Sub(this=double(1), expression=share),
        )

    def parts(
        self,
        table: exp.Expression,
        columns: Columns,
        before: Sequence[tuple[str, exp.Select]] = (),
        labels: bool = False,
    ) -> tuple[list[tuple[str, exp.Select]], exp.Select]:
        """The CTEs (name, body) and the final per-ranking SELECT (query_id, the key columns,
        one column per metric and cutoff), for callers that add CTEs of their own."""
        self.keys = columns.keys
        outputs = [exp.alias_(col("_query"), ident("query_id"))]
        outputs += [
            exp.alias_(col(key), ident(name))
            for key, name in zip(columns.keys, columns.key_names or columns.keys, strict=True)
        ]
        for metric in self.metrics:
            for k in self.ks:
                name = column_name(metric, k) if labels else metric
                outputs.append(exp.alias_(self.metric(metric, k), ident(name)))
        ctes = [
            *before,
            ("_source", self.source(table, columns)),
            ("_positions", self.positions()),
            ("_ties", self.ties()),
        ]
        final = exp.select(*outputs).from_(exp.to_table(ident("_ties")))
        return ctes, final.group_by(col("_query"), *(col(key) for key in columns.keys))

    def build(
        self,
        table: exp.Expression,
        columns: Columns,
        before: Sequence[tuple[str, exp.Select]] = (),
        labels: bool = False,
    ) -> exp.Select:
        ctes, query = self.parts(table, columns, before, labels)
        for name, body in ctes:
            query = query.with_(ident(name), as_=body, copy=False)  # no copy per CTE: quadratic
        return query


def table_expression(table: str | Sequence[str]) -> exp.Table:
    """A quoted table reference: 'name', 'schema.name' (split at dots) or ('db', 'schema', 'name')."""
    parts = table.split(".") if isinstance(table, str) else list(table)
    if not parts or not all(isinstance(p, str) and p for p in parts) or len(parts) > 3:
        raise ValueError(
            f"table must be a name, 'schema.name', or a tuple of 1-3 names, got {table!r}"
        )
    names = [ident(p) for p in parts]
    return exp.Table(
        this=names[-1],
        db=names[-2] if len(names) > 1 else None,
        catalog=names[-3] if len(names) > 2 else None,
    )


def check_functions(
    query: exp.Expression, dialect: str, allowed: Iterable[str] = ()
) -> None:
    """ValueError when the tree holds a function sqlglot would print unchecked for the dialect
    (`allowed`: more such functions the caller wrote for this dialect)."""
    allowed = _dialects.ALLOWED_ANONYMOUS[dialect] | {name.lower() for name in allowed}
    for node in query.find_all(exp.Anonymous):
        if node.name.lower() not in allowed:
            raise ValueError(f"dialect {dialect!r} has no function {node.name!r}")
