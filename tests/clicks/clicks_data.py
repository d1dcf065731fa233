"""The click tests' data: the seeded log and PyClick/ultr-bias-toolkit fixtures under
tests/fixtures/clicks/, and SRW's UBI example, with which the conftest fills one connection."""

from __future__ import annotations

import csv
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "clicks"
ROOT = Path(__file__).resolve().parents[2]


def read_csv(name: str) -> list[dict[str, str]]:
    with open(FIXTURES / name, newline="") as f:
        return list(csv.DictReader(f))


# SRW's UBI shape: events with an action, ordinals from 0, one date each. max_rank 3.
UBI = [
    # user_query, object_id, action_name, ordinal, day
    *[("shoes", "A", "impression", 0, "2025-01-10")] * 4,
    *[("shoes", "A", "click", 0, "2025-01-10")] * 2,
    *[("shoes", "B", "impression", 1, "2025-01-10")] * 4,
    ("shoes", "B", "click", 1, "2025-01-10"),
    *[("shoes", "C", "impression", 2, "2025-01-10")] * 2,
    ("shoes", "C", "impression", 0, "2025-01-10"),
    ("shoes", "C", "click", 2, "2025-01-10"),
    *[("shoes", "D", "impression", 3, "2025-01-10")] * 2,
    ("shoes", "D", "click", 3, "2025-01-10"),
    ("shoes", "E", "click", 1, "2025-01-10"),
    ("shoes", "F", "impression", 4, "2025-01-10"),
    ("shoes", "G", "add_to_cart", 0, "2025-01-10"),
    ("boots", "A", "impression", 0, "2025-01-10"),
    ("boots", "A", "CLICK", 0, "2025-01-10"),
    ("boots", "A", "click", 0, "2025-02-01"),
]
