"""Write the benchmark data sets under ``benchmarks/data/`` (git-ignored), seed fixed.

For ``ROWS`` rows (a multiple of the candidates per query, default 100) three Parquet files:

* ``judged_<ROWS>.parquet``: ``query_id``, ``item_id``, ``score`` (DOUBLE, rounded to 3 decimals so
  equal scores occur inside a query), ``rel`` (grade 0..3, mostly 0). One row per candidate.
* ``rankings_<ROWS>.parquet``: ``query_id``, ``item_id``, ``position`` (1-based; score descending,
  equal scores broken by ``item_id`` descending: trec_eval's order). Same rows as ``judged``.
* ``events_<ROWS>.parquet``: ``query_id``, ``item_id``, ``position``, ``event_type``: one
  ``impression`` per ranked row plus ``click`` / ``add_to_cart`` / ``purchase`` rows whose maximum per
  item is the item's grade (click 1, add_to_cart 2, purchase 3).

Item ids are six-digit numbers, distinct inside a query, so text order equals numeric order (trec_eval
breaks equal scores by document id as text).

Example::

    python benchmarks/generate.py 10000000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DATA = Path(__file__).parent / "data"
SEED = 20240605
GRADE_P = (0.90, 0.06, 0.03, 0.01)  # P(rel = 0, 1, 2, 3)
ACTIONS = ("click", "add_to_cart", "purchase")  # grade 1, 2, 3
CHUNK_QUERIES = 100_000


def _chunk(rng: np.random.Generator, first_query: int, n_queries: int, per_query: int) -> dict:
    """Columns of queries ``first_query`` .. ``first_query + n_queries - 1``, rows in query order."""
    n = n_queries * per_query
    query_id = np.repeat(np.arange(first_query, first_query + n_queries, dtype=np.int32), per_query)
    slot = np.tile(np.arange(per_query, dtype=np.int64), n_queries)
    # 104729 is prime and coprime with 900000, so slots map to distinct ids inside a query.
    item_id = (100_000 + (query_id.astype(np.int64) * 7919 + slot * 104_729) % 900_000).astype(
        np.int32
    )
    rel = rng.choice(4, size=n, p=GRADE_P).astype(np.int32)
    score = np.round(rng.random(n) + 0.25 * rel, 3)
    return {"query_id": query_id, "item_id": item_id, "score": score, "rel": rel}


def _positions(cols: dict) -> np.ndarray:
    """1-based position of every row in its query: score descending, then item_id descending."""
    order = np.lexsort((-cols["item_id"], -cols["score"], cols["query_id"]))
    qid = cols["query_id"][order]
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    sizes = np.diff(np.r_[starts, len(qid)])
    pos_sorted = np.arange(len(qid)) - np.repeat(starts, sizes) + 1
    pos = np.empty(len(qid), dtype=np.int32)
    pos[order] = pos_sorted
    return pos


def _events(cols: dict, position: np.ndarray) -> pa.Table:
    """Impressions of every row, then one action row per grade step (rel 2 -> click, add_to_cart)."""
    parts = [
        pa.table(
            {
                "query_id": cols["query_id"],
                "item_id": cols["item_id"],
                "position": position,
                "event_type": pa.array(
                    np.full(len(position), "impression", dtype=object), pa.string()
                ),
            }
        )
    ]
    for grade, action in enumerate(ACTIONS, start=1):
        hit = cols["rel"] >= grade
        parts.append(
            pa.table(
                {
                    "query_id": cols["query_id"][hit],
                    "item_id": cols["item_id"][hit],
                    "position": position[hit],
                    "event_type": pa.array(
                        np.full(int(hit.sum()), action, dtype=object), pa.string()
                    ),
                }
            )
        )
    return pa.concat_tables(parts)


def generate(rows: int, per_query: int = 100, out: Path = DATA, force: bool = False) -> list[Path]:
    """Write the three files for ``rows`` rows; existing files are kept unless ``force``."""
    if rows <= 0 or rows % per_query:
        raise ValueError(f"rows must be a positive multiple of per_query={per_query}, got {rows}")
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}_{rows}.parquet" for name in ("judged", "rankings", "events")]
    if all(p.exists() for p in paths) and not force:
        return paths
    rng = np.random.default_rng(SEED)
    tmp = [p.with_suffix(".parquet.tmp") for p in paths]
    writers: list[pq.ParquetWriter | None] = [None, None, None]
    n_queries = rows // per_query
    try:
        for first in range(0, n_queries, CHUNK_QUERIES):
            cols = _chunk(rng, first, min(CHUNK_QUERIES, n_queries - first), per_query)
            position = _positions(cols)
            tables = [
                pa.table(cols),
                pa.table(
                    {"query_id": cols["query_id"], "item_id": cols["item_id"], "position": position}
                ),
                _events(cols, position),
            ]
            for i, table in enumerate(tables):
                if writers[i] is None:
                    writers[i] = pq.ParquetWriter(tmp[i], table.schema)
                writers[i].write_table(table, row_group_size=1 << 20)
    finally:
        for w in writers:
            if w is not None:
                w.close()
    for t, p in zip(tmp, paths):
        t.rename(p)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=int, nargs="+", help="row counts, e.g. 1000000 10000000")
    parser.add_argument("--per-query", type=int, default=100, help="candidates per query (100)")
    parser.add_argument("--out", type=Path, default=DATA, help="output folder (benchmarks/data)")
    parser.add_argument("--force", action="store_true", help="rewrite existing files")
    args = parser.parse_args()
    for rows in args.rows:
        for path in generate(rows, args.per_query, args.out, args.force):
            print(path)


if __name__ == "__main__":
    main()
