"""duckdb-ndcg evaluate --measures: measure strings on an event log (event_measures: the event
log judged as the report judges it, scored by measures_report); per-query values equal
ir_measures 0.4.3's (pytrec_eval) on the same grades (the default mapping: impression 0, click 1,
add_to_cart 2, purchase 3) and positions, items without an event unjudged."""

from __future__ import annotations

import csv

import ir_measures
import pytest

from duckdb_ndcg import cli

SHOWN = [("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 3), ("q1", "d", 4), ("q1", "f", 5),
         ("q2", "x", 1), ("q2", "y", 2), ("q2", "z", 3), ("q3", "m", 1), ("q3", "n", 2)]
EVENTS = [("q1", "b", "click"), ("q1", "d", "purchase"), ("q1", "e", "click"),
          ("q2", "x", "add_to_cart"), ("q2", "y", "impression"), ("q2", "y", "click"),
          ("q3", "m", "impression")]
GRADES = {"impression": 0, "click": 1, "add_to_cart": 2, "purchase": 3}
MEASURES = ("nDCG@3 P(rel=2)@2 RR AP Rprec R@3 Success@1 nDCG MAP@2 Bpref NumRet NumRel "
            "NumRelRet Judged@2 AP(judged_only=True) P@5")


def _files(tmp_path):
    shown, events = tmp_path / "shown.csv", tmp_path / "events.csv"
    with shown.open("w", newline="") as f:
        csv.writer(f).writerows([("query_id", "item_id", "position"), *SHOWN])
    with events.open("w", newline="") as f:
        csv.writer(f).writerows([("query_id", "item_id", "event_type"), *EVENTS])
    return shown, events


def _oracle() -> dict[tuple[str, str], float]:
    qrels: dict[str, dict[str, int]] = {}
    for q, item, event in EVENTS:  # collapse 'max': an item's best event
        qrels.setdefault(q, {})[item] = max(qrels.get(q, {}).get(item, 0), GRADES[event])
    run = {}
    for q, item, position in SHOWN:
        run.setdefault(q, {})[item] = -float(position)
    measures = [ir_measures.parse_measure(m) for m in MEASURES.split()]
    # named providers (iter_calc's choice can change with what is imported): Judged from
    # ir_measures' own, the rest from pytrec_eval
    judged = [m for m in measures if str(m).startswith("Judged")]
    return {(r.query_id, repr(r.measure)): r.value
            for provider, chosen in ((ir_measures.judged, judged),
                                     (ir_measures.pytrec_eval,
                                      [m for m in measures if m not in judged]))
            for r in provider.iter_calc(chosen, qrels, run)}


def test_per_query_and_summary_match_ir_measures(tmp_path, capsys) -> None:
    shown, events = _files(tmp_path)
    out = tmp_path / "out.csv"
    assert cli.main(["evaluate", str(shown), str(events), "--measures", MEASURES,
                     "--output", str(out)]) == 0
    with out.open() as f:
        rows = list(csv.DictReader(f))
    mine = {(r["query_id"], r["measure"]): float(r["value"]) for r in rows}
    theirs = _oracle()
    labels = {"MAP@2": "AP@2"}
    assert len(mine) == 3 * len(MEASURES.split())
    for (q, measure), value in theirs.items():
        label = labels.get(measure, measure)
        assert mine[q, label] == pytest.approx(value, abs=1e-9), (q, label)
    # the summary: the mean over the 3 queries, NumRet the sum
    assert cli.main(["evaluate", str(shown), str(events), "--measures", "nDCG@3 NumRet",
                     "--summary", "--output", "-", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    means = {line.split(",")[0]: float(line.split(",")[1]) for line in lines[1:]}
    assert lines[0] == "measure,value,queries" and len(lines) == 3
    expected = sum(v for (q, m), v in theirs.items() if m == "nDCG@3") / 3
    assert means["nDCG@3"] == pytest.approx(expected, abs=1e-12)
    assert means["NumRet"] == len(SHOWN) == sum(v for (q, m), v in theirs.items() if m == "NumRet")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--measures", "NumRet", "--k", "5"], ["drop --k"]),
        (["--measures", "RR", "--gain", "exponential"], ["drop --gain exponential"]),
        (["--measures", "RR", "--allow-duplicates"], ["drop --allow-duplicates"]),
        (["--measures", "nDCG@0"], ["--measures:", "'nDCG@0'", "cutoff"]),
        (["--measures", "nDGC@10"], ["unknown measure 'nDGC@10'", "nDCG"]),
        (["--measures", "RR", "--metrics", "recall_at_k"], ["drop --metrics"]),
    ],
)
def test_bad_measures_are_usage_errors(tmp_path, capsys, extra, words) -> None:
    shown, events = _files(tmp_path)
    assert cli.main(["evaluate", str(shown), str(events), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for word in words:
        assert word in err, err
