"""The NDCG@k curve as a self-contained picture: inline SVG in an HTML page, no server, no scripts."""

from __future__ import annotations

import datetime
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

import duckdb

from duckdb_ndcg.macros import quoted

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_DASHES = ("", "7 4", "2 3", "10 3 2 3")
_MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down")
_STEPS = (0.01, 0.02, 0.025, 0.05, 0.1, 0.2)
_SIGNED_STEPS = (0.001, 0.002, 0.005, *_STEPS, 0.25, 0.5)
_K_STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
_W, _H = 760, 460
_LEFT, _TOP, _BOTTOM = 72, 62, 62
MAX_SERIES = 12  # more lines than this cannot be told apart
# Advance widths of the printable ASCII characters (space .. ~) in thousandths of the font size:
# the larger of Helvetica's (Arial's are the same) and DejaVu Sans's (a browser's sans-serif where
# those are missing), so text sized with them fits in either. Other characters count as 1 em.
_WIDTHS = (
    318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361, 318, 337, 637, 637,
    637, 637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 556, 1015, 685, 687, 722,
    771, 667, 611, 778, 752, 295, 500, 667, 558, 863, 749, 788, 667, 788, 722, 667, 611, 732,
    685, 989, 686, 667, 686, 391, 337, 391, 838, 556, 500, 613, 635, 550, 635, 616, 353, 635,
    634, 278, 278, 580, 278, 975, 634, 612, 635, 635, 412, 521, 393, 634, 592, 818, 592, 592,
    525, 637, 337, 637, 838,
)


def text_width(text: str, size: float = 14) -> float:
    """The width in pixels of ``text`` at font ``size`` in the chart's font, at most (``_WIDTHS``;
    1 em for a character outside printable ASCII)."""
    return sum(_WIDTHS[ord(c) - 32] if 32 <= ord(c) < 127 else 1000 for c in text) * size / 1000

# A series' points: (k, mean) or (k, mean, ci_low, ci_high), the interval None where there is
# none (fewer than 2 queries).
Point = tuple[int, float] | tuple[int, float, float | None, float | None]
Series = Mapping[str, Sequence[Point]]


class Curves(dict[str, list[Point]]):
    """:func:`curve_series`' result: series by label, and how many series were left out."""

    omitted: int = 0


def curve_series(
    relation: duckdb.DuckDBPyRelation,
    label_col: str | Sequence[str] | None = None,
    conf: float = 0.95,
    max_series: int | None = None,
) -> Curves:
    """Mean NDCG per k from an ``ndcg_report`` relation, one series per value of ``label_col``
    (a column or several), for :func:`svg`; series are labelled ``device=mobile, day=2024-01-01``.
    Each point is (k, mean, ci_low, ci_high): the ``conf`` t-interval of the mean over the
    queries, as ndcg_summary's (None below 2 queries). An ``ndcg_summary`` relation (its
    mean_ndcg, ci_low and ci_high per slice and k, at its own conf) gives the same points without
    reading the queries again. The relation's connection needs the macros
    (``duckdb_ndcg.register``), which ``ndcg_report`` needs anyway. With ``max_series``, at most
    that many series are kept, those of the most queries (a UserWarning says how many were left
    out; ``.omitted`` counts them).
    """
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 < conf < 1:
        raise ValueError(f"conf must be a number between 0 and 1 (exclusive), got {conf!r}")
    columns = [label_col] if isinstance(label_col, str) else list(label_col or ())
    for column in columns:
        if column not in relation.columns:
            raise ValueError(f"label_col {column!r} is not a column of the report")
    keys = ", ".join([*map(quoted, columns), "k"])
    if "ndcg" not in relation.columns and "mean_ndcg" in relation.columns:  # ndcg_summary's rows
        rows = relation.project(f"{keys}, mean_ndcg, ci_low, ci_high, queries").order(keys)
    else:
        half = f"_ndcg_mean_ci_half(stddev_samp(ndcg), count(ndcg), {float(conf)!r})"
        rows = relation.aggregate(
            f"{keys}, avg(ndcg) AS mean_ndcg, avg(ndcg) - {half}, avg(ndcg) + {half}, "
            "count(ndcg) AS queries", "ALL"
        ).order(keys)
    series, queries = Curves(), dict[str, int]()
    for *values, k, mean, low, high, count in rows.fetchall():
        name = ", ".join(f"{c}={_text(v)}" for c, v in zip(columns, values, strict=True))
        name = name or "all queries"
        if k is not None and mean is not None:
            low, high = (None, None) if low is None or high is None else (float(low), float(high))
            series.setdefault(name, []).append((int(k), float(mean), low, high))
            queries[name] = max(queries.get(name, 0), count)
    return _largest(series, queries, max_series)


def trend_series(
    relation: duckdb.DuckDBPyRelation, day_col: str, k: int, conf: float = 0.95
) -> tuple[datetime.date, dict[str, list[Point]]]:
    """Mean NDCG@``k`` per day of ``day_col`` (a DATE or TIMESTAMP column of an ``ndcg_report``
    relation, cut to the day) with its ``conf`` t-interval, for ``svg(..., first_day=...)``:
    returns the first day and one series ``NDCG@k`` whose x is 1 + days since it."""
    half = f"_ndcg_mean_ci_half(stddev_samp(ndcg), count(ndcg), {float(conf)!r})"
    day = f"CAST({quoted(day_col)} AS DATE)"
    rows = (
        relation.filter(f"k = {int(k)} AND {quoted(day_col)} IS NOT NULL")
        .aggregate(f"{day} AS day, avg(ndcg) AS mean_ndcg, {half} AS half", "ALL")
        .order("day")
        .fetchall()
    )
    if not rows:
        raise ValueError(f"no query has a {day_col} to draw a trend over")
    first = rows[0][0]
    points: list[Point] = []
    for when, mean, half_width in rows:
        if mean is not None:
            low = None if half_width is None else float(mean) - float(half_width)
            high = None if half_width is None else float(mean) + float(half_width)
            points.append(((when - first).days + 1, float(mean), low, high))
    return first, {f"NDCG@{k}": points}


def difference_series(
    relation: duckdb.DuckDBPyRelation,
    label_col: Sequence[str] = (),
    max_series: int | None = None,
) -> Curves:
    """B - A per k from a ``compare``/``compare_summary`` relation (``k``, ``queries``,
    ``mean_diff``, ``ci_low``, ``ci_high``), one series per value of the ``label_col`` slice
    columns, for ``svg(..., difference=True)``; ``max_series`` as for :func:`curve_series`."""
    columns = list(label_col)
    rows = relation.select(
        ", ".join([*map(quoted, columns), "k", "queries", "mean_diff", "ci_low", "ci_high"])
    ).order(", ".join([*map(quoted, columns), "k"])).fetchall()
    series, queries = Curves(), dict[str, int]()
    for *values, k, count, diff, low, high in rows:
        name = ", ".join(f"{c}={_text(v)}" for c, v in zip(columns, values, strict=True))
        name = f"B − A{', ' + name if name else ''}"
        if k is not None and diff is not None:
            series.setdefault(name, []).append((int(k), float(diff), low, high))
            queries[name] = max(queries.get(name, 0), count or 0)
    return _largest(series, queries, max_series)


def _largest(series: Curves, queries: Mapping[str, int], max_series: int | None) -> Curves:
    """The ``max_series`` series of the most queries (all when fewer), with a warning."""
    if max_series is None or len(series) <= max_series:
        return series
    largest = sorted(series, key=lambda name: -queries[name])[:max_series]  # stable: by label
    kept = Curves({name: points for name, points in series.items() if name in largest})
    kept.omitted = len(series) - len(kept)
    warnings.warn(
        f"the chart draws the {len(kept)} slices with the most queries of {len(series)}: "
        f"{kept.omitted} slices ({sum(queries[n] for n in series if n not in kept)} queries) "
        "are not drawn",
        stacklevel=3,
    )
    return kept


def _interval(point: Point) -> tuple[float, float] | None:
    """A point's (ci_low, ci_high), or None when it has none."""
    if len(point) == 4 and point[2] is not None and point[3] is not None:
        return float(point[2]), float(point[3])
    return None


def interval_label(conf: float) -> str:
    """How the chart names the band: ``95 % t-interval`` for conf 0.95."""
    return f"{conf * 100:.10g} % t-interval"


def _text(value: object) -> str:
    return "NULL" if value is None else str(value)


def _signed_y_range(values: Sequence[float]) -> tuple[float, float, float]:
    """(bottom, top, tick step) of a difference's y axis: the data and 0, plus a margin."""
    low, high = min(0.0, *values), max(0.0, *values)
    pad = max(high - low, 0.02) * 0.15
    for step in _SIGNED_STEPS:
        bottom = max(-1.0, math.floor(round((low - pad) / step, 9)) * step)
        top = min(1.0, math.ceil(round((high + pad) / step, 9)) * step)
        if (top - bottom) / step <= 8:
            break
    return round(bottom, 6), round(top, 6), step


def _y_range(values: Sequence[float]) -> tuple[float, float, float]:
    """(bottom, top, tick step) of the y axis: the data plus a margin, widened to 0 when close."""
    low, high = min(values), max(values)
    pad = max(high - low, 0.1) * 0.15
    for step in _STEPS:
        bottom = max(0.0, math.floor(round((low - pad) / step, 9)) * step)
        top = min(1.0, math.ceil(round((high + pad) / step, 9)) * step)
        if (top - bottom) / step <= 8:
            break
    if bottom <= (top - bottom) / 2:  # so little axis would be cut that cutting misleads more
        bottom = 0.0
        step = next(s for s in _STEPS if top / s <= 10)
        top = min(1.0, math.ceil(round(top / step, 9)) * step)
    return round(bottom, 6), round(top, 6), step


def _marker(shape: str, cx: float, cy: float, color: str, tip: str = "") -> str:
    title = f"<title>{escape(tip)}</title>" if tip else ""
    style = f'fill="{color}" stroke="white" stroke-width="1"'
    if shape == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4.5" {style}>{title}</circle>'
    if shape == "square":
        return (
            f'<rect x="{cx - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" {style}>{title}</rect>'
        )
    corners = {
        "triangle": ((0, -5.5), (5, 4), (-5, 4)),
        "diamond": ((0, -5.5), (5, 0), (0, 5.5), (-5, 0)),
        "triangle-down": ((0, 5.5), (5, -4), (-5, -4)),
    }[shape]
    points = " ".join(f"{cx + dx:.1f},{cy + dy:.1f}" for dx, dy in corners)
    return f'<polygon points="{points}" {style}>{title}</polygon>'


def svg(
    series: Series,
    title: str = "NDCG@k",
    conf: float = 0.95,
    note: str = "",
    difference: bool = False,
    first_day: datetime.date | None = None,
) -> str:
    """An SVG line chart: x = cutoff k, y = mean NDCG@k, one line (color, dash, marker) per series.

    A point (k, mean, ci_low, ci_high) with an interval gets a shaded band in the series' color
    (class ``ci-band``), named ``95 % t-interval`` (``conf``) in the legend and the tooltips;
    points without one (None: fewer than 2 queries) get none. The y axis spans the data and the
    bands (within [0, 1]) with a margin; when it does not start at 0 the chart says so. ``note``
    is a line under the legend (e.g. which slices are drawn). ``difference=True`` draws
    differences of means (B - A, in [-1, 1]) on an axis through 0, marked by a dark line. With
    ``first_day`` the x values are days, 1 = ``first_day`` (a trend over time: see
    :func:`trend_series`), and the axis is labelled with dates.

    Example::

        svg({"ranker A": [(1, 0.41, 0.38, 0.44), (2, 0.45, 0.42, 0.48)]}, "NDCG@k")
    """
    if not series or not any(series.values()):
        raise ValueError("series must hold at least one (k, ndcg) point")
    if len(series) > MAX_SERIES:
        raise ValueError(
            f"a chart of {len(series)} lines (one per slice) cannot be read; "
            f"chart at most {MAX_SERIES} slices"
        )
    values = [p[1] for points in series.values() for p in points]
    lowest = -1 if difference else 0
    if not all(lowest <= v <= 1 for v in values):  # also rejects NaN
        raise ValueError(f"series values must be {'differences of ' if difference else ''}mean "
                         f"NDCG values in [{lowest}, 1]")
    intervals = [(p[1], _interval(p)) for points in series.values() for p in points]
    for mean, bounds in intervals:
        if bounds is not None and not bounds[0] <= mean <= bounds[1]:  # also rejects NaN
            raise ValueError(f"interval {bounds} does not hold its mean {mean}")
    band_values = [min(max(b, lowest), 1) for _, bounds in intervals if bounds for b in bounds]
    banded = bool(band_values)
    label = interval_label(conf)
    max_k = max(p[0] for points in series.values() for p in points)
    bottom, top, step = (_signed_y_range if difference else _y_range)(values + band_values)
    plot_w, plot_h = _W - _LEFT - 170, _H - _TOP - _BOTTOM
    # the legend: a sample line at _LEFT + plot_w + 18, its text 44 px further, 16 px to spare
    legend = [*series, f"shaded: {label}"] if banded else list(series)
    text_x = _LEFT + plot_w + 18 + 44
    right = max(text_x + max(map(text_width, legend)), text_x - 44 + text_width(note, 13))
    width = max(_W, math.ceil(right + 16))
    digits = next(d for d in (1, 2, 3) if abs(step * 10**d - round(step * 10**d)) < 1e-9)

    def x(k: float) -> float:
        return _LEFT + (k - 1) / max(max_k - 1, 1) * plot_w

    def y(v: float) -> float:
        return _TOP + (top - v) / (top - bottom) * plot_h

    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{_H}" '
            f'viewBox="0 0 {width} {_H}" font-family="Helvetica, Arial, sans-serif" font-size="14">'
        ),
        f'<rect width="{width}" height="{_H}" fill="white"/>',
        (
            f'<text x="{_LEFT + plot_w / 2}" y="28" text-anchor="middle" font-size="18" '
            f'font-weight="bold">{escape(title)}</text>'
        ),
    ]
    if bottom > 0 and not difference:
        out.append(
            f'<text x="{_LEFT}" y="{_TOP - 10}" font-size="13" fill="#555" '
            f'font-style="italic">y axis starts at {bottom:.{digits}f}, not 0</text>'
        )
    for i in range(round((top - bottom) / step) + 1):
        v = bottom + i * step
        out.append(
            f'<line x1="{_LEFT}" x2="{_LEFT + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            f'stroke="#e5e5e5"/>'
        )
        out.append(
            f'<line x1="{_LEFT - 5}" x2="{_LEFT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#333"/>'
        )
        out.append(
            f'<text x="{_LEFT - 9}" y="{y(v) + 5:.1f}" text-anchor="end">{v:.{digits}f}</text>'
        )
    y_title = "difference of mean NDCG@k" if difference else "mean NDCG@k"
    y_title = "mean NDCG" if first_day is not None else y_title

    def x_text(k: int) -> str:
        return str(k) if first_day is None else (first_day + datetime.timedelta(k - 1)).isoformat()

    ticks = 10 if first_day is None else 5  # a date is wider than a cutoff
    k_step = next((s for s in _K_STEPS if max_k / s <= ticks), max_k)
    for k in [1, *(m for m in range(k_step, max_k + 1, k_step) if m - 1 >= k_step / 2)]:
        out.append(
            f'<line x1="{x(k):.1f}" x2="{x(k):.1f}" y1="{_TOP + plot_h}" '
            f'y2="{_TOP + plot_h + 5}" stroke="#333"/>'
        )
        out.append(
            f'<text x="{x(k):.1f}" y="{_TOP + plot_h + 21}" text-anchor="middle">{x_text(k)}</text>'
        )
    out.append(
        f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        f'stroke="#333"/>'
    )
    out.append(
        f'<text x="{_LEFT + plot_w / 2}" y="{_H - 14}" text-anchor="middle">'
        f"{'cutoff k (items looked at)' if first_day is None else 'day'}</text>"
    )
    out.append(
        f'<text transform="translate(20 {_TOP + plot_h / 2}) rotate(-90)" '
        f'text-anchor="middle">{y_title}</text>'
    )
    if difference:  # the line of no difference
        out.append(
            f'<line class="zero" x1="{_LEFT}" x2="{_LEFT + plot_w}" y1="{y(0):.1f}" '
            f'y2="{y(0):.1f}" stroke="#333" stroke-width="1.5"/>'
        )

    def clamp(v: float) -> float:
        return y(min(max(v, bottom), top))

    # bands first, under every line: one polygon per run of consecutive points with an interval
    # (upper bounds left to right, lower bounds back), a vertical bar for a run of one point
    for i, (name, points) in enumerate(series.items()):
        color = _COLORS[i % len(_COLORS)]
        runs: list[list[tuple[int, float, float]]] = [[]]
        for point in sorted(points, key=lambda p: p[0]):
            bounds = _interval(point)
            if bounds is None:
                runs.append([])
            else:
                runs[-1].append((point[0], *bounds))
        tip = f"<title>{escape(name)}: {label} of the mean</title>"
        for run in (r for r in runs if r):
            if len(run) == 1:
                k, low, high = run[0]
                out.append(
                    f'<line class="ci-band" x1="{x(k):.1f}" x2="{x(k):.1f}" '
                    f'y1="{clamp(high):.1f}" y2="{clamp(low):.1f}" stroke="{color}" '
                    f'stroke-opacity="0.35" stroke-width="8">{tip}</line>'
                )
                continue
            edge = [(k, high) for k, _, high in run] + [(k, low) for k, low, _ in reversed(run)]
            corners = " ".join(f"{x(k):.1f},{clamp(v):.1f}" for k, v in edge)
            out.append(
                f'<polygon class="ci-band" points="{corners}" fill="{color}" '
                f'fill-opacity="0.15" stroke="none">{tip}</polygon>'
            )
    for i, (name, points) in enumerate(series.items()):
        color = _COLORS[i % len(_COLORS)]
        dash = _DASHES[i % len(_DASHES)]
        shape = _MARKERS[i % len(_MARKERS)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        ordered = sorted(points, key=lambda p: p[0])
        path = " ".join(f"{x(p[0]):.1f},{y(p[1]):.1f}" for p in ordered)
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.5"{dashed}/>'
        )
        for point in ordered:
            k, v = point[0], point[1]
            bounds = _interval(point)
            extra = f" [{bounds[0]:.4f}, {bounds[1]:.4f}] ({label})" if bounds else ""
            shown = f"{v:+.4f}" if difference else f"{v:.4f}"
            at = f"NDCG@{k}" if first_day is None else x_text(k)
            out.append(_marker(shape, x(k), y(v), color, f"{name}: {at} = {shown}{extra}"))
        lx, ly = _LEFT + plot_w + 18, _TOP + 12 + 26 * i
        out.append(
            f'<line x1="{lx}" x2="{lx + 36}" y1="{ly}" y2="{ly}" stroke="{color}" '
            f'stroke-width="2.5"{dashed}/>'
        )
        out.append(_marker(shape, lx + 18, ly, color))
        out.append(f'<text x="{lx + 44}" y="{ly + 5}">{escape(name)}</text>')
    if banded:
        lx, ly = _LEFT + plot_w + 18, _TOP + 12 + 26 * len(series)
        out.append(
            f'<rect class="ci-legend" x="{lx}" y="{ly - 7}" width="36" height="14" fill="#777" '
            'fill-opacity="0.25"/>'
        )
        out.append(f'<text x="{lx + 44}" y="{ly + 5}">shaded: {label}</text>')
    if note:
        lx, ly = _LEFT + plot_w + 18, _TOP + 12 + 26 * (len(series) + banded)
        out.append(
            f'<text class="note" x="{lx}" y="{ly + 5}" font-size="13" fill="#555">'
            f"{escape(note)}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)


def check_path(path: str | Path) -> Path:
    """The chart's page path, checked before any work: an ``.html`` name in an existing folder."""
    page = Path(path)
    if page.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"chart path must end in .html, got {str(page)!r}")
    if not page.parent.is_dir():
        raise ValueError(f"chart path {str(page)!r}: folder {str(page.parent)!r} does not exist")
    return page


def write(
    path: str | Path,
    series: Series,
    title: str = "NDCG@k",
    conf: float = 0.95,
    note: str = "",
    difference: bool = False,
    first_day: datetime.date | None = None,
) -> list[Path]:
    """Write the chart as an HTML page (``.html``) and the bare ``.svg`` beside it; returns both.

    Each file is written whole to a temporary file beside it, then renamed into place. Points
    (k, mean, ci_low, ci_high) draw their ``conf`` t-interval as a band (see :func:`svg`).

    Example::

        duckdb_ndcg.chart.write("ndcg.html", {"ranker A": [(1, 0.41, 0.38, 0.44), (2, 0.45)]})
    """
    page = check_path(path)
    picture = svg(series, title, conf, note, difference, first_day)
    banded = any(_interval(p) for points in series.values() for p in points)
    band = f" The shaded band is the {interval_label(conf)} of the mean." if banded else ""
    what = "Mean NDCG@k difference" if difference else "Mean NDCG@k"
    _write_text(
        page,
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<title>{escape(title)}</title></head>\n<body style="margin:24px">\n{picture}\n'
        f'<p style="font-family:sans-serif;color:#555">{what} over queries; hover a point '
        f"for its value.{escape(band)} Made by duckdb-ndcg.</p>\n</body></html>\n",
    )
    bare = page.with_suffix(".svg")
    _write_text(bare, picture + "\n")
    return [page, bare]


def _write_text(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
