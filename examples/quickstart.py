"""Quick start: NDCG@k per query from a table of what was shown and a table of what users did."""

from __future__ import annotations

import duckdb

import duckdb_ndcg

con = duckdb_ndcg.register(duckdb.connect())
con.execute("""CREATE TABLE shown AS SELECT * FROM (VALUES
    ('shoes', 'sku-1', 1), ('shoes', 'sku-2', 2), ('shoes', 'sku-3', 3),
    ('socks', 'sku-7', 1), ('socks', 'sku-8', 2)) AS t(query_id, item_id, position)""")
con.execute("""CREATE TABLE events AS SELECT * FROM (VALUES
    ('shoes', 'sku-2', 'click'), ('shoes', 'sku-2', 'purchase'), ('shoes', 'sku-3', 'click'),
    ('socks', 'sku-7', 'add_to_cart')) AS t(query_id, item_id, event_type)""")

print(con.sql("SELECT * FROM ndcg_report('shown', 'events', k := [1, 3]) ORDER BY ALL"))
report = duckdb_ndcg.evaluate("shown", "events", k=3, con=con)
print(report.fetchall())
