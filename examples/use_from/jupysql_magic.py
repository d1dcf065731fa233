"""jupysql's %sql magic on a DuckDB connection with the macros. In a notebook, the cells are:

    %load_ext sql
    import duckdb, duckdb_ndcg
    con = duckdb_ndcg.register(duckdb.connect())   # %sql runs queries on cursors of con
    %sql con
    %sql SELECT list_ndcg([3, 2, 3, 0, 1, 2]) AS ndcg

Here the same lines run through IPython's API, so this file runs as a plain script.
"""

from __future__ import annotations

import duckdb
from IPython.core.interactiveshell import InteractiveShell

import duckdb_ndcg

ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "sql")
con = duckdb_ndcg.register(duckdb.connect())  # %sql runs queries on cursors of con
ip.user_ns["con"] = con
ip.run_line_magic("sql", "con")

ndcg = ip.run_line_magic("sql", "SELECT list_ndcg([3, 2, 3, 0, 1, 2]) AS ndcg")
per_query = ip.run_cell_magic(
    "sql",
    "",
    """
    SELECT query_id, ndcg(rel, rnk, 3) AS ndcg_3
    FROM (VALUES ('q1', 1, 1), ('q1', 0, 2), ('q1', 3, 3), ('q2', 0, 1), ('q2', 2, 2))
         AS judged(query_id, rel, rnk)
    GROUP BY query_id ORDER BY query_id
    """,
)
print(ndcg)
print(per_query.DataFrame())
