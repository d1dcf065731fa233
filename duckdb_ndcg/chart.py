"""The NDCG@k curve as a self-contained picture: inline SVG in an HTML page, no server, no scripts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

import duckdb

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_W, _H = 720, 440
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 170, 50, 60

Series = Mapping[str, Sequence[tuple[int, float]]]


def curve_series(
    relation: duckdb.DuckDBPyRelation, label_col: str | None = None
) -> dict[str, list[tuple[int, float]]]:
    """Mean NDCG per k (and per ``label_col``) from an ``ndcg_report`` relation, for :func:`svg`."""
    label = f'"{label_col}"::VARCHAR' if label_col else "'all queries'"
    if label_col is not None and label_col not in relation.columns:
        raise ValueError(f"label_col {label_col!r} is not a column of the report")
    rows = relation.aggregate(f"{label} AS label, k, avg(ndcg) AS mean_ndcg", "ALL").order(
        "label, k"
    ).fetchall()
    series: dict[str, list[tuple[int, float]]] = {}
    for name, k, value in rows:
        if k is not None:
            series.setdefault(str(name), []).append((int(k), float(value)))
    return series


def svg(series: Series, title: str = "NDCG@k") -> str:
    """An SVG line chart: x = cutoff k, y = mean NDCG@k in [0, 1], one line per series."""
    if not series or not any(series.values()):
        raise ValueError("series must hold at least one (k, ndcg) point")
    max_k = max(k for points in series.values() for k, _ in points)
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x(k: float) -> float:
        return _LEFT + (k - 1) / max(max_k - 1, 1) * plot_w

    def y(v: float) -> float:
        return _TOP + (1 - v) * plot_h

    out = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
         f'viewBox="0 0 {_W} {_H}" font-family="Helvetica, Arial, sans-serif" font-size="13">'),
        f'<rect width="{_W}" height="{_H}" fill="white"/>',
        (f'<text x="{_W / 2 - _RIGHT / 2}" y="28" text-anchor="middle" font-size="17" '
         f'font-weight="bold">{escape(title)}</text>'),
    ]
    for tick in range(11):
        v = tick / 10
        out.append(f'<line x1="{_LEFT}" x2="{_LEFT + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#e5e5e5"/>')
        out.append(f'<text x="{_LEFT - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    step = max(1, round(max_k / 10))
    for k in range(1, max_k + 1, step):
        out.append(f'<line x1="{x(k):.1f}" x2="{x(k):.1f}" y1="{_TOP + plot_h}" '
                   f'y2="{_TOP + plot_h + 5}" stroke="#333"/>')
        out.append(f'<text x="{x(k):.1f}" y="{_TOP + plot_h + 20}" text-anchor="middle">{k}</text>')
    out.append(f'<rect x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
               f'stroke="#333"/>')
    out.append(f'<text x="{_LEFT + plot_w / 2}" y="{_H - 15}" text-anchor="middle">'
               "cutoff k (items looked at)</text>")
    out.append(f'<text transform="translate(20 {_TOP + plot_h / 2}) rotate(-90)" '
               'text-anchor="middle">mean NDCG@k</text>')
    for i, (name, points) in enumerate(series.items()):
        color = _COLORS[i % len(_COLORS)]
        ordered = sorted(points)
        path = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in ordered)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.5"/>')
        for k, v in ordered:
            out.append(f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="3.5" fill="{color}">'
                       f"<title>{escape(name)}: NDCG@{k} = {v:.4f}</title></circle>")
        ly = _TOP + 10 + 24 * i
        out.append(f'<line x1="{_W - _RIGHT + 15}" x2="{_W - _RIGHT + 40}" y1="{ly}" y2="{ly}" '
                   f'stroke="{color}" stroke-width="3"/>')
        out.append(f'<text x="{_W - _RIGHT + 46}" y="{ly + 4}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def write(path: str | Path, series: Series, title: str = "NDCG@k") -> list[Path]:
    """Write the chart as an HTML page (``.html``) and the bare ``.svg`` beside it; returns both.

    Example::

        duckdb_ndcg.chart.write("ndcg.html", {"ranker A": [(1, 0.41), (2, 0.45)]})
    """
    page = Path(path)
    if page.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"chart path must end in .html, got {str(page)!r}")
    picture = svg(series, title)
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}</title></head>\n<body style=\"margin:24px\">\n{picture}\n"
        "<p style=\"font-family:sans-serif;color:#555\">Mean NDCG@k over queries; hover a point "
        "for its value. Made by duckdb-ndcg.</p>\n</body></html>\n",
        encoding="utf-8",
    )
    bare = page.with_suffix(".svg")
    bare.write_text(picture + "\n", encoding="utf-8")
    return [page, bare]
