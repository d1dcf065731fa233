"""Confidence bands in the NDCG@k chart: where they are drawn, their coordinates, their label,
and that curve_series' intervals are ndcg_summary's."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import chart, cli

# Two points with intervals. By hand: values and bands span 0.4 .. 0.7, plus 15 % margin ->
# 0.355 .. 0.745, in steps of 0.05 -> axis 0.35 .. 0.75 over 336 px from y = 62, so
# y(v) = 62 + (0.75 - v) / 0.4 * 336; k = 1 and 2 sit at x = 72 and 72 + 518.
KNOWN = {"ranker A": [(1, 0.5, 0.4, 0.6), (2, 0.6, 0.5, 0.7)]}
KNOWN_BAND = "72.0,188.0 590.0,104.0 590.0,272.0 72.0,356.0"


def _bands(picture: str) -> list[str]:
    return re.findall(r'<polygon class="ci-band" points="([^"]+)"', picture)


def test_band_coordinates_for_a_known_case() -> None:
    picture = chart.svg(KNOWN, "t")
    assert _bands(picture) == [KNOWN_BAND]
    assert "<title>ranker A: 95 % t-interval of the mean</title>" in picture
    assert ">shaded: 95 % t-interval</text>" in picture
    assert "ranker A: NDCG@2 = 0.6000 [0.5000, 0.7000] (95 % t-interval)" in picture
    # the band lies under the line: drawn before it
    assert picture.index('class="ci-band"') < picture.index("<polyline")


def test_no_band_where_there_is_no_interval() -> None:
    one_query = {"ranker A": [(1, 0.5, None, None), (2, 0.6, None, None)], "B": [(1, 0.4)]}
    picture = chart.svg(one_query, "t")
    assert "ci-band" not in picture and "t-interval" not in picture
    assert picture.count("<polyline") == 2


def test_band_only_for_the_series_that_have_one() -> None:
    mixed = {**KNOWN, "ranker B": [(1, 0.45, None, None), (2, 0.55, None, None)]}
    picture = chart.svg(mixed, "t")
    assert len(_bands(picture)) == 1 and "ranker B: 95" not in picture


def test_single_point_interval_is_a_bar_and_the_label_follows_conf() -> None:
    picture = chart.svg({"A": [(1, 0.5, 0.4, 0.6)]}, "t", conf=0.9)
    assert re.search(r'<line class="ci-band" x1="72.0" x2="72.0" y1="[\d.]+" y2="[\d.]+"', picture)
    assert "90 % t-interval" in picture and "95 %" not in picture


def test_bands_are_checked() -> None:
    with pytest.raises(ValueError, match="does not hold its mean"):
        chart.svg({"A": [(1, 0.5, 0.6, 0.7)]})
    with pytest.raises(ValueError, match="does not hold its mean"):
        chart.svg({"A": [(1, 0.5, float("nan"), 0.7)]})


def test_bands_outside_0_1_are_clipped_to_the_axis() -> None:
    picture = chart.svg({"A": [(1, 0.05, -0.2, 0.3), (2, 0.1, -0.1, 0.3)]}, "t")
    (band,) = _bands(picture)
    bottom_y = 62 + 336  # the axis starts at 0: its bottom edge
    assert max(float(p.split(",")[1]) for p in band.split()) == pytest.approx(bottom_y)


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        connection.execute(
            "CREATE TABLE shown AS SELECT * FROM (VALUES "
            "('q1', 'a', 1, 'mobile'), ('q1', 'b', 2, 'mobile'), ('q2', 'a', 1, 'mobile'), "
            "('q2', 'b', 2, 'mobile'), ('q3', 'a', 1, 'mobile'), ('q3', 'b', 2, 'mobile'), "
            "('q4', 'a', 1, 'desktop'), ('q4', 'b', 2, 'desktop')) "
            "AS t(query_id, item_id, position, device)"
        )
        connection.execute(
            "CREATE TABLE events AS SELECT * FROM (VALUES ('q1', 'a', 'click'), "
            "('q2', 'b', 'purchase'), ('q3', 'b', 'click'), ('q3', 'a', 'cart'), "
            "('q4', 'b', 'click')) AS t(query_id, item_id, event_type)"
        )
        yield connection


def test_curve_series_intervals_are_ndcg_summarys(con: duckdb.DuckDBPyConnection) -> None:
    report = con.sql(
        "SELECT * FROM ndcg_report('shown', 'events', k := [1, 2], slice_by := ['device'])"
    )
    series = chart.curve_series(report, "device")
    summary = con.execute(
        "SELECT device, k, mean_ndcg, ci_low, ci_high FROM ndcg_summary('shown', 'events', "
        "k := [1, 2], slice_by := ['device'])"
    ).fetchall()
    assert len(summary) == 4
    for device, k, mean, low, high in summary:
        point = next(p for p in series[f"device={device}"] if p[0] == k)
        assert point[1] == pytest.approx(mean, abs=1e-12)
        if device == "desktop":  # one query: no interval
            assert low is None and point[2:] == (None, None)
        else:
            assert 0 < high - low and point[2:] == (
                pytest.approx(low, abs=1e-12),
                pytest.approx(high, abs=1e-12),
            )


def test_cli_chart_draws_bands(
    con: duckdb.DuckDBPyConnection, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("shown", "events"):
        con.execute(f"COPY {name} TO '{tmp_path / name}.csv' (HEADER)")
    page = tmp_path / "c.html"
    args = ["--slice-by", "device", "--k", "2", "--chart", str(page)]
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"), *args])
    assert code == 0, capsys.readouterr().err
    text = page.read_text()
    # mobile has 3 queries: a band; desktop has 1: none
    assert len(_bands(text)) == 1 and "device=mobile: 95 % t-interval of the mean" in text
    assert "device=desktop: 95" not in text
    assert "The shaded band is the 95 % t-interval of the mean." in text


def test_demo_chart_draws_a_band_per_ranker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo", "--queries", "60", "--k", "4", "--chart", "d.html"]) == 0
    text = (tmp_path / "d.html").read_text()
    assert len(_bands(text)) == 2  # ndcg_summary's interval, one band per ranker
    for ranker in ("A", "B"):
        assert f"ranker {ranker}: 95 % t-interval of the mean" in text
    assert (tmp_path / "d.svg").read_text().count('class="ci-band"') == 2
    capsys.readouterr()


# -- issue 20, item 8: a legend that fits, and more slices than a chart can show -------------------


def _rendered_width(text: str, size: float) -> float:
    """The text's width as a font renderer lays it out: matplotlib with DejaVu Sans, the
    sans-serif a browser falls back to where Helvetica and Arial are missing."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(family="DejaVu Sans", size=size)
    return TextToPath().get_text_width_height_descent(text, font, ismath=False)[0]


def _texts_outside(picture: str) -> list[str]:
    """Texts of the legend (start-anchored, right of the plot) that end beyond the viewBox."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(picture)
    width = float(root.get("viewBox").split()[2])
    assert width == float(root.get("width"))
    outside = []
    for text in root.iter("{http://www.w3.org/2000/svg}text"):
        if text.get("text-anchor") or "transform" in text.attrib or float(text.get("x")) < 590:
            continue
        size = float(text.get("font-size", root.get("font-size")))
        if float(text.get("x")) + _rendered_width(text.text, size) > width:
            outside.append(text.text)
    return outside


@pytest.mark.parametrize(
    "names",
    [
        ["ranker A"],  # the shaded entry was the one clipped: 'shaded: 95 % t-in...'
        ["device=mobile", "device=desktop"],
        ["query_class=WWWWWWWWWWWWMMMMMMMM, device=tablet"],
        ["región=España, día=2024-01-01", "語=日本語のテキスト"],
        [f"slice=s{i:02d}" for i in range(12)],
    ],
)
def test_every_legend_text_fits_in_the_picture(names: list[str]) -> None:
    series = {name: [(1, 0.5, 0.4, 0.6), (2, 0.6, 0.5, 0.7)] for name in names}
    picture = chart.svg(series, "t")
    assert ">shaded: 95 % t-interval</text>" in picture
    assert _texts_outside(picture) == []
    noted = chart.svg(series, "t", note="the 12 of 40 slices with the most queries")
    assert _texts_outside(noted) == [] and 'class="note"' in noted


def test_text_width_is_never_below_the_rendered_width() -> None:
    import string

    for text in [string.printable.strip(), "shaded: 95 % t-interval", "ñ日本", "il1 |"]:
        assert chart.text_width(text, 14) >= _rendered_width(text, 14) - 1e-9, text


def test_more_slices_than_the_chart_shows_draws_the_largest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """15 slices: the evaluate result is still written and printed; the chart draws the 12 with
    the most queries and says so, and a warning names how many were left out."""
    rows = ["query_id,item_id,position,shop"]
    events = ["query_id,item_id,event_type"]
    for shop in range(15):
        for q in range(shop + 1):  # shop s has s + 1 queries: shops 0, 1, 2 are the smallest
            rows += [f"s{shop}q{q},a,1,shop{shop:02d}", f"s{shop}q{q},b,2,shop{shop:02d}"]
            events.append(f"s{shop}q{q},{'ab'[q % 2]},click")
    (tmp_path / "shown.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "events.csv").write_text("\n".join(events) + "\n")
    page = tmp_path / "c.html"
    args = ["--slice-by", "shop", "--summary", "--chart", str(page), "--output", "-"]
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"), *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1 + 15  # the summary of every slice
    # (this click-only log also gets the judged-share warning: its unclicked items have no event)
    warned = [line for line in err.splitlines() if "warning" in line and "judged" not in line]
    assert warned == [
        ("duckdb-ndcg evaluate: warning: the chart draws the 12 slices with the most queries of "
        "15: 3 slices (6 queries) are not drawn")
    ]
    text = page.read_text()
    drawn = re.findall(r"<text x=\"[\d.]+\" y=\"[\d.]+\">shop=(shop\d\d)</text>", text)
    assert drawn == [f"shop{s:02d}" for s in range(3, 15)]
    assert "the 12 of 15 slices with the most queries" in text
    assert _texts_outside((tmp_path / "c.svg").read_text()) == []


def test_compare_chart_draws_b_minus_a_per_k_with_its_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """compare --chart: B − A of mean NDCG@k at k = 1..3 with the paired t-interval, checked
    against scipy on the per-query NDCG of each ranker (ndcg_report, tested against trec_eval)."""
    import random

    from scipy import stats

    rng = random.Random(5)
    a, b, events = ["query_id,item_id,position"], ["query_id,item_id,position"], []
    for q in range(30):
        items = [f"i{j}" for j in range(5)]
        rng.shuffle(items)
        a += [f"q{q},{item},{pos}" for pos, item in enumerate(items, 1)]
        rng.shuffle(items)
        b += [f"q{q},{item},{pos}" for pos, item in enumerate(items, 1)]
        events += [f"q{q},{item},{rng.choice(['click', 'purchase'])}" for item in items[:2]]
    (tmp_path / "a.csv").write_text("\n".join(a) + "\n")
    (tmp_path / "b.csv").write_text("\n".join(b) + "\n")
    (tmp_path / "events.csv").write_text("query_id,item_id,event_type\n" + "\n".join(events) + "\n")
    page = tmp_path / "d.html"
    files = [str(tmp_path / name) for name in ("a.csv", "b.csv", "events.csv")]
    code = cli.main(["compare", *files, "--k", "3", "--chart", str(page)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1 and f"chart: {page}" in err  # the verdict, as before
    text = page.read_text()
    tips = {
        int(k): (point, float(low), float(high))
        for k, point, low, high in re.findall(
            r"<title>B − A: NDCG@(\d) = ([+-][\d.]+) \[([-\d.]+), ([-\d.]+)\]", text
        )
    }
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        per_query = {}
        for ranker, path in (("a", files[0]), ("b", files[1])):
            rows = con.execute(
                "SELECT query_id, k, ndcg FROM ndcg_report(?, ?, k := [1, 2, 3])", [path, files[2]]
            ).fetchall()
            per_query[ranker] = {(q, k): v for q, k, v in rows}
    assert sorted(tips) == [1, 2, 3]
    for k in (1, 2, 3):
        diffs = [per_query["b"][q, k] - per_query["a"][q, k] for q in (f"q{i}" for i in range(30))]
        low, high = stats.ttest_1samp(diffs, 0).confidence_interval(0.95)
        point, got_low, got_high = tips[k]
        assert point == f"{sum(diffs) / len(diffs):+.4f}"
        assert (got_low, got_high) == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))
    assert 'class="zero"' in text and "difference of mean NDCG@k" in text
    assert _texts_outside((tmp_path / "d.svg").read_text()) == []


def test_a_slice_by_day_draws_a_trend_over_the_days(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--slice-by day (a DATE column) --chart: x = day (a gap stays a gap), y = mean NDCG@k of the
    day's queries with its t-interval, checked against scipy on the per-query NDCG."""
    from scipy import stats

    days = {"2024-03-01": 4, "2024-03-02": 3, "2024-03-05": 5}  # queries per day; 03-03/04 none
    shown, events, by_day = ["query_id,item_id,position,day"], ["query_id,item_id,event_type"], {}
    for day, n in days.items():
        for q in range(n):
            qid = f"{day}-{q}"
            shown += [f"{qid},a,1,{day}", f"{qid},b,2,{day}", f"{qid},c,3,{day}"]
            hit = "abc"[q % 3]
            events.append(f"{qid},{hit},click")
            # one relevant item at position p: NDCG@3 = 1 / log2(p + 1)
            by_day.setdefault(day, []).append(1 / __import__("math").log2("abc".index(hit) + 2))
    (tmp_path / "shown.csv").write_text("\n".join(shown) + "\n")
    (tmp_path / "events.csv").write_text("\n".join(events) + "\n")
    page = tmp_path / "t.html"
    args = ["--slice-by", "day", "--k", "3", "--summary", "--chart", str(page)]
    code = cli.main(["evaluate", str(tmp_path / "shown.csv"), str(tmp_path / "events.csv"), *args])
    assert code == 0, capsys.readouterr().err
    text = page.read_text()
    tips = re.findall(r"<title>NDCG@3: (\d{4}-\d\d-\d\d) = ([\d.]+) \[([\d.]+), ([\d.]+)\]", text)
    assert [t[0] for t in tips] == list(days)
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', text)[: len(days)]]
    assert (xs[1] - xs[0]) * 3 == pytest.approx(xs[2] - xs[1], abs=0.2)  # 1 day, then 3 days
    for (day, mean, low, high), values in zip(tips, by_day.values(), strict=True):
        want = stats.ttest_1samp(values, 0).confidence_interval(0.95)
        assert float(mean) == pytest.approx(sum(values) / len(values), abs=5e-5)
        assert (float(low), float(high)) == (
            pytest.approx(want.low, abs=5e-5), pytest.approx(want.high, abs=5e-5)
        )
    assert ">day</text>" in text and ">2024-03-01</text>" in text
    assert _texts_outside((tmp_path / "t.svg").read_text()) == []


@pytest.mark.parametrize("slice_col", ["device", "day"])
def test_a_report_with_a_chart_is_computed_once(
    con: duckdb.DuckDBPyConnection,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    slice_col: str,
) -> None:
    """evaluate --chart (per query): one report at k = 1..max(--k), its rows at --k written and
    all of them drawn (the NDCG@k curve, or a trend over days): not a second report for the chart.
    The rows written are those of the same command without --chart."""
    con.execute("ALTER TABLE shown ADD COLUMN day DATE")
    con.execute("UPDATE shown SET day = DATE '2024-03-01' + (query_id[2:]::INTEGER % 2)")
    for name in ("shown", "events"):
        con.execute(f"COPY {name} TO '{tmp_path / name}.csv' (HEADER)")
    calls = []
    real = cli.evaluate

    def counted(*args: object, **kwargs: object) -> duckdb.DuckDBPyRelation:
        calls.append(kwargs["k"])
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "evaluate", counted)
    files = [str(tmp_path / "shown.csv"), str(tmp_path / "events.csv")]
    args = ["--slice-by", slice_col, "--k", "2,1"]
    assert cli.main(["evaluate", *files, *args, "--output", str(tmp_path / "plain.csv")]) == 0
    page = tmp_path / "c.html"
    charted = [*args, "--output", str(tmp_path / "charted.csv"), "--chart", str(page)]
    assert cli.main(["evaluate", *files, *charted]) == 0, capsys.readouterr().err
    assert calls == [[2, 1], [1, 2]]  # the second command: one report, at k = 1..2
    plain, drawn = ((tmp_path / n).read_text() for n in ("plain.csv", "charted.csv"))
    assert drawn == plain and len(plain.splitlines()) == 1 + 4 * 2
    text = page.read_text()
    if slice_col == "device":  # the curve: mean NDCG@1 and @2 per device
        assert "device=mobile" in text and "device=desktop" in text
    else:  # the trend at the largest k: one point per day
        assert len(re.findall(r"<title>NDCG@2: 2024-03-0[12] = ", text)) == 2


def test_a_summary_with_a_chart_is_computed_once(
    con: duckdb.DuckDBPyConnection,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """evaluate --summary --chart: one summary at k = 1..max(--k), its rows at --k written and
    its means and intervals drawn, not a per-query report of the log a second time. The rows
    are those of the same command without --chart, the chart that of the per-query command's."""
    for name in ("shown", "events"):
        con.execute(f"COPY {name} TO '{tmp_path / name}.csv' (HEADER)")
    calls = []
    real = cli.evaluate

    def counted(*args: object, **kwargs: object) -> duckdb.DuckDBPyRelation:
        calls.append((kwargs["k"], kwargs.get("shape")))
        return real(*args, **kwargs)

    monkeypatch.setattr(cli, "evaluate", counted)
    files = [str(tmp_path / "shown.csv"), str(tmp_path / "events.csv")]
    args = ["--slice-by", "device", "--k", "2,1"]
    plain, summed = tmp_path / "plain.csv", tmp_path / "summed.csv"
    assert cli.main(["evaluate", *files, *args, "--summary", "--output", str(plain)]) == 0
    calls.clear()
    assert cli.main(["evaluate", *files, *args, "--summary", "--output", str(summed),
                     "--chart", str(tmp_path / "s.html")]) == 0, capsys.readouterr().err
    assert calls == [([1, 2], "summary")]  # one summary, at k = 1..2
    # the same rows; a mean or interval may differ in its last bit (the sums' order follows the
    # threads and the cutoffs computed together)
    rows = [list(csv.reader(path.open())) for path in (summed, plain)]
    assert len(rows[1]) == 5 and rows[0][0] == rows[1][0]
    for got, want in zip(rows[0][1:], rows[1][1:], strict=True):
        assert [_number(v) for v in got] == [_number(v, exact=True) for v in want]
    assert cli.main(["evaluate", *files, *args, "--output", str(tmp_path / "q.csv"),
                     "--chart", str(tmp_path / "q.html")]) == 0
    assert (tmp_path / "s.svg").read_text() == (tmp_path / "q.svg").read_text()


def _number(text: str, exact: bool = False) -> object:
    """A CSV cell: a number (to 1e-12 unless ``exact``: pytest.approx), or the text itself."""
    try:
        value = float(text)
    except ValueError:
        return text
    return value if exact else pytest.approx(value, abs=1e-12)
