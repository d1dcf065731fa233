"""Golden data of the portable-SQL tests, loaded into every engine.

golden (query_id, item_id, rel, rnk), DOUBLE grades and rank keys:
  q1  a tie group at rnk 3 spanning positions 3-5 (straddles k = 4), an unjudged returned item
      (rel NULL) and a judged item never returned (rnk NULL)
  q2  returned items, none relevant (IDCG 0: empty_ideal)
  q3  fractional grades, 2 returned items (k = 10 is larger than the list), one unreturned
  q4  rank keys are negated scores, no ties
  q5  nothing returned, two judged items
  q6  a tie only at positions 3-4 (order-dependent metrics are fine for k <= 2)
golden_int: q1, q2, q4-like rows with INTEGER grades and ranks (integer division/POWER traps).
golden_ties: ties whose order changes no metric (equal grades; non-relevant rows only; an
  all-relevant group straddling k = 3), so the order-dependent metrics answer under
  ties='average' too:
  t1  grades 2, 2 tied at positions 1-2; unjudged and grade 0 tied at 3-4; grade 0 rows tied at
      6-7; a judged item never returned
  t2  grade 0, then grades 1, 1, 1 tied at positions 2-4, unjudged and grade 0 tied at 5-6
  t3  fractional grades, no ties
  t4  two unjudged rows tied: nothing relevant
golden_empty: queries with nothing relevant (empty_ideal) beside queries whose relevant rows
  give 0 for another reason; no tie except two unjudged rows (u2), so every metric answers:
  n1  judged grades 0 (one never returned) and an unjudged row: nothing relevant
  n2  grades 1, 0, 1: relevant at threshold 1, nothing relevant at threshold 2
  u1  only unjudged rows (rel NULL)
  u2  only unjudged rows, tied
  m1  the relevant rows (grades 2, 1) never returned; a grade 0 and an unjudged row returned
  m2  nothing returned, one relevant judged row
  m3  nothing returned, nothing relevant (a grade 0 and an unjudged row)
  r1  the relevant rows at positions 3-4, after k = 2 (hit@2, RR@2, AP@2 'retrieved': 0)
  r2  relevant rows at positions 1 and 3 (grades 2, 1), an unjudged row, a grade 3 never
      returned
golden_peer: every judged row returned, binary grades, as the peers see a query (their empty
  query has no positive target): p1 [1, 0, 1], p2 [0, 0] (empty), p3 [0, 1]
"""

from __future__ import annotations

from typing import Any

COLUMNS = [("query_id", "TEXT"), ("item_id", "TEXT"), ("rel", "DOUBLE"), ("rnk", "DOUBLE")]
INT_COLUMNS = [("query_id", "TEXT"), ("item_id", "TEXT"), ("rel", "BIGINT"), ("rnk", "BIGINT")]

GOLDEN: list[tuple[Any, ...]] = [
    ("q1", "a", 3.0, 1.0),
    ("q1", "b", 2.0, 2.0),
    ("q1", "c", 3.0, 3.0),
    ("q1", "d", 0.0, 3.0),
    ("q1", "e", 1.0, 3.0),
    ("q1", "f", None, 4.0),
    ("q1", "g", 2.0, None),
    ("q2", "a", 0.0, 1.0),
    ("q2", "b", 0.0, 2.0),
    ("q2", "c", None, 3.0),
    ("q3", "a", 0.5, 1.0),
    ("q3", "b", 2.5, 2.0),
    ("q3", "c", 1.5, None),
    ("q4", "a", 1.0, -0.9),
    ("q4", "b", 0.0, -0.8),
    ("q4", "c", 2.0, -0.7),
    ("q4", "d", 1.0, -0.2),
    ("q4", "e", 0.0, -0.1),
    ("q5", "a", 1.0, None),
    ("q5", "b", 2.0, None),
    ("q6", "a", 0.0, 1.0),
    ("q6", "b", 1.0, 2.0),
    ("q6", "c", 1.0, 3.0),
    ("q6", "d", 2.0, 3.0),
]

GOLDEN_INT: list[tuple[Any, ...]] = [
    ("q1", "a", 3, 1),
    ("q1", "b", 2, 2),
    ("q1", "c", 3, 3),
    ("q1", "d", 0, 4),
    ("q1", "e", 1, 5),
    ("q1", "f", None, 6),
    ("q1", "g", 2, None),
    ("q2", "a", 0, 1),
    ("q2", "b", 0, 2),
    ("q7", "a", 1, 10),
    ("q7", "b", 0, 20),
    ("q7", "c", 3, 30),
    ("q7", "d", 1, None),
]

GOLDEN_TIES: list[tuple[Any, ...]] = [
    ("t1", "a", 2.0, 1.0),
    ("t1", "b", 2.0, 1.0),
    ("t1", "c", None, 2.0),
    ("t1", "d", 0.0, 2.0),
    ("t1", "e", 1.0, 3.0),
    ("t1", "f", 3.0, None),
    ("t1", "g", 0.0, 4.0),
    ("t1", "h", 0.0, 4.0),
    ("t2", "a", 0.0, 1.0),
    ("t2", "b", 1.0, 2.0),
    ("t2", "c", 1.0, 2.0),
    ("t2", "d", 1.0, 2.0),
    ("t2", "e", None, 3.0),
    ("t2", "f", 0.0, 3.0),
    ("t2", "g", 4.0, 5.0),
    ("t3", "a", 0.5, 1.0),
    ("t3", "b", 3.5, 2.0),
    ("t3", "c", 1.0, None),
    ("t4", "a", None, 1.0),
    ("t4", "b", None, 1.0),
]

GOLDEN_EMPTY: list[tuple[Any, ...]] = [
    ("n1", "a", 0.0, 1.0),
    ("n1", "b", 0.0, 2.0),
    ("n1", "c", None, 3.0),
    ("n1", "d", 0.0, None),
    ("n2", "a", 1.0, 1.0),
    ("n2", "b", 0.0, 2.0),
    ("n2", "c", 1.0, 3.0),
    ("u1", "a", None, 1.0),
    ("u1", "b", None, 2.0),
    ("u2", "a", None, 1.0),
    ("u2", "b", None, 1.0),
    ("m1", "a", 0.0, 1.0),
    ("m1", "b", None, 2.0),
    ("m1", "c", 2.0, None),
    ("m1", "d", 1.0, None),
    ("m2", "a", 3.0, None),
    ("m3", "a", 0.0, None),
    ("m3", "b", None, None),
    ("r1", "a", 0.0, 1.0),
    ("r1", "b", 0.0, 2.0),
    ("r1", "c", 2.0, 3.0),
    ("r1", "d", 1.0, 4.0),
    ("r1", "e", 0.0, None),
    ("r2", "a", 2.0, 1.0),
    ("r2", "b", 0.0, 2.0),
    ("r2", "c", 1.0, 3.0),
    ("r2", "d", None, 4.0),
    ("r2", "e", 3.0, None),
]

GOLDEN_PEER: list[tuple[Any, ...]] = [
    ("p1", "a", 1.0, 1.0),
    ("p1", "b", 0.0, 2.0),
    ("p1", "c", 1.0, 3.0),
    ("p2", "a", 0.0, 1.0),
    ("p2", "b", 0.0, 2.0),
    ("p3", "a", 0.0, 1.0),
    ("p3", "b", 1.0, 2.0),
]

# Event pipeline: rankings (query_id, item_id, position) and events (query_id, item_id, event_type).
RANKINGS: list[tuple[Any, ...]] = [
    ("s1", "a", 1),
    ("s1", "b", 2),
    ("s1", "c", 3),
    ("s1", "d", 4),
    ("s2", "a", 1),
    ("s2", "b", 2),
    ("s2", "c", 3),
    ("s3", "x", 1),
    ("s3", "y", 2),
]
EVENTS: list[tuple[Any, ...]] = [
    ("s1", "a", "impression"),
    ("s1", "b", "click"),
    ("s1", "b", "purchase"),
    ("s1", "c", "view"),
    ("s1", "d", "cart"),
    ("s1", "e", "add_to_cart"),  # s1/e was never shown: ideal only
    ("s2", "c", "click"),
    ("s2", "c", "click"),
    ("s2", "a", "impression"),
    ("s4", "z", "purchase"),  # a query that was never ranked: NDCG 0
]  # s3 has rankings but no events: IDCG 0, NDCG = empty_ideal

# A second ranker of the same queries: positions 1 and 2 swapped (s3 again without events).
RANKINGS_B: list[tuple[Any, ...]] = [
    (q, i, {1: 2, 2: 1}.get(position, position)) for q, i, position in RANKINGS
]

TABLES: dict[str, tuple[list[tuple[str, str]], list[tuple[Any, ...]]]] = {
    "golden": (COLUMNS, GOLDEN),
    "golden_int": (INT_COLUMNS, GOLDEN_INT),
    "golden_ties": (COLUMNS, GOLDEN_TIES),
    "golden_empty": (COLUMNS, GOLDEN_EMPTY),
    "golden_peer": (COLUMNS, GOLDEN_PEER),
    "rankings": ([("query_id", "TEXT"), ("item_id", "TEXT"), ("position", "BIGINT")], RANKINGS),
    "rankings_b": (
        [("query_id", "TEXT"), ("item_id", "TEXT"), ("position", "BIGINT")],
        RANKINGS_B,
    ),
    "events": ([("query_id", "TEXT"), ("item_id", "TEXT"), ("event_type", "TEXT")], EVENTS),
}

# Inputs the macros reject: each statement must fail on every engine, never return a number.
BAD: list[tuple[Any, ...]] = [
    ("b1", "a", -1.0, 1.0),
    ("b1", "b", 1.0, 2.0),  # a negative grade
    ("b2", "a", 7.0, 1.0),
    ("b2", None, 1.0, 1.0),  # 7 is in no gain map below; NULL tie key
]
BAD_EVENTS: list[tuple[Any, ...]] = [("s1", "a", "click"), ("s1", "b", "like")]
TABLES["bad"] = (COLUMNS, BAD)
TABLES["bad_events"] = (
    [("query_id", "TEXT"), ("item_id", "TEXT"), ("event_type", "TEXT")],
    BAD_EVENTS,
)


# Two rankers for compare_to_sql: cmp_a / cmp_b (query_id, item_id, position, device) judged by
# cmp_events. Slices: 'mobile' and 'desktop' (30 and 50 random queries, B a little better; some
# queries shown by one ranker only, which the query set 'both' leaves out: 24 and 40 pairs, on
# both sides of df = 30, where the p-value's formula changes), 'solo' (one query:
# no interval), 'same' (B = A: every difference 0, p = 1), 'const' (every difference the same
# non-zero value, 1 - 1/log2(3): sd_diff 0, p = 0).
def _compare_tables() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    import random

    draw = random.Random(20240610)
    shown_a: list[tuple[Any, ...]] = []
    shown_b: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    kinds = ["impression", "view", "click", "cart", "purchase"]
    for device, size in (("mobile", 30), ("desktop", 50)):
        for n in range(size):
            query = f"{device[0]}{n:02d}"
            items = [f"i{j}" for j in range(8)]
            good = draw.sample(items, 3)
            for item in good:
                events.append((query, item, draw.choice(kinds[2:])))
            events.append((query, draw.choice(items), draw.choice(kinds[:2])))
            order_a = draw.sample(items, len(items))
            order_b = sorted(items, key=lambda i: draw.random() - (0.35 if i in good else 0))
            if n % 10 != 7:  # q?07, q?17, q?27: shown by B only
                shown_a += [(query, i, p + 1, device) for p, i in enumerate(order_a)]
            if n % 10 != 3:  # shown by A only
                shown_b += [(query, i, p + 1, device) for p, i in enumerate(order_b)]
    shown_a += [("s0", "x", 1, "solo"), ("s0", "y", 2, "solo")]
    shown_b += [("s0", "y", 1, "solo"), ("s0", "x", 2, "solo")]
    events += [("s0", "y", "click")]
    for n in range(5):
        query = f"e{n}"
        rows = [(query, f"i{j}", j + 1, "same") for j in range(4)]
        shown_a += rows
        shown_b += rows
        events.append((query, f"i{n % 4}", "purchase"))
    for n in range(4):
        query = f"c{n}"
        shown_a += [(query, "miss", 1, "const"), (query, "hit", 2, "const")]
        shown_b += [(query, "hit", 1, "const"), (query, "miss", 2, "const")]
        events.append((query, "hit", "purchase"))
    return shown_a, shown_b, events


CMP_A, CMP_B, CMP_EVENTS = _compare_tables()
_CMP_COLUMNS = [
    ("query_id", "TEXT"),
    ("item_id", "TEXT"),
    ("position", "BIGINT"),
    ("device", "TEXT"),
]
TABLES["cmp_a"] = (_CMP_COLUMNS, CMP_A)
TABLES["cmp_b"] = (_CMP_COLUMNS, CMP_B)
TABLES["cmp_events"] = (
    [("query_id", "TEXT"), ("item_id", "TEXT"), ("event_type", "TEXT")],
    CMP_EVENTS,
)
