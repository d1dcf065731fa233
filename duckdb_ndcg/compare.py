"""Is B better than A? The Python face of the ``compare_summary`` macro."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb

from duckdb_ndcg.conventions import CORRECTION, QUERY_SET, TEST
from duckdb_ndcg.conventions import MISSING as _MISSING
from duckdb_ndcg.evaluate import (
    MIN_JUDGED,
    _checked_report_options,
    _choice,
    _is_number,
    _read_mapping,
    _require,
    judged_percent,
    open_source,
    report_arguments,
)
from duckdb_ndcg.macros import register

TESTS = TEST.choices
CORRECTIONS = CORRECTION.choices
QUERY_SETS = QUERY_SET.choices
MISSING = _MISSING.choices
_TEST_NAMES = {
    "t": "",
    "wilcoxon": "Wilcoxon, ",
    "sign": "sign test, ",
    "randomization": "randomization, ",
}
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
    eps: float = 0.0,
    resamples: int = 10000,
    seed: int = 42,
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
) -> duckdb.DuckDBPyRelation:
    """One row per (slice, cutoff): ranker B against ranker A on the same events.

    The columns are ``compare_summary``'s: the slice columns, ``k``, ``queries``, ``mean_a``,
    ``mean_b``, ``mean_diff`` (B - A) with its ``conf`` t-interval ``ci_low``, ``ci_high``, the
    ``test``'s two-sided ``p_value`` ('t', 'wilcoxon', 'sign', 'randomization'), ``p_adjusted`` by
    ``correction`` across the rows ('holm', 'bh', 'bonferroni', 'none'), ``reject`` at ``alpha``,
    B's ``wins``, ``ties``, ``losses`` (a difference within ``eps``, 0.0 by default, is a tie),
    ``queries_filled`` / ``queries_dropped`` (queries one ranker did not show: scored 0 for it or
    left out, by ``query_set`` and ``missing``), and ``judged_a`` / ``judged_b``, each ranker's
    mean judged@k: the share of its first k items that an event of the log grades (an offline
    replay's items never shown to anyone are unjudged and score 0; ``verdict`` names a ranker
    below 0.9). Inputs and the other options (``log_base``, the
    discount's base, 2 by default, among them) are as for :func:`duckdb_ndcg.evaluate`;
    ``verdict(row)`` words a row.

    Example::

        rel = duckdb_ndcg.compare("a.parquet", "b.parquet", "events.parquet", k=[5, 10])
        for row in rel.fetchall():
            print(duckdb_ndcg.verdict(dict(zip(rel.columns, row))))
    """
    _choice("test", test, TESTS)
    _choice("correction", correction, CORRECTIONS)
    _choice("query_set", query_set, QUERY_SETS)
    _choice("missing", missing, MISSING)
    for name, value in (("conf", conf), ("alpha", alpha)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    if not _is_number(eps) or not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a whole number >= 1, got {resamples!r}")
    cuts = _checked_report_options(k, ties, gain, log_base, collapse, time_col, unknown, duplicates)
    if isinstance(slice_by, str):
        slice_by = [slice_by]
    con = con if con is not None else duckdb.connect()
    register(con)
    rank_col = {"score_col": score_col} if score_col else {"position_col": position_col}
    ranked = []
    for source, role in ((rankings_a, "rankings_a"), (rankings_b, "rankings_b")):
        opened = open_source(con, source, role)
        _require(opened, role, {"query_col": query_col, "item_col": item_col, **rank_col})
        _require(opened, role, {f"slice_by[{i}]": name for i, name in enumerate(slice_by)})
        ranked.append(opened)
    logged = open_source(con, events, "events")
    _require(
        logged,
        "events",
        {
            "query_col": query_col,
            "item_col": item_col,
            "event_col": event_col,
            "time_col": time_col,
        },
    )
    arguments, params = report_arguments(
        {
            "k": cuts,
            "slice_by": list(slice_by),
            "test": test,
            "conf": float(conf),
            "correction": correction,
            "alpha": float(alpha),
            "query_set": query_set,
            "missing": missing,
            "eps": float(eps),
            "resamples": resamples,
            "seed": seed,
            "query_col": query_col,
            "item_col": item_col,
            "position_col": position_col,
            "score_col": score_col,
            "ties": ties,
            "gain": gain,
            "log_base": log_base,
            "empty_ideal": empty_ideal,
            "duplicates": duplicates,
            "event_col": event_col,
            "mapping": _read_mapping(con, mapping),
            "collapse": collapse,
            "time_col": time_col,
            "unknown": unknown,
        }
    )
    sql = f"SELECT * FROM compare_summary(?, ?, ?, {arguments})"
    return con.sql(sql, params=[ranked[0].name, ranked[1].name, logged.name, *params])


def _signed(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "p = n/a"
    return f"p = {value:.3f}" if value >= 0.001 else f"p = {value:.1e}"


def verdict(row: Mapping[str, object], *, test: str = "t", correction: str = "holm") -> str:
    """One row of :func:`compare` in words.

    Example: ``B − A = +0.021 [+0.008, +0.034], p = 0.002 (Holm), 412 wins / 96 ties / 301
    losses``; ``p`` is the corrected p-value, the interval the row's confidence interval. A
    ranker whose judged share (``judged_a``, ``judged_b``) is below 0.9 is named at the end:
    ``; B: 77 % of its top 10 judged (the rest have no event in the log and score 0)``.
    """
    _choice("test", test, TESTS)
    _choice("correction", correction, CORRECTIONS)
    interval = f"[{_signed(row['ci_low'])}, {_signed(row['ci_high'])}]"  # type: ignore[arg-type]
    return (
        f"B − A = {_signed(row['mean_diff'])} {interval}, "  # type: ignore[arg-type]
        f"{_p(row['p_adjusted'])} ({_TEST_NAMES[test]}{_CORRECTION_NAMES[correction]}), "  # type: ignore[arg-type]
        f"{row['wins']} wins / {row['ties']} ties / {row['losses']} losses"
        + _judged_note(row)
    )


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
