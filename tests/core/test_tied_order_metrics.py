"""Order-dependent metrics with ties := 'average': the exact expectation over every tied order.

hit_rate, reciprocal_rank, average_precision (denominators 'relevant' and 'retrieved') and err are
held to a brute force that enumerates every order of every tie group (each equally likely) on
thousands of small random rankings, and on long rankings whose few tie groups straddle a cutoff
read by either path (top-N aggregates up to k = 100, whole sorted lists above). Without ties,
or where the tied order cannot change the value, the expectation is the plain value: the same as
ties := 'key' to the last bit.
"""

from __future__ import annotations

import decimal
import functools
import itertools
import math
import operator
from fractions import Fraction
from functools import cache

import numpy as np
import pandas as pd
import pytest

# name -> SQL; {k} is the cutoff (NULL: the whole ranking), {g} err's max_grade
METRICS = {
    "hit_rate": "hit_rate(rel, rnk, {k})",
    "reciprocal_rank": "reciprocal_rank(rel, rnk, {k})",
    "average_precision": "average_precision(rel, rnk, {k})",
    "ap_retrieved": "average_precision(rel, rnk, {k}, denominator := 'retrieved')",
    "err": "err(rel, rnk, {k}, max_grade := {g})",
}


@cache
def _arrangements(grades: tuple) -> list[tuple]:
    """The distinct orders of a multiset of grades (sorted, unjudged as -1): each stands for
    equally many permutations."""
    if not grades:
        return [()]
    out = []
    for first in sorted(set(grades)):
        rest = list(grades)
        rest.remove(first)
        out += [(first, *tail) for tail in _arrangements(tuple(rest))]
    return out


@cache
def _stop(grade: float, max_grade: int) -> Fraction:
    """ERR's stop probability of a grade (unjudged -1: 0)."""
    return Fraction(2 ** int(grade) - 1, 2**max_grade) if grade > 0 else Fraction(0)


def _values(ranking: list, k: int | None, total_relevant: int, max_grade: int) -> tuple:
    """(hit@k, RR@k, AP@k, AP@k over the relevant retrieved, ERR@k) of one order of grades
    (unjudged -1), exactly."""
    cut = ranking if k is None else ranking[:k]
    positions = [p for p, r in enumerate(cut, start=1) if r >= 1]
    precision = sum(Fraction(j, p) for j, p in enumerate(positions, start=1))
    err, survive = Fraction(0), Fraction(1)
    for q, r in enumerate(cut, start=1):
        if r > 0:
            stop = _stop(r, max_grade)
            err += survive * stop / q
            survive *= 1 - stop
    return (
        Fraction(1 if positions else 0),
        Fraction(1, positions[0]) if positions else Fraction(0),
        precision / total_relevant if total_relevant else Fraction(0),
        precision / len(positions) if positions else Fraction(0),
        err,
    )


def _brute_force(rels: list, rnks: list, k: int | None, max_grade: int = 2) -> dict[str, float]:
    """Every metric's mean over every order of the tied rows, as exact fractions."""
    total_relevant = sum(r is not None and r >= 1 for r in rels)
    returned = sorted(
        ((x, -1 if r is None else r) for x, r in zip(rnks, rels, strict=True) if x is not None)
    )
    groups = [
        tuple(r for _, r in members)
        for _, members in itertools.groupby(returned, key=lambda pair: pair[0])
    ]
    # the groups from the cut on change nothing: one order of them stands for all
    choices, start = [], 1
    for g in groups:
        choices.append(_arrangements(g) if k is None or start <= k else [g])
        start += len(g)
    totals = [Fraction(0)] * len(METRICS)
    count = 0
    for choice in itertools.product(*choices):
        ranking = [r for group in choice for r in group]
        totals = [
            t + v
            for t, v in zip(totals, _values(ranking, k, total_relevant, max_grade), strict=True)
        ]
        count += 1
    return {name: float(t / count) for name, t in zip(METRICS, totals, strict=True)}


def _small_rankings(count: int, seed: int, max_grade: int = 2) -> list[tuple[list, list]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 9))
        distinct = int(rng.integers(1, n + 1))
        rnks = [float(x) for x in rng.integers(0, distinct, n)]
        rels = [float(x) for x in rng.integers(0, max_grade + 1, n)]
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


def _check(con, rankings: list[tuple[list, list]], k: int | None, max_grade: int = 2) -> float:
    """Every metric of every ranking against the enumeration; the largest difference."""
    cut = "NULL" if k is None else str(k)
    got = con.execute(
        "SELECT query_id, "
        + ", ".join(sql.format(k=cut, g=max_grade) for sql in METRICS.values())
        + " FROM judged_run GROUP BY query_id ORDER BY query_id"
    ).fetchall()
    assert len(got) == len(rankings)
    worst = 0.0
    for q, *values in got:
        expected = list(_brute_force(*rankings[q], k, max_grade).values())
        assert values == pytest.approx(expected, abs=1e-12), (rankings[q], k)
        worst = max(worst, *(abs(a - b) for a, b in zip(values, expected, strict=True)))
    return worst


# The table-driven tests below run each case on the test's one connection (check_cases in
# tests/conftest.py): each case loads its own judged_run (CREATE OR REPLACE) or frame first.


def _small_random(con, k) -> None:
    rankings = _small_rankings(500, seed=11 + (k or 0))
    _load(con, rankings)
    assert _check(con, rankings, k) <= 1e-12


def test_small_random_rankings_match_the_enumeration_of_every_tied_order(con, check_cases) -> None:
    ks = [None, 1, 2, 3, 5, 101]
    count = check_cases((f"k={k}", functools.partial(_small_random, con, k)) for k in ks)
    assert count == 6


def _grade_scale(con, k, max_grade) -> None:
    rankings = _small_rankings(400, seed=40 + max_grade + (k or 0), max_grade=max_grade)
    _load(con, rankings)
    assert _check(con, rankings, k, max_grade) <= 1e-12


def test_err_over_every_grade_scale_matches_the_enumeration(con, check_cases) -> None:
    """Grades 0..max_grade, many tied rows of different non-zero grades."""
    grid = [(None, 4), (2, 1), (4, 3), (6, 4)]
    count = check_cases(
        (f"k={k}-max_grade={g}", functools.partial(_grade_scale, con, k, g)) for k, g in grid
    )
    assert count == 4


def _deep_cutoff(con, k) -> None:
    rankings = _long_rankings(40, seed=k, cut=k)
    _load(con, rankings)
    assert _check(con, rankings, k) <= 1e-12


def test_tie_groups_straddling_a_deep_cutoff_match_the_enumeration(con, check_cases) -> None:
    count = check_cases((f"k={k}", functools.partial(_deep_cutoff, con, k)) for k in [10, 100, 120])
    assert count == 3


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


def test_err_and_ap_retrieved_of_a_tie_at_the_top(con) -> None:
    """Grades 1 and 0 tied at positions 1-2, grade 4 third (max_grade 4: R = 1/16, 15/16); AP@2
    over the relevant retrieved with a relevant row and another tied across the cut."""
    r1, r4 = Fraction(1, 16), Fraction(15, 16)
    err = (r1 + (1 - r1) * r4 / 3 + r1 / 2 + (1 - r1) * r4 / 3) / 2
    got = con.execute(
        "SELECT err(rel, rnk), err(rel, rnk, 1), err(rel, rnk, 2) "
        "FROM (VALUES (1, 1), (0, 1), (4, 2)) t(rel, rnk)"
    ).fetchall()
    assert got == [(float(err), float(r1 / 2), float((r1 + r1 / 2) / 2))]
    got = con.execute(
        "SELECT average_precision(rel, rnk, 2, denominator := 'retrieved'), "
        "average_precision(rel, rnk, 2, denominator := 'retrieved', empty_ideal := 1.0) "
        "FROM (VALUES (0, 1), (1, 2), (0, 2)) t(rel, rnk)"
    ).fetchall()
    # the relevant row is second with probability 1/2 (AP 1/2), else none is retrieved (AP 0)
    assert got == [(0.25, 0.25)]


def _compare_with_key(con, frame: pd.DataFrame, k: int | None) -> int:
    """How many groups have a metric whose averaged value differs from ties := 'key' at all."""
    con.register("frame", frame)
    cut = "NULL" if k is None else str(k)
    columns = [sql.format(k=cut, g=2) for sql in METRICS.values()]
    pairs = ", ".join(
        f"{c} AS a{i}, {c[:-1]}, ties := 'key', tie_key := item_id) AS b{i}"
        for i, c in enumerate(columns)
    )
    return con.execute(
        f"SELECT count(*) FROM (SELECT {pairs} FROM frame GROUP BY query_id) WHERE "
        + " OR ".join(f"a{i} IS DISTINCT FROM b{i}" for i in range(len(columns)))
    ).fetchall()[0][0]


def test_without_ties_average_is_the_plain_value_to_the_last_bit(con, check_cases) -> None:
    """The same frame at each cutoff, a case each."""
    rng = np.random.default_rng(5)
    rows = []
    for q in range(300):
        n = int(rng.integers(1, 200))
        keys = rng.permutation(n) * 1.5
        rows += [(q, i, float(rng.integers(0, 3)), float(x)) for i, x in enumerate(keys)]
        rows.append((q, n, 2.0, None))  # judged, not returned
    frame = pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"])

    def check(k: int | None) -> None:
        assert _compare_with_key(con, frame, k) == 0

    ks = [None, 3, 10, 150]
    assert check_cases((f"k={k}", functools.partial(check, k)) for k in ks) == 4


def test_ties_that_change_nothing_give_the_plain_value_to_the_last_bit(con, check_cases) -> None:
    """Rows of grade 0 or unjudged tied among themselves (also across the cut) and every row of
    a non-zero grade untied: every order is the same ranking of grades, the value is determined
    and comes from the same arithmetic as before (ties := 'key'). The same frame at each cutoff,
    a case each."""
    rng = np.random.default_rng(7)
    rows = []
    for q in range(300):
        n = int(rng.integers(1, 200))
        grades = rng.integers(0, 3, n) * (rng.random(n) < 0.3)
        # untied odd keys for the rows of non-zero grade, few even keys for the others
        keys = np.where(grades > 0, 2 * rng.permutation(n) + 1, 2 * rng.integers(0, 12, n))
        rows += [
            (q, i, None if g == 0 and rng.random() < 0.2 else float(g), float(x))
            for i, (g, x) in enumerate(zip(grades, keys, strict=True))
        ]
    frame = pd.DataFrame(rows, columns=["query_id", "item_id", "rel", "rnk"])

    def check(k: int | None) -> None:
        assert _compare_with_key(con, frame.astype({"rel": "float64"}), k) == 0

    ks = [None, 1, 3, 10, 150]
    assert check_cases((f"k={k}", functools.partial(check, k)) for k in ks) == 5


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


def _err_of_one_tie_group(grades: list[int], n: int, k: int, max_grade: int) -> float:
    """ERR@k of one tie group of n rows at the top: the given non-zero grades, the rest 0.

    Not the macro's telescoping recurrence: by linearity, each row x of grade g at slot j stops
    the user with probability R(g) times the mean product of 1 - R over the j rows before it, a
    uniformly random j-subset of the n - 1 others: hypergeometric over how many of the other
    non-zero rows it holds, times their elementary symmetric polynomial (exact fractions).
    """
    survive = [1 - Fraction(2**g - 1, 2**max_grade) for g in grades]
    total = Fraction(0)
    for x, g in enumerate(grades):
        others = survive[:x] + survive[x + 1 :]
        u = len(others)
        e = [Fraction(1)] + [Fraction(0)] * u  # e[i]: elementary symmetric polynomial of others
        for t in others:
            e = [e[0]] + [e[i] + t * e[i - 1] for i in range(1, u + 1)]
        for j in range(min(n, k)):  # slot j (0-based) at position j + 1
            # C(n - 1 - u, j - i) / C(n - 1, j) in falling factorials: u is small
            mean = sum(
                Fraction(math.perm(j, i) * math.perm(n - 1 - j, u - i), math.perm(n - 1, u)) * e[i]
                for i in range(min(u, j) + 1)
            )
            total += Fraction(1, n) * Fraction(2**g - 1, 2**max_grade) * mean / (j + 1)
    return float(total)


# full depth on 3,000 rows: the oracle's exact fractions take 110 s on 30,000 (busy machine), and
# every slot is kept either way (four stop rows among zeros); the cost: test_linear_time
@pytest.mark.parametrize(("n", "k"), [(30_000, 10), (30_000, 150), (3_000, None)])
def test_err_of_a_huge_tie_group_is_exact(con, n, k) -> None:
    """Mostly grade 0, four rows of grades 1-4, all tied (that the zeros cost nothing per row:
    test_linear_time's growth of the same shape)."""
    grades = [4, 3, 1, 1]
    con.execute(
        f"CREATE TABLE t AS SELECT coalesce({grades}[i + 1], 0) AS rel, 1 AS rnk "
        f"FROM range({n}) r(i)"
    )
    (got,) = con.execute(f"SELECT err(rel, rnk, {'NULL' if k is None else k}) FROM t").fetchall()[0]
    assert got == pytest.approx(_err_of_one_tie_group(grades, n, k or n, 4), abs=1e-12)


def _ap_retrieved_of_one_tie_group(n: int, c: int, before: int, k: int) -> float:
    """AP@k over the relevant retrieved: `before` untied relevant rows, then a group of n rows,
    c relevant, straddling k; by the hypergeometric count of its relevant rows before the cut
    and the enumeration of their slots there (exact fractions)."""
    w = k - before
    total = Fraction(0)
    for x in range(max(0, w - (n - c)), min(c, w) + 1):
        p = Fraction(math.comb(c, x) * math.comb(n - c, w - x), math.comb(n, w))
        hits = before + x
        if hits == 0:
            continue
        slots = list(itertools.combinations(range(w), x))
        mean_sum = sum(
            sum(Fraction(j, j) for j in range(1, before + 1))
            + sum(Fraction(before + 1 + i, before + 1 + u) for i, u in enumerate(chosen))
            for chosen in slots
        ) / len(slots)
        total += p * mean_sum / hits
    return float(total)


@pytest.mark.parametrize(
    ("n", "c", "before", "k"), [(30_000, 3, 0, 10), (30_000, 5, 2, 12), (40, 20, 1, 9)]
)
def test_ap_retrieved_with_a_huge_tie_group_at_the_cut_is_exact(con, n, c, before, k) -> None:
    con.execute(
        f"CREATE TABLE t AS SELECT 1 AS rel, i AS rnk FROM range({before}) r(i) UNION ALL "
        f"SELECT CASE WHEN i < {c} THEN 1 ELSE 0 END, {before} FROM range({n}) r(i)"
    )
    (got,) = con.execute(
        f"SELECT average_precision(rel, rnk, {k}, denominator := 'retrieved') FROM t"
    ).fetchall()[0]
    assert got == pytest.approx(_ap_retrieved_of_one_tie_group(n, c, before, k), abs=1e-12)


def test_ap_retrieved_weights_far_from_the_least_count_neither_overflow_nor_underflow(con) -> None:
    """4,000 tied rows, half relevant, 1,500 before the cut: P(X = 0) is about 1e-470, the
    weights of the likely counts are about 1e+470 times larger than it."""
    n, c, k = 4_000, 2_000, 1_500
    con.execute(
        f"CREATE TABLE t AS SELECT CASE WHEN i < {c} THEN 1 ELSE 0 END AS rel, 1 AS rnk "
        f"FROM range({n}) r(i)"
    )
    (got,) = con.execute(
        f"SELECT average_precision(rel, rnk, {k}, denominator := 'retrieved') FROM t"
    ).fetchall()[0]
    # given x retrieved, the slots hold a uniformly random x-subset: precision at the i-th
    # relevant row of u slots is i / u, and E[sum] = x / k * sum_u (1 + u (x - 1) / (k - 1)) / u
    h = math.fsum(1 / q for q in range(1, k + 1))
    total = math.fsum(
        math.exp(
            math.lgamma(c + 1)
            - math.lgamma(x + 1)
            - math.lgamma(c - x + 1)
            + math.lgamma(n - c + 1)
            - math.lgamma(k - x + 1)
            - math.lgamma(n - c - k + x + 1)
            - math.lgamma(n + 1)
            + math.lgamma(k + 1)
            + math.lgamma(n - k + 1)
        )
        * (x / k * (h + (x - 1) / (k - 1) * (k - h)))
        / x
        for x in range(1, k + 1)
    )
    assert got == pytest.approx(total, abs=1e-9)  # lgamma's own rounding, not ours


@pytest.mark.parametrize(("grade", "max_grade"), [(1, 1), (1, 4), (3, 3)])
def test_err_of_one_grade_tied_three_thousand_times_is_the_series(
    con, grade: int, max_grade: int
) -> None:
    """All n rows of one grade, tied: every order is the same, ERR = sum_{q <= n} R t^(q-1) / q
    = (R / t) (-ln R) up to t^n (1 - R = t, t^n < 1e-80 here); the slowest decay of max_grade 4
    included (672 slots kept of the 3,000, the most for integer grades of that scale). Its cost
    as the group grows: test_linear_time (one tie group)."""
    n = 3_000
    con.execute(f"CREATE TABLE t AS SELECT {grade} AS rel, 1 AS rnk FROM range({n})")
    (got,) = con.execute(f"SELECT err(rel, rnk, max_grade := {max_grade}) FROM t").fetchall()[0]
    stop = (2.0**grade - 1) / 2.0**max_grade
    assert got == pytest.approx(stop / (1 - stop) * -np.log(stop), abs=1e-14)


@pytest.mark.parametrize("k", [None, 1, 5, 20])
def test_err_without_ties_is_the_direct_formula(con, k) -> None:
    """sum_q (1 / q) R_q prod_{i < q} (1 - R_i) over untied rankings, unjudged rows stopping no
    one (ir_measures' ERR@k, gdeval's, is held to the same numbers in test_oracle_family)."""
    rng = np.random.default_rng(13)
    rankings = []
    for _ in range(400):
        n = int(rng.integers(1, 40))
        rels = [None if rng.random() < 0.1 else float(g) for g in rng.integers(0, 5, n)]
        rankings.append((rels, [float(x) for x in rng.permutation(n)]))
    _load(con, rankings)
    got = con.execute(
        f"SELECT query_id, err(rel, rnk, {'NULL' if k is None else k}) FROM judged_run "
        "GROUP BY query_id ORDER BY query_id"
    ).fetchall()
    for q, value in got:
        rels, rnks = rankings[q]
        ranked = [r for _, r in sorted(zip(rnks, rels, strict=True))][:k]
        expected, survive = 0.0, 1.0
        for position, r in enumerate(ranked, start=1):
            stop = (2.0 ** (r or 0) - 1) / 16
            expected += survive * stop / position
            survive *= 1 - stop
        assert value == pytest.approx(expected, abs=1e-12)


def _err_of_one_tie_group_by_polynomials(counts: dict[int, int], max_grade: int) -> float:
    """Full-depth ERR of one tie group of counts[g] rows of grade g (g = 0 included), to about
    50 digits. Not the macro's recurrence: the mean product of t = 1 - R over a random j-subset
    is e_j(t) / C(n, j), e_j read off prod_g (1 + t_g x)^counts[g] with exact integers
    (t_g = u_g / 2^max_grade), and ERR = sum_{j < n} (ebar_j - ebar_{j+1}) / (j + 1), no slot
    dropped."""
    scale = 2**max_grade
    # coefficients of (1 + x)^counts[0] prod_{g > 0} (scale + u_g x)^counts[g], u_g = scale t_g
    poly = [1]
    for g, count in counts.items():
        u, v = (1, 1) if g == 0 else (scale - (2**g - 1), scale)
        factor = [math.comb(count, i) * u**i * v ** (count - i) for i in range(count + 1)]
        backwards = factor[::-1]  # coefficient j of the product: poly[i] * factor[j - i]
        poly = [
            sum(
                map(
                    operator.mul,
                    poly[max(0, j - count) : j + 1],
                    backwards[count - min(j, count) : count + 1 - max(0, j - len(poly) + 1)],
                )
            )
            for j in range(len(poly) + count)
        ]
    n = sum(counts.values())
    denominator = scale ** (n - counts.get(0, 0))
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        ebar = [
            decimal.Decimal(poly[j]) / decimal.Decimal(denominator * math.comb(n, j))
            for j in range(n + 1)
        ]
        return float(sum((ebar[j] - ebar[j + 1]) / (j + 1) for j in range(n)))


@pytest.mark.parametrize(
    ("counts", "max_grade"),
    [
        ({1: 3_000}, 1),  # survival 2^-j: 84 of 3,000 slots kept
        ({0: 2_700, 1: 300}, 1),  # mostly grade 0: survival decays ten times slower, 840 kept
        ({0: 600, 1: 400, 2: 400}, 2),
        ({0: 800, 1: 400, 2: 200, 3: 100}, 3),
    ],
)
def test_err_of_a_long_tie_group_dropping_its_far_slots_is_exact(con, counts, max_grade) -> None:
    """The expectation keeps a group's first ceil(42 / mean R) slots (Maclaurin: the mean
    survival at slot j is at most (1 - mean R)^j <= e^-42 there): every case here drops most of
    them, and still agrees with the whole sum to 1e-15 (the dropped part is below 6e-19)."""
    rels = [g for g, count in counts.items() for _ in range(count)]
    con.register("t", pd.DataFrame({"rel": np.array(rels, dtype=float), "rnk": 1.0}))
    (got,) = con.execute(f"SELECT err(rel, rnk, max_grade := {max_grade}) FROM t").fetchall()[0]
    assert got == pytest.approx(_err_of_one_tie_group_by_polynomials(counts, max_grade), abs=1e-15)
