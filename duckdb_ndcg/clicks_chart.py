"""The click log as a picture: how likely each position is looked at (``position_bias``, a line per
method) beside each (query, item)'s grade against its raw CTR (``click_grades``), in one SVG drawn
with the chart module's marks and written as it writes the NDCG@k curve (an .html page and the
bare .svg beside it)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

import duckdb

from duckdb_ndcg import chart
from duckdb_ndcg.chart import _COLORS, _DASHES, _MARKERS, _marker, _write_text, text_width
from duckdb_ndcg.conventions import MACROS

METHODS = MACROS["position_bias"].param("method").choices
MAX_DOTS = 2000  # more dots than this blot each other out: those of the most impressions are drawn
_NICE = (1, 2, 2.5, 5)
_PANEL_H, _LEFT, _TOP, _BOTTOM, _PLOT_W = 460, 72, 62, 62, 380
# (x, y, tooltip)
Dot = tuple[float, float, str]


@dataclass
class Panel:
    """One plot: series of points by label, drawn as lines (``lines``) or as dots; ``diagonal``
    draws y = x (the grade a raw CTR would give)."""

    title: str
    x_title: str
    y_title: str
    series: Mapping[str, Sequence[Dot]]
    lines: bool = True
    diagonal: bool = False
    notes: list[str] = field(default_factory=list)


def nice_axis(low: float, high: float, ticks: int = 8) -> tuple[float, float, float]:
    """(bottom, top, step) of an axis holding [low, high]: a step of 1, 2, 2.5 or 5 × 10^n with at
    most ``ticks`` steps, the ends on whole steps."""
    if not (math.isfinite(low) and math.isfinite(high)) or high < low:
        raise ValueError(f"an axis needs finite low <= high, got {low}, {high}")
    span = max(high - low, 1e-9)
    magnitude = 10 ** math.floor(math.log10(span / ticks))
    for step in (n * magnitude * scale for scale in (1, 10) for n in _NICE):
        bottom = math.floor(round(low / step, 9)) * step
        top = math.ceil(round(high / step, 9)) * step
        if top > bottom and (top - bottom) / step <= ticks:
            return round(bottom, 9), round(top, 9), step
    raise AssertionError("unreachable: a step of 10 × the span's magnitude always fits")


def _number(v: float, step: float) -> str:
    digits = next((d for d in range(7) if abs(step * 10**d - round(step * 10**d)) < 1e-9), 6)
    return f"{v:.{digits}f}"


def _panel(panel: Panel, x_range: tuple[float, float], y_range: tuple[float, float]) -> tuple[
    list[str], float
]:
    """The panel's SVG elements in its own coordinates (0, 0 its top left) and its width."""
    x_lo, x_hi, x_step = nice_axis(*x_range, ticks=10)
    y_lo, y_hi, y_step = nice_axis(*y_range)
    plot_h = _PANEL_H - _TOP - _BOTTOM
    legend = [*panel.series, *(["grade = raw CTR"] if panel.diagonal else [])]
    text_x = _LEFT + _PLOT_W + 18 + 44
    right = max([text_x + text_width(t) for t in legend]
                + [text_x - 44 + text_width(n, 13) for n in panel.notes])
    width = math.ceil(right + 16)

    def x(v: float) -> float:
        return _LEFT + (v - x_lo) / (x_hi - x_lo) * _PLOT_W

    def y(v: float) -> float:
        return _TOP + (y_hi - v) / (y_hi - y_lo) * plot_h

    out = [
        (f'<text x="{_LEFT + _PLOT_W / 2}" y="28" text-anchor="middle" font-size="18" '
        f'font-weight="bold">{escape(panel.title)}</text>')
    ]
    for i in range(round((y_hi - y_lo) / y_step) + 1):
        v = y_lo + i * y_step
        out += [
            (f'<line x1="{_LEFT}" x2="{_LEFT + _PLOT_W}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            'stroke="#e5e5e5"/>'),
            (f'<text x="{_LEFT - 9}" y="{y(v) + 5:.1f}" text-anchor="end">'
            f"{_number(v, y_step)}</text>"),
        ]
    for i in range(round((x_hi - x_lo) / x_step) + 1):
        v = x_lo + i * x_step
        out += [
            (f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{_TOP + plot_h}" y2="{_TOP + plot_h + 5}" '
            'stroke="#333"/>'),
            (f'<text x="{x(v):.1f}" y="{_TOP + plot_h + 21}" text-anchor="middle">'
            f"{_number(v, x_step)}</text>"),
        ]
    out += [
        (f'<rect x="{_LEFT}" y="{_TOP}" width="{_PLOT_W}" height="{plot_h}" fill="none" '
        'stroke="#333"/>'),
        (f'<text x="{_LEFT + _PLOT_W / 2}" y="{_PANEL_H - 14}" text-anchor="middle">'
        f"{escape(panel.x_title)}</text>"),
        (f'<text transform="translate(20 {_TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
        f"{escape(panel.y_title)}</text>"),
    ]
    row = 0
    if not panel.series:
        out.append(f'<text x="{_LEFT + _PLOT_W / 2}" y="{_TOP + plot_h / 2}" text-anchor="middle" '
                   'fill="#555">no method gave a number (see the notes)</text>')
    if panel.diagonal:
        low, high = max(x_lo, y_lo), min(x_hi, y_hi)
        if low < high:
            out.append(f'<line class="diagonal" x1="{x(low):.1f}" y1="{y(low):.1f}" '
                       f'x2="{x(high):.1f}" y2="{y(high):.1f}" stroke="#777" '
                       'stroke-dasharray="5 4"/>')
    for i, (name, points) in enumerate(panel.series.items()):
        color, dash, shape = (_COLORS[i % len(_COLORS)], _DASHES[i % len(_DASHES)],
                              _MARKERS[i % len(_MARKERS)])
        dashed = f' stroke-dasharray="{dash}"' if dash and panel.lines else ""
        if panel.lines:
            path = " ".join(f"{x(px):.1f},{y(py):.1f}" for px, py, _ in sorted(points))
            out.append(f'<polyline class="series" points="{path}" fill="none" stroke="{color}" '
                       f'stroke-width="2.5"{dashed}/>')
            out += [_marker(shape, x(px), y(py), color, tip) for px, py, tip in points]
        else:
            out += [f'<circle class="dot" cx="{x(px):.1f}" cy="{y(py):.1f}" r="3" fill="{color}" '
                    f'fill-opacity="0.6"><title>{escape(tip)}</title></circle>'
                    for px, py, tip in points]
        lx, ly = _LEFT + _PLOT_W + 18, _TOP + 12 + 26 * row
        if panel.lines:
            out.append(f'<line x1="{lx}" x2="{lx + 36}" y1="{ly}" y2="{ly}" stroke="{color}" '
                       f'stroke-width="2.5"{dashed}/>')
        out.append(_marker(shape if panel.lines else "circle", lx + 18, ly, color))
        out.append(f'<text x="{lx + 44}" y="{ly + 5}">{escape(name)}</text>')
        row += 1
    if panel.diagonal:
        lx, ly = _LEFT + _PLOT_W + 18, _TOP + 12 + 26 * row
        out += [(f'<line x1="{lx}" x2="{lx + 36}" y1="{ly}" y2="{ly}" stroke="#777" '
                'stroke-dasharray="5 4"/>'),
                f'<text x="{lx + 44}" y="{ly + 5}">grade = raw CTR</text>']
        row += 1
    for note in panel.notes:
        lx, ly = _LEFT + _PLOT_W + 18, _TOP + 12 + 26 * row
        out.append(f'<text class="note" x="{lx}" y="{ly + 5}" font-size="13" fill="#555">'
                   f"{escape(note)}</text>")
        row += 1
    return out, width


def svg(bias: Panel, grades: Panel) -> str:
    """The two panels side by side: the propensity per position (lines; y from 0, x the logged
    positions) and the grades against raw CTR (dots; x the CTR in [0, 1], y from 0)."""
    curve = [p for points in bias.series.values() for p in points]
    dots = [p for points in grades.series.values() for p in points]
    parts, x0 = [], 0.0
    for panel, points, from_zero in ((bias, curve, False), (grades, dots, True)):
        if not points and not panel.notes:
            raise ValueError(f"the {panel.title!r} panel has no point to draw")
        xs, ys = [p[0] for p in points] or [0.0], [p[1] for p in points] or [0.0]
        if not all(math.isfinite(v) for v in xs + ys):
            raise ValueError(f"the {panel.title!r} panel has a value that is not a number")
        # a CTR above 1 (an event log with more clicks than impressions, SRW's rule) widens the axis
        x_range = (0.0, max(*xs, 1.0)) if from_zero else (min(xs), max(max(xs), min(xs) + 1))
        elements, width = _panel(panel, x_range, (0.0, max(max(ys), 1.0)))
        parts.append(f'<g transform="translate({x0:.0f} 0)">\n' + "\n".join(elements) + "\n</g>")
        x0 += width
    width = math.ceil(x0)
    return "\n".join([
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{_PANEL_H}" '
        f'viewBox="0 0 {width} {_PANEL_H}" font-family="Helvetica, Arial, sans-serif" '
        'font-size="14">'),
        f'<rect width="{width}" height="{_PANEL_H}" fill="white"/>',
        *parts,
        "</svg>",
    ])


def bias_panel(
    con: duckdb.DuckDBPyConnection, events: str, options: Mapping[str, object]
) -> Panel:
    """position_bias of ``events`` (a name query_table reads) by every method the log allows
    (``'pbm'`` needs session_col): a line per method over the positions with a number. A method
    that fails (its error) or leaves positions without a number (position_bias' note) says so in
    the panel's notes, and as a warning."""
    log_options = {name: options[name] for name in (p.name for p in
                   MACROS["position_bias"].params[2:])}
    arguments = ", ".join(f"{name} := ?" for name in log_options)
    series: dict[str, list[Dot]] = {}
    notes = []
    for method in METHODS:
        if method == "pbm" and options.get("session_col") is None:
            notes.append("pbm: needs session_col")
            continue
        try:
            rows = con.execute(
                f"SELECT position, propensity, note FROM position_bias(?, method := ?, "
                f"{arguments})", [events, method, *log_options.values()]).fetchall()
        except duckdb.InterruptException:
            raise
        except duckdb.Error as error:
            reason = str(error).split("duckdb_ndcg: ", 1)[-1].splitlines()[0]
            notes.append(f"{method}: not drawn")
            warnings.warn(f"chart: position_bias(method := '{method}') not drawn: {reason}",
                          UserWarning, stacklevel=2)
            continue
        points = [(float(p), float(v), f"{method}: position {p} = {v:.6f}")
                  for p, v, _ in rows if v is not None]
        missing = [(p, why) for p, v, why in rows if v is None]
        if points:
            series[method] = points
        if missing:
            notes.append(f"{method}: no number at {len(missing)} positions")
            warnings.warn(f"chart: position_bias(method := '{method}') has no number at "
                          f"{len(missing)} positions (position {missing[0][0]}: {missing[0][1]})",
                          UserWarning, stacklevel=2)
    return Panel("examination by position", "position", "propensity (1 at the top position)",
                 series, notes=notes)


def grades_panel(relation: duckdb.DuckDBPyRelation, model: str) -> Panel:
    """click_grades' rows as dots at (raw CTR = clicks / impressions, grade), coloured by the
    item's best (lowest) logged position (the top one, the next two, further down); pairs without
    impressions have no CTR and are not drawn. At most ``MAX_DOTS``, those of the most
    impressions (a note says how many are drawn)."""
    rows = relation.filter("impressions > 0 AND rel IS NOT NULL").order(
        "impressions DESC, query_id, item_id").select(
        "query_id, item_id, rel, rnk, impressions, clicks, min(rnk) OVER () AS top").fetchall()
    groups: dict[str, list[Dot]] = {}
    for q, d, rel, rnk, impressions, clicks, top in rows[:MAX_DOTS]:
        name = (f"best position {top}" if rnk == top else
                f"best position {top + 1}-{top + 2}" if rnk <= top + 2 else
                f"best position > {top + 2}")
        tip = (f"{q} / {d}: grade {rel:.6f}, CTR {clicks / impressions:.6f} ({clicks} of "
               f"{impressions}, best position {rnk})")
        groups.setdefault(name, []).append((clicks / impressions, float(rel), tip))
    order = sorted(groups, key=lambda n: (">" in n, "-" in n))
    notes = [f"{MAX_DOTS} of {len(rows)} pairs drawn (most impressions)"] if len(
        rows) > MAX_DOTS else []
    return Panel(f"grades ({model}) against raw CTR", "raw CTR (clicks / impressions)",
                 f"grade ({model})", {n: groups[n] for n in order if n in groups}, lines=False,
                 diagonal=True, notes=notes)


def write(path: str | Path, bias: Panel, grades: Panel) -> list[Path]:
    """The picture as an .html page and the bare .svg beside it (as chart.write); returns both."""
    page = chart.check_path(path)
    picture = svg(bias, grades)
    _write_text(page, '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                "<title>click log: position bias and grades</title></head>\n"
                f'<body style="margin:24px">\n{picture}\n<p style="font-family:sans-serif;'
                'color:#555">Left: how likely each position is looked at, relative to the top '
                "one, by each method of position_bias. Right: each (query, item)'s grade against "
                "its raw click-through rate; above the dashed line the model credits an item "
                "more than its clicks alone. Hover a point for its value. Made by duckdb-ndcg."
                "</p>\n</body></html>\n")
    bare = page.with_suffix(".svg")
    _write_text(bare, picture + "\n")
    return [page, bare]
