"""ibis on DuckDB: the macros declared as builtin aggregate UDFs, used like any ibis aggregate."""

from __future__ import annotations

import ibis

import duckdb_ndcg

con = ibis.duckdb.connect()  # or ibis.duckdb.connect("metrics.duckdb"), a file with the macros
# persisted (not TEMP): ibis runs its queries on cursors of this connection
duckdb_ndcg.install(con.con)


@ibis.udf.agg.builtin
def ndcg(rel: float, rnk: int, k: int) -> float:
    """NDCG@k of the group's ranking (the ndcg macro)."""


@ibis.udf.agg.builtin
def mean_ndcg(query_id: str, rel: float, rnk: int, k: int) -> float:
    """Mean NDCG@k over the group's queries (the mean_ndcg macro)."""


judged = ibis.memtable(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3"],
        "rel": [1.0, 0.0, 3.0, 0.0, 0.0, 2.0, 0.0, 1.0],
        "rnk": [1, 2, 3, 1, 2, 3, 1, 2],
        "device": [
            "mobile",
            "mobile",
            "mobile",
            "desktop",
            "desktop",
            "desktop",
            "mobile",
            "mobile",
        ],
    }
)
per_query = (
    judged.group_by("query_id")
    .aggregate(ndcg_3=ndcg(judged.rel, judged.rnk, 3))
    .order_by("query_id")
)
per_device = (
    judged.group_by("device")
    .aggregate(mean_ndcg_3=mean_ndcg(judged.query_id, judged.rel, judged.rnk, 3))
    .order_by("device")
)
print(con.to_pandas(per_query))
print(con.to_pandas(per_device))
