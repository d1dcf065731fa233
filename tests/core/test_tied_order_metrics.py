"""Order-dependent metrics with ties := 'average': the exact expectation over every tied order.

hit_rate, reciprocal_rank and average_precision are held to a brute force that enumerates every
order of every tie group (each equally likely) on thousands of small random rankings, and on long
rankings whose few tie groups straddle a cutoff read by either path (top-N aggregates up to
k = 100, whole sorted lists above). Without ties the expectation is the plain value: the same as
ties := 'key' to the last bit.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

METRICS = ("hit_rate", "reciprocal_rank", "average_precision")


def _brute_force(rels: list, rnks: list, k: int | None, threshold: float = 1) -> tuple:
    """Mean of (hit@k, RR@k, AP@k) over every order of the tied rows, as exact fractions."""
    relevant = [r is not None and r >= threshold for r in rels]
    total_relevant = sum(relevant)
    returned = sorted((x, flag) for x, flag in zip(rnks, relevant, strict=True) if x is not None)
    groups = [
        [flag for _, flag in members]
        for _, members in itertools.groupby(returned, key=lambda pair: pair[0])
    ]
    # binary relevance: the orders of a group that differ are the placements of its relevant rows,
    # C(n, c) of them, each equally likely when every order of the group is
    placements = [
        [
            [i in chosen for i in range(len(g))]
            for chosen in itertools.combinations(range(len(g)), sum(g))
        ]
        for g in groups
    ]
    totals = [Fraction(0)] * 3
    count = 0
    for choice in itertools.product(*placements):
        ranking = [flag for group in choice for flag in group]
        cut = ranking if k is None else ranking[:k]
        positions = [p for p, flag in enumerate(cut, start=1) if flag]
        hit = Fraction(1 if positions else 0)
        rr = Fraction(1, positions[0]) if positions else Fraction(0)
        ap = (
            sum(Fraction(j, p) for j, p in enumerate(positions, start=1)) / total_relevant
            if total_relevant
            else Fraction(0)
        )
        totals = [t + v for t, v in zip(totals, (hit, rr, ap), strict=True)]
        count += 1
    return tuple(float(t / count) for t in totals)


def _small_rankings(count: int, seed: int) -> list[tuple[list, list]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 9))
        distinct = int(rng.integers(1, n + 1))
        rnks = [float(x) for x in rng.integers(0, distinct, n)]
        rels = [float(x) for x in rng.integers(0, 3, n)]
        for i in range(n):  # some unjudged rows, some judged rows the ranker did not return
            if rng.random() < 0.1:
                rels[i] = None
            elif rng.random() < 0.1:
                rnks[i] = None
        out.append((rels, rnks))
    return out


def _long_rankings(count: int, seed: int, cut: int) -> list[tuple[list, list]]:
    """Rankings of cut + 10..60 rows, distinct keys except 2-3 small tie groups, one at the cut."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = cut + int(rng.integers(10, 60))
        rnks = [float(x) for x in range(n)]
        sizes = rng.integers(2, 6, 3)
        starts = [cut - int(rng.integers(0, sizes[0])) - 1, int(rng.integers(0, cut - 8)), n - 6]
        for start, size in zip(starts, sizes, strict=True):
            for i in range(start, min(start + int(size), n)):
                rnks[i] = rnks[start]
        rels = [float(x) for x in rng.integers(0, 2, n) * (rng.random(n) < 0.5)]
        out.append((rels, rnks))
    return out


def _load(con, rankings: list[tuple[list, list]]) -> None:
    rows = [
        (q, rel, rnk)
        for q, (rels, rnks) in enumerate(rankings)
        for rel, rnk in zip(rels, rnks, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "rel", "rnk"]).astype(
        {"rel": "float64", "rnk": "float64"}
    )
    con.register("frame", frame)
    con.execute("CREATE OR REPLACE TABLE judged_run AS FROM frame")


def _check(con, rankings: list[tuple[list, list]], k: int | None) -> int:
    cut = "NULL" if k is None else str(k)
    got = con.execute(
        "SELECT query_id, "
        + ", ".join(f"{m}(rel, rnk, {cut})" for m in METRICS)
        + " FROM judged_run GROUP BY query_id ORDER BY query_id"
    ).fetchall()
    assert len(got) == len(rankings)
    worst = 0.0
    for q, *values in got:
        expected = _brute_force(*rankings[q], k)
        assert values == pytest.approx(list(expected), abs=1e-12), (rankings[q], k)
        worst = max(worst, *(abs(a - b) for a, b in zip(values, expected, strict=True)))
    return len(got)


@pytest.mark.parametrize("k", [None, 1, 2, 3, 5, 101])
def test_small_random_rankings_match_the_enumeration_of_every_tied_order(con, k) -> None:
    rankings = _small_rankings(1500, seed=11 + (k or 0))
    _load(con, rankings)
    assert _check(con, rankings, k) == 1500


@pytest.mark.parametrize("k", [10, 100, 120])
def test_tie_groups_straddling_a_deep_cutoff_match_the_enumeration(con, k) -> None:
    rankings = _long_rankings(40, seed=k, cut=k)
    _load(con, rankings)
    assert _check(con, rankings, k) == 40


def test_the_readme_example_needs_no_tie_breaking(con) -> None:
    """Issue 11: a relevant row alone at the top; the tie below it cannot change anything."""
    got = con.execute(
        "SELECT hit_rate(rel, rnk, 10), reciprocal_rank(rel, rnk, 10), "
        "average_precision(rel, rnk, 10) FROM (VALUES (1, 1), (0, 2), (0, 2)) t(rel, rnk)"
    ).fetchall()
    assert got == [(1.0, 1.0, 1.0)]


def test_a_tie_at_the_top_is_averaged(con) -> None:
    """Two tied rows at positions 1-2, one relevant: hit@1 = 1/2, RR = AP = (1 + 1/2) / 2."""
    got = con.execute(
        "SELECT hit_rate(rel, rnk, 1), reciprocal_rank(rel, rnk), average_precision(rel, rnk) "
        "FROM (VALUES (0, 1), (1, 1), (0, 2)) t(rel, rnk)"
    ).fetchall()
    assert got == [(0.5, 0.75, 0.75)]


@pytest.mark.parametrize("k", [None, 3, 10, 150])
def test_without_ties_average_is_the_plain_value_to_the_last_bit(con, k) -> None:
    rng = np.random.default_rng(5)
    rows = []
    for q in range(300):
        n = int(rng.integers(1, 200))
        keys = rng.permutation(n) * 1.5
        rows += [(q, float(rng.integers(0, 3)), float(x)) for x in keys]
        rows.append((q, 2.0, None))  # judged, not returned
    con.register("frame", pd.DataFrame(rows, columns=["query_id", "rel", "rnk"]))
    cut = "NULL" if k is None else str(k)
    different = con.execute(
        "SELECT count(*) FROM (SELECT "
        + ", ".join(
            f"{m}(rel, rnk, {cut}) AS a{i}, {m}(rel, rnk, {cut}, ties := 'key', "
            f"tie_key := rel) AS b{i}"
            for i, m in enumerate(METRICS)
        )
        + " FROM frame GROUP BY query_id) WHERE a0 <> b0 OR a1 <> b1 OR a2 <> b2"
    ).fetchall()[0][0]
    assert different == 0


def test_a_huge_tie_group_at_the_cut_is_fast_and_exact(con) -> None:
    """One tie group of 30,000 rows, 3 relevant, straddling k = 10: closed forms, no enumeration."""
    n, c, k = 30_000, 3, 10
    con.execute(
        f"CREATE TABLE t AS SELECT CASE WHEN i < {c} THEN 1 ELSE 0 END AS rel, 1 AS rnk "
        f"FROM range({n}) r(i)"
    )
    hit, rr = con.execute(
        f"SELECT hit_rate(rel, rnk, {k}), reciprocal_rank(rel, rnk) FROM t"
    ).fetchall()[0]
    assert hit == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-12)
    expected_rr = math.fsum(
        math.comb(n - 1 - i, c - 1) / math.comb(n, c) / (1 + i) for i in range(n - c + 1)
    )
    assert rr == pytest.approx(expected_rr, abs=1e-12)
