"""duckdb-ndcg grades --chart: the examination propensity per position (a line per position_bias
method) and each pair's grade against its raw CTR, checked against the oracles' numbers (the
ultr-bias-toolkit and PyClick fixtures) read back from the picture's tooltips, and coordinates
computed by hand."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import duckdb
import pytest
from clicks_data import FIXTURES, ROOT, read_csv

from duckdb_ndcg import cli, clicks_chart

LOG = str(FIXTURES / "log.csv")
CURVE_TIP = re.compile(r"<title>(\w+): position (\d+) = ([\d.]+)</title>")
DOT_TIP = re.compile(r"<title>(\w+) / (\w+): grade ([\d.]+), CTR ([\d.]+) \((\d+) of (\d+), "
                     r"best position (\d+)\)</title>")


def test_known_coordinates() -> None:
    """By hand: positions 1..2 on an x axis 1..2 (steps of 0.1) over 380 px from x = 72;
    propensities 1 and 0.5 on a y axis 0..1 (steps of 0.2) over 336 px from y = 62."""
    assert clicks_chart.nice_axis(0, 0.93) == (0, 1.0, 0.2)
    assert clicks_chart.nice_axis(0, 38.5) == (0, 40.0, 5)
    bias = clicks_chart.Panel("bias", "position", "propensity",
                              {"pivot": [(1.0, 1.0, "a"), (2.0, 0.5, "b")]})
    grades = clicks_chart.Panel("grades", "CTR", "grade", {"g": [(0.5, 0.25, "c")]},
                                lines=False, diagonal=True)
    picture = clicks_chart.svg(bias, grades)
    assert re.findall(r'<polyline class="series" points="([^"]+)"', picture) == [
        "72.0,62.0 452.0,230.0"]
    # the dot at CTR 0.5 (x axis 0..1), grade 0.25 (y axis 0..1); the diagonal from (0, 0) to (1, 1)
    assert '<circle class="dot" cx="262.0" cy="314.0"' in picture
    assert '<line class="diagonal" x1="72.0" y1="398.0" x2="452.0" y2="62.0"' in picture


def test_cli_chart_draws_the_oracles_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's recipe, run on the seeded log."""
    page = tmp_path / "clicks.html"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("duckdb-ndcg grades log.csv --model pbm")
    recipe = readme[start:readme.index("\n", start)].split()[1:]
    assert "--chart" in recipe
    recipe = [{"log.csv": LOG, "clicks.html": str(page)}.get(a, a) for a in recipe]
    assert cli.main([*recipe, "--output", str(tmp_path / "g.csv")]) == 0
    assert f"chart: {page} (and clicks.svg)" in capsys.readouterr().err
    picture = (tmp_path / "clicks.svg").read_text(encoding="utf-8")
    assert picture in page.read_text(encoding="utf-8")
    curves: dict[str, dict[int, float]] = {}
    for method, position, value in CURVE_TIP.findall(picture):
        curves.setdefault(method, {})[int(position)] = float(value)
    ultr = read_csv("ultr_bias.csv")
    for method in ("ctr_ratio", "pivot", "adjacent_chain"):
        assert curves[method] == pytest.approx(
            {int(r["position"]): float(r[method]) for r in ultr}, abs=5e-7), method
    exam = {int(r["position"]): float(r["pbm_exam"]) for r in read_csv("pyclick_exam.csv")}
    assert curves["pbm"] == pytest.approx({p: v / exam[1] for p, v in exam.items()}, abs=5e-7)
    # every pair a dot: PyClick's PBM grade against clicks / impressions counted here
    counts: dict[tuple[str, str], list[int]] = {}
    for r in read_csv("log.csv"):
        c = counts.setdefault((r["query_id"], r["item_id"]), [0, 0, 99])
        c[0], c[1], c[2] = c[0] + int(r["click"]), c[1] + 1, min(c[2], int(r["position"]))
    pbm = {(r["query_id"], r["item_id"]): float(r["pbm"]) for r in read_csv("pyclick_grades.csv")}
    dots = {(q, d): (float(g), float(ctr), int(c), int(n), int(rnk))
            for q, d, g, ctr, c, n, rnk in DOT_TIP.findall(picture)}
    assert dots.keys() == pbm.keys() == counts.keys()
    for key, (grade, ctr, clicks, impressions, rnk) in dots.items():
        assert grade == pytest.approx(pbm[key], abs=5e-7)
        assert (clicks, impressions, rnk) == tuple(counts[key])
        assert ctr == pytest.approx(clicks / impressions, abs=5e-7)


def test_methods_without_a_number_are_named(log: duckdb.DuckDBPyConnection) -> None:
    """SRW's ESCI sample has (query, item, ordinal) with more clicks than impressions, which every
    CTR-based method refuses; and no session_col, which PBM needs: the panel says why each is
    missing instead of drawing nothing silently."""
    log.execute("CREATE OR REPLACE TABLE esci_chart AS SELECT * FROM "
                f"read_csv('{FIXTURES / 'srw_esci_events.csv'}')")
    options = {"query_col": "user_query", "item_col": "object_id", "position_col": "ordinal",
               "session_col": None, "click_col": "click", "action_col": "action_name",
               "time_col": None, "start_date": None, "end_date": None, "max_rank": 20}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        panel = clicks_chart.bias_panel(log, "esci_chart", options)
    assert panel.series == {}
    assert panel.notes == ["ctr_ratio: not drawn", "pivot: not drawn", "adjacent_chain: not drawn",
                           "pbm: needs session_col"]
    assert len(caught) == 3 and all("have more clicks than impressions" in str(w.message)
                                    for w in caught)
    picture = clicks_chart.svg(panel, clicks_chart.Panel("g", "x", "y", {"a": [(0.5, 1.0, "")]}))
    assert "no method gave a number (see the notes)" in picture


def test_chart_path_is_checked_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["grades", LOG, "--chart", "clicks.png"]) == cli.USAGE
    assert "--chart clicks.png: use a .html or .htm file name" in capsys.readouterr().err
