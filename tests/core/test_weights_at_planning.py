"""The weights of the positions are computed once, when DuckDB plans the query (issue 11, part 1).

`_ndcg_weighted_sum` reads a row's weight from one list (`_ndcg_weights`) that DuckDB folds to a
constant: it builds it outside every lambda body, and nothing in it calls error(). Either change
(an error() in `_ndcg_weight`, the list built inside a lambda) leaves every result the same but
computes the weights per query again, which made ndcg@10 several percent slower
(benchmarks/results/engine_ranking.md). These tests read the physical plan and fail first.
"""

from __future__ import annotations

import math
import re

import pytest

BOX = re.compile(r"[\s│─╭╮╰╯┬┴├┤┌┐└┘]")


def _plan(con, expr: str) -> str:
    """The physical plan of one aggregate over a one-row table, box drawing and spaces removed."""
    con.execute("CREATE OR REPLACE TABLE t AS SELECT 1 AS q, 1.0 AS rel, 1.0 AS rnk")
    rows = con.execute(f"EXPLAIN SELECT q, {expr} FROM t GROUP BY q").fetchall()
    return BOX.sub("", "".join(text for _, text in rows))


def _literal(values: list[float]) -> str:
    """A list of doubles as DuckDB prints a constant (shortest round-trip digits), no spaces."""
    return "[" + ",".join(repr(v) for v in values) + "]"


@pytest.mark.parametrize(
    ("expr", "weights"),
    [
        ("dcg(rel, rnk, 10)", [1 / math.log2(q + 1) for q in range(1, 11)]),
        ("ndcg(rel, rnk, 10)", [1 / math.log2(q + 1) for q in range(1, 11)]),
        ("ndcg(rel, rnk)", [1 / math.log2(q + 1) for q in range(1, 513)]),
        (
            "dcg(rel, rnk, 5, log_base := 10)",
            [1 / (math.log(q + 1) / math.log(10)) for q in range(1, 6)],
        ),
        ("cg(rel, rnk, 4)", [1.0] * 4),
        ("precision_at_k(rel, rnk, 5)", [1.0] * 5),
        ("rbp(rel, rnk, k := 3)", [(1.0 - 0.8) * 0.8 ** (q - 1) for q in range(1, 4)]),
    ],
)
def test_the_weights_are_a_constant_of_the_plan(con, expr: str, weights: list[float]) -> None:
    assert _literal(weights) in _plan(con, expr), f"{expr}: no constant list of its weights"


def test_a_bad_log_base_is_still_an_error(con) -> None:
    """The check that keeps error() out of the weights still runs."""
    con.execute("CREATE OR REPLACE TABLE t AS SELECT 1 AS q, 1.0 AS rel, 1.0 AS rnk")
    with pytest.raises(Exception, match="log_base must be a finite number greater than 1, got 1"):
        con.execute("SELECT q, dcg(rel, rnk, 10, log_base := 1) FROM t GROUP BY q").fetchall()
