"""Presets: one tool's conventions (``conventions.PRESETS``, one row of data each) applied to
``evaluate`` or ``duckdb-ndcg trec``.

A preset sets the options a surface has (``evaluate``: ties, gain, empty_ideal, the ideal
from the ranked items only and the rounding of ndcg and dcg; ``trec``: the query set, and for a
tool whose NDCG is not trec_eval's, its NDCG as ``ndcg_cut.k``); a value it fixes that the
caller set otherwise, a preset recorded for another surface, and a rule the surface cannot
follow are one error line naming the preset.

Example::

    duckdb_ndcg.evaluate("shown.parquet", "events.parquet", score_col="score", preset="sklearn")
    # duckdb-ndcg trec qrels.txt run.txt --preset ir_measures
    # duckdb-ndcg trec qrels.txt run.txt --preset elasticsearch -m ndcg_cut.10
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from duckdb_ndcg.conventions import PRESETS, Preset
from duckdb_ndcg.measures import Measure
from duckdb_ndcg.srw import srw_measures

# evaluate's own defaults of the options a preset sets
_EVALUATE_DEFAULTS = {"ties": "average", "gain": "linear", "empty_ideal": 0.0}


def preset_row(name: str, surface: str) -> Preset:
    """The row of ``name`` for ``surface`` ('trec' or 'evaluate'), or a ValueError naming it."""
    if name not in PRESETS:
        listed = ", ".join(f"'{p}'" for p in PRESETS)
        raise ValueError(f"preset must be one of {listed}, got {name!r}")
    row = PRESETS[name]
    if surface not in row.surfaces:
        where = (f"applies to {' and '.join(row.surfaces)} only" if row.surfaces
                 else "is recorded, not applied yet")
        raise ValueError(f"preset {name!r} {where} (its conventions: {row.source})")
    return row


def checked_evaluate_preset(name: str, given: Mapping[str, object], ranked_by_score: bool,
                            metrics: list[str], shape: str = "report") -> None:
    """evaluate's checks of preset ``name``, in Python's words (ValueError), before any work:
    a preset of another surface, an option it sets given otherwise (``given``: the caller's ties,
    gain and empty_ideal), a score column under a tool with its own order of equal scores, a
    metric other than ndcg, a rounded preset's summary. The preset itself is applied by the
    macros (``ndcg_report(..., preset := ...)``, the same rule in SQL)."""
    row = preset_row(name, "evaluate")
    values = {"ties": "average" if row.ties == "position" else row.ties, "gain": row.gain,
              "empty_ideal": row.empty_ideal}
    for option, value in given.items():
        if value != _EVALUATE_DEFAULTS[option] and value != values[option]:
            raise ValueError(f"preset {name!r} sets {option}={values[option]!r}; drop "
                             f"{option}={value!r}")
    if row.ties == "position" and ranked_by_score:
        raise ValueError(f"preset {name!r} orders equal scores as {name} does (input order), "
                         "which a score column cannot tell: give the rank (position_col)")
    others = [m for m in metrics if m not in ("ndcg", "judged_at_k")]
    if others:
        raise ValueError(f"preset {name!r} fixes NDCG's conventions only; drop metrics "
                         f"{', '.join(others)}")
    if row.rounding is not None and shape != "report":
        raise ValueError(f"preset {name!r} scores each query, rounded to {row.rounding} decimals, "
                         "and has no mean over queries: use shape='report' (drop --summary)")


def trec_complete(name: str) -> bool:
    """Whether preset ``name`` scores every judged query (trec_eval -c)."""
    return preset_row(name, "trec").queries in ("judged", "judged_or_ranked")


def trec_measures(name: str, measures: list[Measure], flags: Mapping[str, bool]) -> list[Measure]:
    """The measures of ``duckdb-ndcg trec`` under preset ``name``: as given, or for a tool whose
    measures are not trec_eval's, its own: Elasticsearch's NDCG (exponential gain, the ideal cut
    at the hits returned) as ``ndcg_cut.k``, the workbench's P, MAP, recall and NDCG at k
    (duckdb_ndcg.srw). ``flags``: whether each trec flag was given (``-c``, ``-J``, ``-M``, ``-l``
    other than 1, ``-q``, ``-n``)."""
    row = preset_row(name, "trec")
    if row.gain == "linear" and row.ideal == "judged":
        return measures
    srw = row.rounding is not None  # the workbench: per query, rounded, no mean
    fixed = ("-c", "-J", "-M", "-l") if srw else ("-c", "-J", "-M")
    given = [flag for flag in fixed if flags.get(flag)]
    if given:
        what = ("the run's queries, their hits and its own relevance threshold" if srw else
                "the query set and the hits (each query of the qrels or the run, every line of it)")
        raise ValueError(f"preset {name!r} fixes {what}; drop {given[0]}")
    if srw and not (flags.get("-q") and flags.get("-n")):
        raise ValueError(f"preset {name!r} gives each query's values, rounded to {row.rounding} "
                         "decimals, and no mean over queries: give -q -n")
    others = (srw_measures(measures) if srw else
              [m.trec or m.name for m in measures if not _cut_ndcg(m)])
    if others or not measures:
        wanted = ("has P.k, map_cut.k, recall.k and ndcg_cut.k only" if srw else
                  "gives its normalized DCG as ndcg_cut.k only")
        raise ValueError(f"preset {name!r} {wanted}; drop "
                         f"{', '.join(others) if others else 'the default official'}"
                         f" (-m {'P.10' if srw else 'ndcg_cut.10'})")
    if srw:
        return measures
    extra = {"gain": row.gain, "clamp_k": row.ideal == "judged_cut_returned"}
    return [replace(m, options=tuple(sorted({**dict(m.options), **extra}.items())))
            for m in measures]


def _cut_ndcg(measure: Measure) -> bool:
    """Whether ``measure`` is trec_eval's ndcg_cut (NDCG at a cutoff, linear gain)."""
    options = dict(measure.options)
    return (measure.metric == "ndcg" and options.get("k") is not None
            and "gain" not in options and not measure.judged_only)
