"""Is B better than A? The Python face of the ``compare_summary`` macro."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from duckdb_ndcg.conventions import CORRECTION, QUERY_SET, TEST
from duckdb_ndcg.conventions import MISSING as _MISSING
from duckdb_ndcg.inputs import (
    MIN_JUDGED,
    OptionError,
    checked_measures,
    checked_report_options,
    choice,
    is_number,
    judged_percent,
    macro_arguments,
    open_source,
    read_mapping,
    require_columns,
    require_slices,
)
from duckdb_ndcg.macros import own_connection, register

TESTS = TEST.choices
CORRECTIONS = CORRECTION.choices
QUERY_SETS = QUERY_SET.choices
MISSING = _MISSING.choices
# how a verdict names the test of its row ('welch': ab_summary's rows)
_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon",
    "sign": "sign test",
    "randomization": "randomization",
    "welch": "Welch t-test",
}
_arm_views = itertools.count(1)
_CORRECTION_NAMES = {"holm": "Holm", "bh": "BH", "bonferroni": "Bonferroni", "none": "uncorrected"}


def compare(
    rankings_a: str | Path | object,
    rankings_b: str | Path | object,
    events: str | Path | object,
    *,
    k: int | Sequence[int | None] | None = 10,
    slice_by: Sequence[str] = (),
    test: str = "t",
    conf: float = 0.95,
    correction: str = "holm",
    alpha: float = 0.05,
    query_set: str = "both",
    missing: str = "zero",
    unpaired: bool = False,
    eps: float = 0.0,
    resamples: int = 10000,
    seed: int | str = 42,
    con: duckdb.DuckDBPyConnection | None = None,
    query_col: str = "query_id",
    item_col: str = "item_id",
    position_col: str = "position",
    score_col: str | None = None,
    ties: str = "average",
    gain: str = "linear",
    log_base: float = 2,
    empty_ideal: float | None = 0.0,
    duplicates: str = "error",
    event_col: str = "event_type",
    mapping: Mapping[str, float] | str | Path | None = None,
    collapse: str = "max",
    time_col: str | None = None,
    unknown: str = "error",
    measures: str | None = None,
) -> duckdb.DuckDBPyRelation:
    """One row per (slice, cutoff): ranker B against ranker A on the same events.

    The columns are ``compare_summary``'s: the slice columns, ``k``, ``queries``, ``mean_a``,
    ``mean_b``, ``mean_diff`` (B - A) with its ``conf`` t-interval ``ci_low``, ``ci_high``, the
    ``test``'s two-sided ``p_value`` ('t', 'wilcoxon', 'sign', 'randomization'), ``p_adjusted`` by
    ``correction`` across the rows ('holm', 'bh', 'bonferroni', 'none'), ``reject`` at ``alpha``,
    ``test`` and ``correction`` (the row's own, which ``verdict`` names), B's ``wins``, ``ties``, ``losses`` (a difference within ``eps``, 0.0 by default, is a tie), and
    ``queries_filled`` / ``queries_dropped`` (queries one ranker did not show: scored 0 for it or
    left out, by ``query_set`` and ``missing``). When the rankers both showed fewer than half of
    the queries either showed (per slice and cutoff), a paired test does not apply and the result
    is an error naming the A/B path: ``unpaired=True`` compares each arm's own queries by Welch's
    t-test (``ab_summary`` over both tables, A the baseline; columns ``queries_a``, ``queries_b``,
    ``mean_a``, ``mean_b``, ``mean_diff``, ``ci_low``, ``ci_high``, ``p_value``, ``p_adjusted``,
    ``reject``, ``test`` 'welch', ``correction``; ``test`` must be 't'). ``judged_a`` / ``judged_b`` are each ranker's mean judged@k: the share
    of its first k items that an event of the log grades (an offline replay's items never shown
    to anyone are unjudged and score 0; ``verdict`` names a ranker below 0.9). Inputs and the
    other options (``log_base``, the
    discount's base, 2 by default, among them) are as for :func:`duckdb_ndcg.evaluate`, and so
    is ``slice_by`` (a column both rankings lack is taken from the events, per query);
    ``verdict(row)`` words a row.

    ``measures`` (default None) compares measure strings instead of NDCG@k
    (``compare_summary(..., measures := ...)``, ``compare_measures``' rows: one per (slice, measure), ``measure`` in place of ``k``, over
    the queries both rankers showed; no ``queries_filled``, ``judged_a``, ``judged_b``):
    ``compare(a, b, events, measures="nDCG@10 MAP RR")``. Each measure names its cutoff, level and
    gains, so ``k``, ``log_base``, ``empty_ideal``, a gain other than 'linear' or 'value',
    ``duplicates='allow'``, ``query_set``, ``missing`` and ``unpaired`` given with it are an
    error.

    Example::

        rel = duckdb_ndcg.compare("a.parquet", "b.parquet", "events.parquet", k=[5, 10])
        for row in rel.fetchall():
            r = dict(zip(rel.columns, row))
            print(f"NDCG@{r['k']}: {duckdb_ndcg.verdict(r)}")
    """
    if measures is not None:
        checked_measures(measures, k=k, log_base=log_base, empty_ideal=empty_ideal, gain=gain,
                         duplicates=duplicates, query_set=query_set, missing=missing,
                         unpaired=unpaired)
    choice("test", test, TESTS)
    choice("correction", correction, CORRECTIONS)
    choice("query_set", query_set, QUERY_SETS)
    choice("missing", missing, MISSING)
    if unpaired and test != "t":
        raise ValueError(f"unpaired=True is Welch's t-test: test must be 't', got {test!r}")
    for name, value in (("conf", conf), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise OptionError(name, f"{name} must be a number between 0 and 1, got {value!r}")
    if not is_number(eps) or not (math.isfinite(eps) and eps >= 0):
        raise OptionError("eps", f"eps must be a finite number >= 0, got {eps!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        # one kind of error for every option
        raise OptionError("seed", f"seed must be an integer or text, got {seed!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise OptionError("resamples", f"resamples must be a whole number >= 1, got {resamples!r}")
    cuts = checked_report_options(k, ties, gain, log_base, collapse, time_col, unknown, duplicates)
    if isinstance(slice_by, str):
        slice_by = [slice_by]
    con = register(con) if con is not None else own_connection()
    rank_col = {"score_col": score_col} if score_col else {"position_col": position_col}
    ranked = []
    for source, role in ((rankings_a, "rankings_a"), (rankings_b, "rankings_b")):
        opened = open_source(con, source, role)
        require_columns(opened, role, {"query_col": query_col, "item_col": item_col, **rank_col})
        ranked.append(opened)
    logged = open_source(con, events, "events")
    require_columns(
        logged,
        "events",
        {
            "query_col": query_col,
            "item_col": item_col,
            "event_col": event_col,
            "time_col": time_col,
        },
    )
    require_slices(dict(zip(("rankings_a", "rankings_b"), ranked)), logged, slice_by)
    # every option of the macro by name, as the conventions table lists them, with this call's
    # checked values (measures given: compare_summary's measures overload)
    values = {**locals(), "k": cuts, "slice_by": list(slice_by), "conf": float(conf),
              "alpha": float(alpha), "eps": float(eps), "mapping": read_mapping(con, mapping)}
    if unpaired:
        return _unpaired(con, ranked[0].name, ranked[1].name, logged.name, values)
    arguments, params = macro_arguments("compare_summary", values)
    sql = f"SELECT * FROM compare_summary(?, ?, ?, {arguments})"
    return con.sql(sql, params=[ranked[0].name, ranked[1].name, logged.name, *params])


def _unpaired(
    con: duckdb.DuckDBPyConnection, a: str, b: str, events: str, options: dict[str, object]
) -> duckdb.DuckDBPyRelation:
    """ab_summary over one view of both rankings tables, arm 'A' the baseline and 'B'."""
    view = f"_ndcg_arms_{next(_arm_views)}"
    con.sql(
        "SELECT *, 'A' AS \"_ndcg_arm\" FROM query_table(?) "
        "UNION ALL BY NAME SELECT *, 'B' AS \"_ndcg_arm\" FROM query_table(?)",
        params=[a, b],
    ).create_view(view)
    arguments, params = macro_arguments("ab_summary", {**options, "baseline": "A"})
    sql = f"SELECT * FROM ab_summary(?, ?, '_ndcg_arm', {arguments})"
    return con.sql(sql, params=[view, events, *params])


def _signed(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "p = n/a"
    if value < 1e-300:  # a tail beyond DOUBLE's range comes back as 0 (or a subnormal)
        return "p < 1e-300"
    return f"p = {value:.3f}" if value >= 0.001 else f"p = {value:.1e}"


def _setting(row: Mapping[str, object], name: str, given: str | None, names: Mapping) -> str:
    """The row's test or correction; a value given as well must be the same."""
    if name not in row:
        if given is None:
            raise ValueError(f"row has no '{name}' column: pass {name}= (one of "
                             f"{', '.join(map(repr, names))})")
        choice(name, given, tuple(names))
        return given
    carried = str(row[name])
    if given is not None and given != carried:
        raise ValueError(f"row was computed with {name} '{carried}', not '{given}'")
    choice(name, carried, tuple(names))
    return carried


def verdict(
    row: Mapping[str, object], *, test: str | None = None, correction: str | None = None
) -> str:
    """One row of :func:`compare` (or of ``ab_summary``) in words.

    Example: ``B − A = +0.021 [+0.008, +0.034], p = 0.002 (paired t-test, Holm), 412 wins / 96
    ties / 301 losses``; ``p`` is the corrected p-value, named by the row's ``test`` and
    ``correction`` columns (``test=``/``correction=`` stand in for a row without them), the
    interval the row's confidence interval. A p-value below 1e-300 (0 when it underflows) reads
    ``p < 1e-300``; a row with ``queries_filled`` > 0 ends with how many queries were scored 0
    for a ranker that did not show them, and a ranker whose judged share (``judged_a``,
    ``judged_b``) is below 0.9 is named at the end: ``; B: 77 % of its top 10 judged (the rest
    have no event in the log and score 0)``.
    """
    test = _setting(row, "test", test, _TEST_NAMES)
    correction = _setting(row, "correction", correction, _CORRECTION_NAMES)
    interval = f"[{_signed(row['ci_low'])}, {_signed(row['ci_high'])}]"  # type: ignore[arg-type]
    text = (
        f"B − A = {_signed(row['mean_diff'])} {interval}, "  # type: ignore[arg-type]
        f"{_p(row['p_adjusted'])} ({_TEST_NAMES[test]}, {_CORRECTION_NAMES[correction]})"  # type: ignore[arg-type]
    )
    if "wins" in row:
        text += f", {row['wins']} wins / {row['ties']} ties / {row['losses']} losses"
    if row.get("queries_filled"):
        text += f", {row['queries_filled']} queries filled with 0"
    return text + _judged_note(row)


def _judged_note(row: Mapping[str, object]) -> str:
    """``; B: 77 % of its top 10 judged (...)`` for the rankers whose judged share is below
    MIN_JUDGED, else ''."""
    low = [
        f"{name}: {judged_percent(share)}"  # type: ignore[arg-type]
        for name, share in (("A", row.get("judged_a")), ("B", row.get("judged_b")))
        if share is not None and share < MIN_JUDGED  # type: ignore[operator]
    ]
    if not low:
        return ""
    top = "whole ranking" if row.get("k") is None else f"top {row['k']}"
    whose = "its" if len(low) == 1 else "their"
    return (
        f"; {', '.join(low)} of {whose} {top} judged (the rest have no event in the log and "
        "score 0)"
    )
