"""No quadratic corners (issue 11, part 5): long rankings with averaged ties stay O(n log n).

A tie group's positions used to be found by searching the rank keys once per gained row
(list_position), so one ranking of 100,000 rows took 361 s at full depth and the report with
k := NULL 60 s on 40,000 rows; err took 3.7 s (2.0) to 11 s (1.5) on one tie group of 100,000 rows
and 1.0 to 2.9 s on groups of 1,000.

Growth, not seconds (a busy shared machine inflates CPU time too: a bound of 0.75 s per query
failed under load): each metric runs once on one ranking of 100,000 rows and once on 20 rankings
of 5,000 rows of the same shape (one query, GROUP BY), the same rows in all. Work linear (or
n log n) in a ranking's length costs about the same both ways, whatever the binding costs; work
quadratic in it costs up to 20 times more on the one long ranking. Times are CPU seconds of this
process (DuckDB's threads included), both sides measured in turn, so a busy machine slows both.
The seconds themselves are benchmarks/ties_full_depth.py's (benchmarks/results/ties_full_depth.md).
The check catches the old corners, re-introduced locally on 20,000 rows (20 parts of 1,000): the
search per row at every length (the 361 s one) gave dcg 18.95 s against 0.50 s; err keeping every
slot of a group (no drop of the far ones) 30.27 s against 2.10 s, on the busy machine.

Values: every metric on one ranking of 20,000 rows, grades 0-3, with its default ties :=
'average', at full depth and at k = 10,000, on three shapes of ties: 5,000 distinct rank keys
(groups of about 4, and more than the 512 keys where the long path starts), 100 (groups of about
200) and 1 (one tie group of every row), against an independent computation where there is one.
The report's check: 25,000 and 200,000 rows of one query must grow about linearly (on DuckDB 1.4
and 1.5 a window count with a FILTER took 24 s at 200,000).
"""

from __future__ import annotations

import decimal
import functools
import math
import resource
from functools import cache

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import dcg_score, ndcg_score

ROWS = 20_000  # the values' ranking (see the module docstring)
SHAPES = [5_000, 100, 1]  # distinct rank keys


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _one_ranking(n: int, distinct: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "item_id": np.arange(n),
            "rel": rng.integers(0, 4, n).astype(float),
            "rnk": rng.integers(0, distinct, n).astype(float),
        }
    )


@cache
def _ranking(distinct: int) -> pd.DataFrame:
    return _one_ranking(ROWS, distinct, seed=11)


def _groups(frame: pd.DataFrame, marked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each tie group in rank order: first position s, size n, marked rows c."""
    keys, inverse = np.unique(frame.rnk.to_numpy(), return_inverse=True)
    sizes = np.bincount(inverse, minlength=len(keys))
    counts = np.bincount(inverse, weights=marked.astype(float), minlength=len(keys))
    starts = np.concatenate([[1], 1 + np.cumsum(sizes)[:-1]])
    return starts, sizes, counts


def _expected_hits(frame: pd.DataFrame, marked: np.ndarray, k: int) -> float:
    """Expected marked rows among the first k positions, every tie group in random order."""
    s, n, c = _groups(frame, marked)
    return float(np.sum(c * np.clip(k - s + 1, 0, n) / n))


def _expected_err(frame: pd.DataFrame, k: int | None, max_grade: int = 4) -> float:
    """ERR with every tie group in a uniformly random order, by numpy: per group the mean
    product of t = 1 - R over a random j-subset (ebar_j, one stop row at a time from the zeros'
    ebar_j = [j <= zeros]), kept to slot ceil(84 / mean R), where it is below e^-84 (twice the
    macro's margin), and the groups after a product below 1e-30 left out."""
    rel, rnk = frame.rel.to_numpy(), frame.rnk.to_numpy()
    cut = len(rel) if k is None else k
    total, survive = 0.0, 1.0
    for key in np.unique(rnk):
        s = int(np.sum(rnk < key)) + 1
        if s > cut or survive < 1e-30:
            break
        t = 1.0 - (2.0 ** rel[rnk == key] - 1.0) / 2.0**max_grade
        n, stops = len(t), np.sort(t[t < 1.0])
        w = min(n, cut - s + 1)
        mean_r = float(np.sum(1.0 - stops)) / n
        u = w if mean_r * w <= 84 else min(w, math.ceil(84 / mean_r))
        j = np.arange(u + 1, dtype=float)
        e = (j <= n - len(stops)).astype(float)
        rows = n - len(stops)
        for x in stops:
            e[1:] = ((rows + 1 - j[1:]) * e[1:] + j[1:] * x * e[:-1]) / (rows + 1)
            rows += 1
        total += survive * float(np.sum((e[:-1] - e[1:]) / (s + j[:-1])))
        survive = survive * e[-1] if u == n else 0.0
    return total


def _expected_ap_retrieved(frame: pd.DataFrame, k: int) -> float:
    """Average precision over the relevant retrieved at k, one tie group of all rows straddling
    k: over every possible count x of relevant rows before the cut (the macro keeps those within
    sqrt(21 min(w, n - w)) of the mean), hypergeometric weights as running products of
    P(x) / P(x - 1) in 40-digit decimals, times the expected precision sum given x over x."""
    n, c = len(frame), int(np.sum(frame.rel.to_numpy() >= 1))
    h = math.fsum(1 / q for q in range(1, k + 1))  # sum_u 1 / (1 + u) over the k slots
    hb = math.fsum(u / (1 + u) for u in range(k))  # sum_u u / (1 + u)
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        weight, weights, total = decimal.Decimal(1), decimal.Decimal(0), decimal.Decimal(0)
        for x in range(max(0, k - (n - c)), min(c, k) + 1):
            if x > max(0, k - (n - c)):
                weight *= decimal.Decimal((c - x + 1) * (k - x + 1)) / (x * (n - c - k + x))
            weights += weight
            if x > 0:
                total += weight * decimal.Decimal((h + (x - 1.0) / (k - 1) * hb) / k)
        return float(total / weights)


# name -> SQL; {k} the cutoff (NULL or 50000); the metrics without a cutoff run once
METRICS = {
    "ndcg": "ndcg(rel, rnk, {k})",
    "dcg": "dcg(rel, rnk, {k})",
    "idcg": "idcg(rel, {k})",
    "cg": "cg(rel, rnk, {k})",
    "precision_at_k": "precision_at_k(rel, rnk, {k})",
    "recall_at_k": "recall_at_k(rel, rnk, {k})",
    "f1_at_k": "f1_at_k(rel, rnk, {k})",
    "hit_rate": "hit_rate(rel, rnk, {k})",
    "reciprocal_rank": "reciprocal_rank(rel, rnk, {k})",
    "ap_relevant": "average_precision(rel, rnk, {k})",
    "ap_min_k": "average_precision(rel, rnk, {k}, denominator := 'min_k')",
    "ap_retrieved": "average_precision(rel, rnk, {k}, denominator := 'retrieved')",
    "r_precision": "r_precision(rel, rnk)",
    "bpref": "bpref(rel, rnk)",
    "rbp": "rbp(rel, rnk, k := {k})",
    "rbp_residual": "rbp_residual(rel, rnk, k := {k})",
    "judged_at_k": "judged_at_k(rel, rnk, {k})",
    "err": "err(rel, rnk, {k})",
    "err_max_grade_3": "err(rel, rnk, {k}, max_grade := 3)",
    "err_grades_1_4": "err(rel + 1, rnk, {k})",
}


def _oracle(name: str, frame: pd.DataFrame, k: int | None) -> float | None:
    """The value a metric must have, where an independent computation is at hand."""
    cut = len(frame) if k is None else k
    y_true, y_score = np.array([frame.rel]), -np.array([frame.rnk])
    relevant = frame.rel.to_numpy() >= 1
    if name == "ndcg":
        return ndcg_score(y_true, y_score, k=k)
    if name == "dcg":
        return dcg_score(y_true, y_score, k=k)
    if name == "idcg":
        return dcg_score(y_true, y_true, k=k)
    if name == "cg":
        return _expected_hits(frame, frame.rel.to_numpy(), cut)
    if name == "precision_at_k":
        return _expected_hits(frame, relevant, cut) / cut
    if name == "recall_at_k":
        return _expected_hits(frame, relevant, cut) / relevant.sum()
    if name == "f1_at_k":
        return 2 * _expected_hits(frame, relevant, cut) / (cut + relevant.sum())
    if name == "r_precision":
        return _expected_hits(frame, relevant, int(relevant.sum())) / relevant.sum()
    if name == "judged_at_k":
        return 1.0
    if name == "err":
        return _expected_err(frame, k)
    if name == "err_max_grade_3":
        return _expected_err(frame, k, max_grade=3)
    if name == "err_grades_1_4":
        return _expected_err(frame.assign(rel=frame.rel + 1), k)
    if name == "ap_retrieved" and frame.rnk.nunique() == 1 and k is not None:
        return _expected_ap_retrieved(frame, k)
    return None


def _check_metric(con, name: str, frame: pd.DataFrame) -> None:
    for k in [None] if "{k}" not in METRICS[name] else [None, ROWS // 2]:
        sql = METRICS[name].format(k="NULL" if k is None else k)
        (value,) = con.execute(f"SELECT {sql} FROM t").fetchall()[0]
        expected = _oracle(name, frame, k)
        if expected is not None:
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-12), sql
        elif name not in ("dcg", "idcg", "cg"):
            assert 0.0 <= value <= 1.0, sql


@pytest.mark.parametrize("distinct", SHAPES)
def test_every_metric_on_twenty_thousand_tied_rows(con, check_cases, distinct: int) -> None:
    """One ranking of 20,000 rows, grades 0-3, rank keys of `distinct` values, at full depth and
    at k = 10,000: the value of an independent computation where there is one (scikit-learn,
    numpy expectations over the tie groups). Every metric of METRICS is a case."""
    frame = _ranking(distinct)
    con.register("t", frame)
    count = check_cases(
        (name, functools.partial(_check_metric, con, name, frame)) for name in METRICS
    )
    assert count == len(METRICS)


def test_list_forms_on_twenty_thousand_rows(con) -> None:
    """The list forms have no ties: one list of 20,000 grades, scikit-learn's values."""
    frame = _ranking(5_000).sort_values(["rnk", "item_id"])
    con.register("t", frame)
    con.execute("CREATE TABLE l AS SELECT list(rel ORDER BY rnk, item_id) AS rels FROM t")
    y_true, y_score = np.array([frame.rel]), -np.arange(len(frame))[None, :]
    for k in [None, ROWS // 2]:
        cut = "NULL" if k is None else str(k)
        got = con.execute(
            f"SELECT list_ndcg(rels, {cut}), list_dcg(rels, {cut}), list_idcg(rels, {cut}), "
            f"list_cg(rels, {cut}) FROM l"
        ).fetchall()[0]
        assert got[0] == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
        assert got[1] == pytest.approx(dcg_score(y_true, y_score, k=k), rel=1e-12)
        assert got[2] == pytest.approx(dcg_score(y_true, y_true, k=k), rel=1e-12)
        assert got[3] == frame.rel.to_numpy()[: k or len(frame)].sum()


LONG, PARTS = 100_000, 20  # one ranking of LONG rows against PARTS rankings of LONG // PARTS
GROWTH = 4.0  # the most the one long ranking may cost over the parts (linear: about 1)
# rows per tie group: about 20 (the long path's merge, where the search per row was quadratic in
# the keys) and all of them (one tie group: quadratic in a group's size)
GROUP_SHAPES = {"groups-of-20": 20, "one-group": None}


def _parts(parts: int, group: int | None) -> pd.DataFrame:
    n = LONG // parts
    distinct = 1 if group is None else n // group
    return pd.concat(
        [_one_ranking(n, distinct, seed=s).assign(query_id=s) for s in range(parts)],
        ignore_index=True,
    )


def _cpu_of(con, sql: str) -> float:
    start = _cpu()
    con.execute(sql).fetchall()
    return _cpu() - start


def _growth(con, what: str, long_sql: str, parts_sql: str) -> None:
    """CPU of `long_sql` (on the one long ranking) over that of `parts_sql` (on the parts), at
    most GROWTH; both measured again (the least of two each) when the first pair exceeds it,
    so one slow moment fails nothing."""
    sides = {"long": long_sql, "parts": parts_sql}
    times = {side: _cpu_of(con, sql) for side, sql in sides.items()}
    if times["long"] > GROWTH * times["parts"]:
        times = {side: min(times[side], _cpu_of(con, sql)) for side, sql in sides.items()}
    assert times["long"] <= GROWTH * times["parts"], (
        f"{what}: one ranking of {LONG:,} rows {times['long']:.2f} s CPU, {PARTS} of "
        f"{LONG // PARTS:,} {times['parts']:.2f} s"
    )


def _metric_growth(con, name: str) -> None:
    half = name.endswith(":half")  # at k = half the rows of each ranking
    sql = [
        f"SELECT query_id, {METRICS[name.removesuffix(':half')].format(k=k)} FROM {table} "
        "GROUP BY query_id"
        for table, k in (("long", LONG // 2 if half else "NULL"),
                         ("parts", LONG // PARTS // 2 if half else "NULL"))
    ]
    _growth(con, name, *sql)


@pytest.mark.parametrize("shape", sorted(GROUP_SHAPES))
def test_every_metric_is_linear_in_the_ranking_length(con, check_cases, shape: str) -> None:
    """Every metric of METRICS at full depth (average precision over the retrieved also at half
    the rows): one ranking of 100,000 rows costs at most GROWTH times 20 rankings of 5,000."""
    con.register("long", _parts(1, GROUP_SHAPES[shape]))
    con.register("parts", _parts(PARTS, GROUP_SHAPES[shape]))
    names = [*METRICS, "ap_retrieved:half"]
    assert check_cases((name, functools.partial(_metric_growth, con, name)) for name in names)


def test_err_of_a_tie_group_of_zeros_and_four_stop_rows_is_linear(con) -> None:
    """One tie group per ranking: four rows of grades 4, 3, 1, 1, every other row grade 0 (each
    keeps every slot of the group: its mean stop probability is tiny), read to the end. The
    zeros must cost nothing per row (its values: test_tied_order_metrics)."""
    for table, parts in (("long", 1), ("parts", PARTS)):
        con.execute(
            f"CREATE TABLE {table} AS SELECT i // {LONG // parts} AS query_id, "
            f"coalesce([4, 3, 1, 1][i % {LONG // parts} + 1], 0) AS rel, 1 AS rnk "
            f"FROM range({LONG}) r(i)"
        )
    _growth(con, "err", *(f"SELECT query_id, err(rel, rnk) FROM {t} GROUP BY query_id"
                          for t in ("long", "parts")))


@pytest.mark.versions  # the quadratic window count was DuckDB 1.4's and 1.5's
def test_report_without_cutoff_is_linear_in_rows(con) -> None:
    """ndcg_report with k := NULL on one query of 25,000 and of 200,000 rows (2,000 distinct
    scores): 8 times the rows may take at most 16 times the CPU (measured: 4 to 5 times; a
    quadratic engine takes 50 times, as DuckDB 1.4 and 1.5 did with a window count FILTER: 0.5 s
    to 24 s). NDCG as scikit-learn's."""
    times = []
    for n in (25_000, 200_000):
        frame = _one_ranking(n, 2_000, seed=2)
        con.register("shown", frame.assign(query_id=1, score=-frame.rnk))
        events = frame[frame.rel > 0].assign(
            query_id=1,
            event_type=frame.rel.map({1.0: "click", 2.0: "add_to_cart", 3.0: "purchase"}),
        )
        con.register("events", events[["query_id", "item_id", "event_type"]])
        start = _cpu()
        (ndcg,) = con.execute(
            "SELECT ndcg FROM ndcg_report('shown', 'events', k := NULL, score_col := 'score')"
        ).fetchall()[0]
        times.append(_cpu() - start)
        y_true, y_score = np.array([frame.rel]), -np.array([frame.rnk])
        assert ndcg == pytest.approx(ndcg_score(y_true, y_score), abs=1e-9)
    assert times[-1] < 16 * times[0], times


def _check_tie_heavy(con, k: int | None, distinct: int) -> None:
    frames = [_one_ranking(3000, distinct, seed=s).assign(query_id=s) for s in range(4)]
    con.register("t", pd.concat(frames))
    cut = "NULL" if k is None else str(k)
    rows = con.execute(
        f"SELECT query_id, ndcg(rel, rnk, {cut}), dcg(rel, rnk, {cut}), "
        f"dcg(rel, rnk, {cut}, gain := 'exponential', log_base := 10), list(rel), list(rnk) "
        "FROM t GROUP BY query_id"
    ).fetchall()
    assert len(rows) == 4
    for _, ndcg, dcg, dcg_exp10, rels, rnks in rows:
        y_true, y_score = np.array([rels]), -np.array([rnks])
        assert ndcg == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-12)
        assert dcg == pytest.approx(dcg_score(y_true, y_score, k=k), rel=1e-12)
        exp_gains = np.array([[2.0**g - 1 for g in rels]])
        assert dcg_exp10 == pytest.approx(
            dcg_score(exp_gains, y_score, k=k, log_base=10), rel=1e-12
        )


TIE_HEAVY_KS = [None, 7, 150, 999, 2500]
TIE_HEAVY_DISTINCT = [3, 40, 400]


def test_tie_heavy_rankings_match_sklearn(con, check_cases) -> None:
    """Few distinct keys: tie groups of every size, many straddling k (sklearn averages ties).
    Each (distinct keys, k) of the grid is a case, on one connection."""
    count = check_cases(
        (f"{distinct}-{k}", functools.partial(_check_tie_heavy, con, k, distinct))
        for distinct in TIE_HEAVY_DISTINCT
        for k in TIE_HEAVY_KS
    )
    assert count == 15
