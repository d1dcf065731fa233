"""Every public macro's parameters, declared once: name, default, allowed values, error wording.

This table is the reference the rest of the package is checked against
(``tests/core/test_conventions_table.py``): the ``.sql`` signatures and their header comments, the
errors the macros raise for a bad enumerated value, the defaults of ``evaluate``, ``compare`` and
the portable ``to_sql`` family, the CLI's choices and the README. It holds data only; the layers
keep their own code, and a test fails when one of them and this table disagree.

Example::

    from duckdb_ndcg.conventions import MACROS
    ties = MACROS["ndcg"].param("ties")
    ties.default                  # "'average'" (SQL text, as in the signature)
    ties.choices                  # ('average', 'key')
    ties.error("'first'")         # "ties must be 'average' or 'key', got 'first'"
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """One parameter: ``default`` is SQL text as the signature writes it (None: positional,
    required); ``choices`` the allowed values of an enumerated option, in the order errors list
    them; ``also`` a further, non-enumerated alternative the error names; ``many``: the value is a
    list of choices."""

    name: str
    default: str | None = None
    choices: tuple[str, ...] = ()
    also: str = ""
    many: bool = False

    def error(self, got: str) -> str:
        """The canonical error for a bad value, ``got`` as the SQL prints it (``'x'``, NULL)."""
        if self.many:
            return f"{self.name} must name some of {', '.join(self.choices)}, got {got}"
        alternatives = [f"'{c}'" for c in self.choices] + ([self.also] if self.also else [])
        listed = ", ".join(alternatives[:-1]) + " or " + alternatives[-1]
        return f"{self.name} must be {listed}, got {got}"


@dataclass(frozen=True)
class Macro:
    """One public macro: its parameters in signature order, and its kind (README grouping).
    ``measures``: the macro that scores its overload taking ``measures`` (``ndcg_report(...,
    measures := 'nDCG@10')`` is ``event_measures``' rows), whose parameters are these with
    ``measures`` and ``grammar`` after the required ones (``overload``)."""

    name: str
    kind: str  # aggregate, measure, list, scalar, table, report, stats, stats_table
    params: tuple[Param, ...]
    measures: str | None = None
    preset: bool = False  # a third signature, with ``preset`` after the required parameters

    def param(self, name: str) -> Param:
        return next(p for p in self.overload if p.name == name)

    @property
    def preset_overload(self) -> tuple[Param, ...]:
        """The preset overload's parameters (``ndcg_report(..., preset := 'sklearn')``): these
        with ``preset`` after the required ones."""
        required = sum(p.default is None for p in self.params)
        return (*self.params[:required], Param("preset"), *self.params[required:])

    @property
    def overload(self) -> tuple[Param, ...]:
        """The measures overload's parameters (``params`` when the macro has none)."""
        if self.measures is None:
            return self.params
        required = sum(p.default is None for p in self.params)
        return (*self.params[:required], Param("measures"), default("grammar", "NULL"),
                *self.params[required:])


def required(*names: str) -> tuple[Param, ...]:
    return tuple(Param(n) for n in names)


def default(name: str, sql: str) -> Param:
    return Param(name, sql)


# --- the options of the metrics (aggregates, list forms, measures) ---
K = default("k", "NULL")
TIES = Param("ties", "'average'", ("average", "key"))
TIE_KEY = default("tie_key", "NULL")
ORDER = (TIES, TIE_KEY)
GAIN = Param("gain", "'linear'", ("linear", "exponential"), also="a MAP from grade to gain")
LOG_BASE = default("log_base", "2")
NEGATIVE = Param("negative", "'error'", ("error", "zero"))
EMPTY_IDEAL = default("empty_ideal", "0.0")
CLAMP_K = default("clamp_k", "false")
FULL_IDEAL = default("full_ideal", "false")
THRESHOLD = default("threshold", "1")
P = default("p", "0.8")
RECALL_DENOMINATOR = Param("denominator", "'relevant'", ("relevant", "min_k"))
AP_DENOMINATOR = Param("denominator", "'relevant'", ("relevant", "min_k", "retrieved"))
NDCG_OPTIONS = (GAIN, TIES, TIE_KEY, LOG_BASE, EMPTY_IDEAL, CLAMP_K, FULL_IDEAL, NEGATIVE)
FAMILY = (K, THRESHOLD, *ORDER)  # precision_at_k and the mean_* family measures

# --- the report family: ndcg_report's options, shared by every report macro ---
QUERY_COL = default("query_col", "'query_id'")
ITEM_COL = default("item_col", "'item_id'")
K_REPORT = default("k", "10")
SLICE_BY = default("slice_by", "[]::VARCHAR[]")
DUPLICATES = Param("duplicates", "'error'", ("error", "allow"))
COLLAPSE = Param("collapse", "'max'", ("max", "sum", "last"))
UNKNOWN = Param("unknown", "'error'", ("error", "ignore"))
EVENT_OPTIONS = (  # event_relevance's: events -> grades
    default("event_col", "'event_type'"),
    default("mapping", "NULL"),
    COLLAPSE,
    default("time_col", "NULL"),
    UNKNOWN,
)
# the report family's gain: also 'value', each event's value (value_col) as its grade, linear
REPORT_GAIN = Param("gain", "'linear'", ("linear", "exponential"),
                    also="a MAP from grade to gain, or 'value' (the events' value_col as the grade)")
# grades from a value column of the events (revenue, dwell seconds): event_relevance, ndcg_report,
# ndcg_summary
VALUE_OPTIONS = (default("value_col", "'value'"), default("value_grades", "NULL"))
# time: the rankings' queries within [start, stop), per bucket (ndcg_report, ndcg_summary); bucket
# is 'day', 'week' or an INTERVAL, so it is not enumerated
TIME_OPTIONS = (default("bucket", "NULL"), default("start", "NULL"), default("stop", "NULL"),
                default("rankings_time_col", "'shown_at'"))
REPORT_OPTIONS = (
    QUERY_COL,
    ITEM_COL,
    default("position_col", "'position'"),
    default("score_col", "NULL"),
    TIES,
    REPORT_GAIN,
    LOG_BASE,
    EMPTY_IDEAL,
    DUPLICATES,
    *EVENT_OPTIONS,
)
# the judge's (judged_run, event_measures): the report's keys and order; gain only as it
# changes grades (the measures name their gains)
JUDGE_OPTIONS = (
    QUERY_COL,
    ITEM_COL,
    default("position_col", "'position'"),
    default("score_col", "NULL"),
    TIES,
    Param("gain", "'linear'", ("linear", "value")),
)
# ndcg_report's family metrics (each column named like its aggregate) and their two settings;
# max_grade is 'mapping' (the mapping's largest grade) or a number, so it is not enumerated
REPORT_METRICS = Param(
    "metrics",
    "['ndcg']",
    ("ndcg", "precision_at_k", "recall_at_k", "f1_at_k", "hit_rate", "reciprocal_rank",
     "average_precision", "r_precision", "err", "rbp", "judged_at_k"),
    many=True,
)
REPORT_METRIC_OPTIONS = (REPORT_METRICS, THRESHOLD, default("max_grade", "'mapping'"))
CONF = default("conf", "0.95")
SHIFT = default("shift", "NULL")  # the t-tests: NULL centres on the mean (a list), a number streams
ALPHA = default("alpha", "0.05")
TEST = Param("test", "'t'", ("t", "wilcoxon", "sign", "randomization"))
CORRECTION = Param("correction", "'holm'", ("holm", "bonferroni", "bh", "none"))
QUERY_SET = Param("query_set", "'both'", ("both", "either", "a", "b"))
MISSING = Param("missing", "'zero'", ("zero", "error"))
PAIRING = (QUERY_SET, MISSING)  # compare_rankers' choice of queries
RESAMPLING = (default("resamples", "10000"), default("seed", "42"))
# --- click logs: click_grades, position_bias (sql/clicks/) ---
CLICK_LOG_OPTIONS = (  # the columns of an impression/click log and the rows read
    QUERY_COL, ITEM_COL, default("position_col", "'position'"), default("session_col", "NULL"),
    default("click_col", "'click'"), default("action_col", "NULL"), default("time_col", "NULL"),
    default("start_date", "NULL"), default("end_date", "NULL"), default("max_rank", "20"),
)
IPS_INTERVAL = (Param("ci", "'none'", ("none", "bootstrap")), CONF,
                default("resamples", "2000"), default("seed", "42"))  # bootstrap_ci's
CLICK_MODEL = Param("model", "'coec'",
                    ("coec", "ctr", "dctr", "cascade", "sdbn", "pbm", "dbn"))

# --- the source adapters: a vendor's export -> the contract's rankings and events tables ---
ATTRIBUTION = Param("attribution", "'last'", ("last", "first"))
POSITION_BASE = Param("position_base", "'auto'", ("auto",), also="0 or 1")
GA4_SHOWN = (POSITION_BASE, default("list_name", "NULL"))
GA4_OPTIONS = (ATTRIBUTION, default("attribution_window", "NULL"), default("event_types", "NULL"),
               *GA4_SHOWN)
UBI_OPTIONS = (POSITION_BASE, default("event_types", "NULL"))
SEGMENT_SHOWN = (POSITION_BASE, default("list_id", "NULL"))
SEGMENT_OPTIONS = (ATTRIBUTION, default("attribution_window", "NULL"),
                   default("event_types", "NULL"), *SEGMENT_SHOWN)

# One macro a line or two, as a table reads (ruff format would give each parameter its own line).
# fmt: off
_TABLE = (
    # aggregates: one row per (query, item), GROUP BY the query
    Macro("ndcg", "aggregate", (*required("rel", "rnk"), K, *NDCG_OPTIONS)),
    Macro("dcg", "aggregate", (*required("rel", "rnk"), K, GAIN, *ORDER, LOG_BASE, NEGATIVE)),
    Macro("idcg", "aggregate", (*required("rel"), K, GAIN, LOG_BASE, NEGATIVE)),
    Macro("cg", "aggregate", (*required("rel", "rnk"), K, GAIN, *ORDER, NEGATIVE)),
    Macro("precision_at_k", "aggregate", (*required("rel", "rnk"), *FAMILY)),
    Macro("recall_at_k", "aggregate",
          (*required("rel", "rnk"), *FAMILY, RECALL_DENOMINATOR, EMPTY_IDEAL)),
    Macro("hit_rate", "aggregate", (*required("rel", "rnk"), *FAMILY, EMPTY_IDEAL)),
    Macro("reciprocal_rank", "aggregate", (*required("rel", "rnk"), *FAMILY, EMPTY_IDEAL)),
    Macro("average_precision", "aggregate",
          (*required("rel", "rnk"), *FAMILY, AP_DENOMINATOR, EMPTY_IDEAL)),
    Macro("r_precision", "aggregate", (*required("rel", "rnk"), THRESHOLD, *ORDER, EMPTY_IDEAL)),
    Macro("f1_at_k", "aggregate", (*required("rel", "rnk"), *FAMILY, EMPTY_IDEAL)),
    Macro("bpref", "aggregate", (*required("rel", "rnk"), THRESHOLD, *ORDER, EMPTY_IDEAL)),
    Macro("judged_at_k", "aggregate", (*required("rel", "rnk"), K, *ORDER)),
    Macro("rbp", "aggregate", (*required("rel", "rnk"), P, *FAMILY)),
    Macro("rbp_residual", "aggregate", (*required("rel", "rnk"), P, K, *ORDER)),
    Macro("err", "aggregate", (*required("rel", "rnk"), K, default("max_grade", "4"), *ORDER)),
    # BI-safe measures: the mean over the group's queries of the metric per query_id
    Macro("mean_ndcg", "measure",
          (*required("query_id", "rel", "rnk"), default("k", "10"), *NDCG_OPTIONS)),
    *(Macro(f"mean_{m}", "measure", (*required("query_id", "rel", "rnk"), *FAMILY))
      for m in ("precision_at_k", "recall_at_k", "hit_rate", "reciprocal_rank",
                "average_precision")),
    # list forms: a ranked list of grades; one item's term
    Macro("list_ndcg", "list", (*required("rels"), K, default("ideal", "NULL"), GAIN, LOG_BASE,
                                EMPTY_IDEAL, CLAMP_K, FULL_IDEAL, NEGATIVE)),
    Macro("list_dcg", "list", (*required("rels"), K, GAIN, LOG_BASE, NEGATIVE)),
    Macro("list_idcg", "list", (*required("rels"), K, GAIN, LOG_BASE, NEGATIVE)),
    Macro("list_cg", "list", (*required("rels"), K, GAIN, NEGATIVE)),
    Macro("discounted_gain", "scalar", (*required("rel", "rnk"), GAIN, LOG_BASE, NEGATIVE)),
    # table macros over a judged run or TREC files
    Macro("ndcg_curve", "table", (*required("tbl"), default("max_k", "10"), GAIN, LOG_BASE,
                                  QUERY_COL, default("rel_col", "'rel'"),
                                  default("rnk_col", "'rnk'"))),
    Macro("read_qrels", "table", required("path")),
    Macro("read_trec_run", "table", required("path")),
    Macro("run_report", "table", (
        *required("tbl"), default("k", "[5, 10]"),
        Param("metrics", "['ndcg']",
              ("ndcg", "dcg", "idcg", "cg", "precision_at_k", "recall_at_k"), many=True),
        QUERY_COL, ITEM_COL, default("rel_col", "'rel'"), default("rnk_col", "'rnk'"), TIES,
        GAIN, LOG_BASE, EMPTY_IDEAL, FULL_IDEAL, THRESHOLD), measures="measures_report"),
    # measure strings (ir_measures, trec_eval, ranx) read and scored in SQL; grammar NULL (any
    # grammar) is a value, so it is not an enumerated option here: parse_measures names its choices
    Macro("parse_measures", "table", (*required("text"), default("grammar", "NULL"))),
    *(Macro(name, "table", (*required("tbl", "measures"), default("grammar", "NULL"), QUERY_COL,
                            ITEM_COL, default("rel_col", "'rel'"), default("rnk_col", "'rnk'")))
      for name in ("measures_report", "measures_summary")),
    # the report family (event logs)
    Macro("event_relevance", "report", (*required("events"), QUERY_COL, ITEM_COL,
                                        *EVENT_OPTIONS, *VALUE_OPTIONS)),
    Macro("event_match", "report", (*required("rankings", "events"), QUERY_COL, ITEM_COL,
                                    *EVENT_OPTIONS[:2], default("sample", "10000"))),
    Macro("ndcg_report", "report", (*required("rankings", "events"), K_REPORT, SLICE_BY,
                                    *REPORT_OPTIONS, *REPORT_METRIC_OPTIONS, *VALUE_OPTIONS,
                                    *TIME_OPTIONS), measures="event_measures", preset=True),
    Macro("ndcg_summary", "report", (*required("rankings", "events"), K_REPORT, SLICE_BY,
                                     *REPORT_OPTIONS, CONF, *REPORT_METRIC_OPTIONS,
                                     *VALUE_OPTIONS, *TIME_OPTIONS),
          measures="event_measures_summary", preset=True),
    # the judge and the measures of event logs: judged_run gives what every measure scores
    Macro("judged_run", "report", (*required("rankings", "events"), SLICE_BY, *JUDGE_OPTIONS,
                                   DUPLICATES, *EVENT_OPTIONS, *VALUE_OPTIONS, *TIME_OPTIONS)),
    *(Macro(name, "report", (*required("rankings", "events", "measures"),
                             default("grammar", "NULL"), SLICE_BY, *JUDGE_OPTIONS,
                             *EVENT_OPTIONS, *VALUE_OPTIONS, *TIME_OPTIONS))
      for name in ("event_measures", "event_measures_summary")),
    Macro("compare_rankers", "report", (*required("rankings_a", "rankings_b", "events"),
                                        K_REPORT, SLICE_BY, *PAIRING, *REPORT_OPTIONS)),
    Macro("compare_summary", "report", (*required("rankings_a", "rankings_b", "events"),
                                        K_REPORT, SLICE_BY, TEST, CONF, CORRECTION, ALPHA,
                                        *PAIRING, default("eps", "0.0"), *RESAMPLING,
                                        *REPORT_OPTIONS), measures="compare_measures"),
    Macro("compare_measures", "report", (*required("rankings_a", "rankings_b", "events",
                                                   "measures"),
                                         default("grammar", "NULL"), SLICE_BY, TEST, CONF,
                                         CORRECTION, ALPHA, default("eps", "0.0"), *RESAMPLING,
                                         *JUDGE_OPTIONS, *EVENT_OPTIONS, *VALUE_OPTIONS,
                                         *TIME_OPTIONS)),
    Macro("ab_summary", "report", (*required("rankings", "events", "arm_col"), K_REPORT,
                                   default("baseline", "NULL"), SLICE_BY, CONF, CORRECTION,
                                   ALPHA, *REPORT_OPTIONS)),
    # source adapters: a vendor's raw export as the report family's rankings and events
    Macro("ga4_rankings", "table", (*required("tbl"), *GA4_SHOWN)),
    Macro("ga4_events", "table", (*required("tbl"), *GA4_OPTIONS)),
    Macro("ga4_unattributed", "table", (*required("tbl"), *GA4_OPTIONS)),
    *(Macro(f"ubi_{m}", "table", (*required("queries_tbl", "events_tbl"), *UBI_OPTIONS))
      for m in ("rankings", "events", "unattributed")),
    Macro("algolia_rankings", "table", required("responses_tbl")),
    Macro("segment_rankings", "table", (*required("tbl"), *SEGMENT_SHOWN)),
    *(Macro(f"segment_{m}", "table", (*required("tbl"), *SEGMENT_OPTIONS))
      for m in ("events", "unattributed")),
    *(Macro(f"algolia_{m}", "table", (*required("responses_tbl", "events_tbl"),
                                      default("event_types", "NULL")))
      for m in ("events", "unattributed")),
    Macro("snowplow_rankings", "table", (*required("tbl"), *GA4_SHOWN)),
    *(Macro(f"snowplow_{m}", "table", (*required("tbl"), *GA4_OPTIONS))
      for m in ("events", "unattributed")),
    # click logs: grades and position bias from impressions and clicks
    Macro("click_grades", "table", (*required("events_tbl"), CLICK_MODEL, *CLICK_LOG_OPTIONS,
                                    default("bins", "NULL"), default("min_impressions", "0"))),
    Macro("position_bias", "table", (
        *required("events_tbl"),
        Param("method", "'ctr_ratio'", ("ctr_ratio", "pivot", "adjacent_chain", "pbm")),
        *CLICK_LOG_OPTIONS)),
    Macro("ips_estimate", "table", (
        *required("logs_tbl", "policy_tbl"),
        Param("estimator", "'ips'", ("ips", "snips", "clipped")), default("clip", "NULL"),
        ITEM_COL, default("position_col", "'position'"), default("click_col", "'click'"),
        default("propensity_col", "'propensity_score'"),
        default("probability_col", "'probability'"), default("query_col", "NULL"),
        *IPS_INTERVAL)),
    Macro("slate_estimate", "table", (
        *required("logs_tbl"),
        Param("estimator", "'sips'", ("sips", "iips", "rips", "snsips", "sniips", "snrips")),
        default("slate_col", "'slate_id'"), default("position_col", "'position'"),
        default("reward_col", "'click'"), default("propensity_col", "'propensity_score'"),
        default("evaluation_col", "'evaluation_propensity'"), *IPS_INTERVAL)),
    Macro("ips_ndcg", "table", (
        *required("logs_tbl", "ranking_tbl"), default("k", "10"),
        default("propensity", "'power'"), default("eta", "1.0"), QUERY_COL, ITEM_COL,
        default("position_col", "'position'"), default("session_col", "'session_id'"),
        default("click_col", "'click'"), default("rnk_col", "'rnk'"))),
    # statistics: aggregates over per-query values (b = ranker B, a = ranker A), and p_adjust
    Macro("paired_ttest", "stats", (*required("b", "a"), CONF, SHIFT)),
    Macro("welch_ttest", "stats", (*required("value", "is_b"), CONF, SHIFT)),
    Macro("wilcoxon_test", "stats", required("b", "a")),
    Macro("sign_test", "stats", required("b", "a")),
    Macro("randomization_test", "stats", (*required("b", "a"), *RESAMPLING)),
    Macro("bootstrap_ci", "stats", (*required("b", "a"), CONF, default("resamples", "2000"),
                                    default("seed", "42"))),
    Macro("win_tie_loss", "stats", (*required("b", "a"), default("eps", "0.0"))),
    Macro("p_adjust", "stats_table", (
        *required("tbl"), default("p_col", "'p_value'"),
        Param("method", "'holm'", ("holm", "bonferroni", "bh")), default("by", "[]::VARCHAR[]"),
        default("alpha", "0.05"))),
)
# fmt: on
MACROS: dict[str, Macro] = {m.name: m for m in _TABLE}

# --- the Python API: each function and the macros whose parameters it passes on ---
AGGREGATES = tuple(m.name for m in _TABLE if m.kind == "aggregate")
PYTHON_API = {
    "evaluate": ("ndcg_report", "ndcg_summary"),
    "compare": ("compare_summary",),
    "to_sql": AGGREGATES,  # the portable SQL of every aggregate
    "events_to_sql": ("ndcg_report",),
    "compare_to_sql": ("compare_summary",),
    "click_grades": ("click_grades",),
    "click_grades_to_sql": ("click_grades",),
    "position_bias": ("position_bias",),
    "ips_estimate": ("ips_estimate",),
    "slate_estimate": ("slate_estimate",),
    "ips_ndcg": ("ips_ndcg",),
    "ips_estimate_to_sql": ("ips_estimate",),
    "slate_estimate_to_sql": ("slate_estimate",),
    "ips_ndcg_to_sql": ("ips_ndcg",),
}

# --- the portable SQL (duckdb_ndcg.portable): the metrics it writes, the event grades it assumes
# (here, not there, so that the CLI's help needs no sqlglot: importing it costs 0.7 s a process)
GAIN_METRICS = ("ndcg", "dcg", "idcg", "cg")
FAMILY_METRICS = (
    "precision_at_k",
    "recall_at_k",
    "hit_rate",
    "reciprocal_rank",
    "average_precision",
    "r_precision",
    "f1_at_k",
    "bpref",
    "err",
    "rbp",
    "rbp_residual",
    "judged_at_k",
)
PORTABLE_METRICS = GAIN_METRICS + FAMILY_METRICS
# The grade of each event type: the strongest event of a (query, item) pair is its relevance.
DEFAULT_EVENT_GRADES: dict[str, int] = {
    "impression": 0,
    "view": 0,
    "click": 1,
    "add_to_cart": 2,
    "cart": 2,
    "purchase": 3,
}

# --- the CLI: each subcommand and the macro whose options its flags set ---
CLI_COMMANDS = {"evaluate": "ndcg_report", "compare": "compare_summary", "sql": "ndcg",
                "grades": "click_grades", "ips": "ips_estimate"}
# Intended differences from a plain ``--<name-with-dashes> VALUE`` flag:
# an option whose only other value is a switch (the flag sets that value; absent: the default)
CLI_SWITCHES = {
    "unknown": ("--ignore-unknown", "ignore"),
    "duplicates": ("--allow-duplicates", "allow"),
}
# options given as comma-separated text: ``--k 5,10`` is ``k := [5, 10]``, ``--k``'s default
# ``[10]`` is ``k := 10``; ``--slice-by ''`` is ``slice_by := []``; ``--metrics ndcg,err`` is
# ``metrics := ['ndcg', 'err']`` (absent: the macro's default)
CLI_LISTS = ("k", "slice_by", "metrics")


def cli_flag(name: str) -> str:
    """The CLI flag of a parameter: ``query_col`` is ``--query-col``."""
    return CLI_SWITCHES[name][0] if name in CLI_SWITCHES else "--" + name.replace("_", "-")


def enumerated() -> dict[str, tuple[str, ...]]:
    """Every enumerated option's allowed values, by name (denominator: the widest set)."""
    found: dict[str, tuple[str, ...]] = {}
    for m in _TABLE:
        for p in m.params:
            if p.choices and len(p.choices) > len(found.get(p.name, ())):
                found[p.name] = p.choices
    return found


# --- presets: each tool's conventions as one row of data (duckdb_ndcg.presets applies them) ---
@dataclass(frozen=True)
class Preset:
    """One tool's conventions. ``ties``: 'key' (equal scores ordered by item id descending,
    trec_eval's qsort), 'average' (equal scores share their positions' discounts: the mean over
    their orders) or 'position' (the tool's own order, e.g. input order, which a score cannot tell:
    give the rank). ``queries``: 'judged_and_run', 'judged' (a judged query not run scores 0),
    'ranked' (the ranked lists given) or 'judged_or_ranked' (every query judged or run, 0 without
    hits or without a judgment). ``gain``: 'linear' (the grade) or 'exponential'
    (2^grade - 1). ``ideal``: 'judged' (every judged item of the query), 'ranked' (the ranked
    items' own grades) or 'judged_cut_returned' (the judged items' best, as many as the list
    returned). ``empty_ideal``: NDCG of a query with no relevant item. ``rbp_p``: RBP's p
    without one given (None: the tool needs it). ``precision``: P@k divides by 'k' or by
    'min_k_returned'. ``threshold``: the least relevant grade, a number or 'srw_dynamic' (max(0.5
    x the highest grade, the 90th percentile of grades)). ``rounding``: decimals of the tool's
    output (None: none). ``surfaces``: where this package applies it ('trec': ``duckdb-ndcg
    trec``; 'evaluate': ``evaluate``); empty: recorded, not applied. ``source``: where each
    value comes from."""

    name: str
    ties: str
    queries: str
    gain: str
    ideal: str
    empty_ideal: float
    rbp_p: float | None
    precision: str
    threshold: str
    rounding: int | None
    surfaces: tuple[str, ...]
    source: str


# fmt: off
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("trec_eval", "key", "judged_and_run", "linear", "judged", 0.0, 0.9, "k", "1", None,
           ("trec",),
           "trec_eval 10: form_res_rels.c (score descending, docno descending), trec_eval.c "
           "(queries judged and run; -c for all judged), m_ndcg.c (gain = grade, ideal over "
           "every judged document), m_rbp.c (p = 0.9), m_P.c (divides by k)"),
    Preset("trec_eval_c", "key", "judged", "linear", "judged", 0.0, 0.9, "k", "1", None,
           ("trec",), "trec_eval 10 with -c (trec_eval.c: every judged query, 0 when not run)"),
    Preset("ir_measures", "key", "judged", "linear", "judged", 0.0, 0.8, "k", "1", None,
           ("trec",),
           "ir_measures 0.4.3 on pytrec_eval (trec_eval's order and formulas); calc_aggregate "
           "averages over the qrels' queries, a judged query not run 0 (checked); RBP p = 0.8 "
           "(measures/rbp.py)"),
    Preset("ranx", "key", "judged", "linear", "judged", 0.0, None, "k", "1", None, ("trec",),
           "ranx 0.3.21: evaluate(make_comparable=True) scores a judged query not run 0; ndcg's "
           "gain is the grade (ndcg_burges: 2^grade - 1), its ideal the qrels'; rbp needs p; "
           "equal scores in numba's argsort order (undefined: 'key' here, equal on untied runs)"),
    Preset("sklearn", "average", "ranked", "linear", "ranked", 0.0, None, "k", "1", None,
           ("evaluate",),
           "scikit-learn ndcg_score: ignore_ties=False averages equal scores, gain = y_true, "
           "ideal from the scored items' y_true, a sample of all-zero y_true scores 0"),
    Preset("lightgbm", "position", "ranked", "exponential", "ranked", 1.0, None, "k", "1", None,
           ("evaluate",),
           "LightGBM ndcg metric: label_gain 2^i - 1 (default), positions by a stable sort of "
           "the scores (input order among equals), ideal from the query's labels, a query "
           "without a relevant item scores 1 (not run here: hand-computed test)"),
    Preset("xgboost", "position", "ranked", "exponential", "ranked", 1.0, None, "k", "1", None,
           ("evaluate",),
           "XGBoost ndcg metric: ndcg_exp_gain=true (2^label - 1), a stable sort of the "
           "predictions, a query without a relevant item scores 1 ('ndcg-': 0) (not run here: "
           "hand-computed test)"),
    Preset("elasticsearch", "position", "judged_or_ranked", "exponential", "judged_cut_returned",
           0.0, None, "k", "1", None, ("trec",),
           "Elasticsearch rank_eval dcg with normalize: true (modules/rank-eval/.../"
           "DiscountedCumulativeGain.java, evaluate and computeDCG): gain 2^rating - 1 in the "
           "hits' order, an unrated hit 0 (unknown_doc_rating unset: a null placeholder), the "
           "ideal from every rated document sorted descending and cut at the hits returned "
           "(allRatings.subList(0, min(hits, ratings))), 0 when it is 0; metric_score the mean "
           "over the requests; the search size is k, so hits <= k. trec: ndcg_cut.k only, a "
           "query of the qrels or the run one request (no hits or no rating: 0), equal scores "
           "refused (the hits' order is Elasticsearch's own); evaluate cuts the ideal at k"),
    Preset("opensearch_srw", "position", "ranked", "exponential", "judged", 0.0, None,
           "min_k_returned", "srw_dynamic", 2, ("evaluate", "trec"),
           "OpenSearch Search Relevance Workbench (opensearch-project/search-relevance, "
           "metrics/calculator/Evaluation.java, JudgmentThresholdCalculator.java, "
           "metrics/EvaluationMetrics.java): NDCG@k = DCG of 2^grade - 1 over the first k hits "
           "in their order (an unjudged hit 0) / IDCG of every judgment of the query sorted "
           "descending cut at k, 0 when IDCG is 0, per query, rounded to 2 decimals "
           "(Math.round(x * 100) / 100), no mean over queries; Precision@k divides by min(k, "
           "returned) and P, MAP, Recall, MRR count grade >= max(0.5 x the highest grade, the "
           "90th percentile (nearest rank) of the query's grades) and > 0. evaluate: NDCG only, "
           "per query (the binary metrics' threshold is not an evaluate option); trec -q -n: "
           "P.k, map_cut.k, recall.k, ndcg_cut.k of the run's queries (duckdb_ndcg.srw)"),
)}
# fmt: on
