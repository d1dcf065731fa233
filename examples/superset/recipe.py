"""Superset recipe: mean NDCG@10 per device from a DuckDB file with the macros, set up by REST API.

    pip install 'apache-superset[duckdb]==6.1.0' rich cachetools 'flask-caching==2.3.1'
    python examples/superset/build_db.py /data/ndcg.duckdb      # the macros + a judged search log
    python examples/superset/recipe.py http://127.0.0.1:8088 admin <password> /data/ndcg.duckdb

The same four steps in Superset's UI:
    Database  Settings > Database connections > + Database > DuckDB, SQLAlchemy URI
              duckdb:////data/ndcg.duckdb?access_mode=read_only
    Dataset   Datasets > + Dataset: database ndcg, schema main, table judged_run
    Metric    Edit dataset > Metrics > + Add item: mean_ndcg_10, SQL expression
              mean_ndcg(query_id, rel, rnk, 10)
    Chart     + Chart > Bar Chart on judged_run: X-axis device, metric mean_ndcg_10

The database opens the file read-only (dashboards only read; read-only readers share the file).
judged_run has one row per (query, item); the metric is the mean NDCG@10 over the queries of
whatever group a chart shows. Standard library only; the script prints the chart's data and the
SQL Lab queries' results.
"""

from __future__ import annotations

import http.cookiejar
import json
import sys
import urllib.error
import urllib.request
from typing import Any

# Superset's documented DuckDB install, plus what the 6.1.0 wheel lacks to start: rich, cachetools
# and flask-caching 2.3.1 (the docstring's pip line; the test lane installs exactly these)
SUPERSET = [
    "apache-superset[duckdb]==6.1.0",
    "rich",
    "cachetools",
    "flask-caching==2.3.1",
]
DATABASE = "ndcg"
DATASET = "judged_run"
METRIC = {
    "metric_name": "mean_ndcg_10",
    "verbose_name": "Mean NDCG@10",
    "expression": "mean_ndcg(query_id, rel, rnk, 10)",
    "description": "NDCG@10 of each query, averaged over the queries of the group",
}
COUNT_QUERIES = {
    "metric_name": "queries",
    "verbose_name": "Queries",
    "expression": "count(DISTINCT query_id)",
}
CHART = "Mean NDCG@10 by device"

# What an analyst runs in SQL Lab on the same database, each named by what it returns.
SQLLAB = {
    # the saved metric's expression, grouped by device: one row per device
    "mean_ndcg_by_device": (
        "SELECT device, mean_ndcg(query_id, rel, rnk, 10) AS mean_ndcg_10 "
        "FROM judged_run GROUP BY device ORDER BY device"
    ),
    # the same numbers from the event log itself (what build_db.py derived judged_run from)
    "summary_by_device": (
        "SELECT device, mean_ndcg FROM ndcg_summary('shown', 'events', k := 10, "
        "slice_by := ['device']) ORDER BY device"
    ),
    # the mistake: ndcg() as a metric pools every query of a device into ONE ranking
    "pooled_ndcg_by_device": (
        "SELECT device, ndcg(rel, rnk, 10) AS pooled_ndcg_10 "
        "FROM judged_run GROUP BY device ORDER BY device"
    ),
}


class Superset:
    """A logged-in session of the Superset REST API (JWT plus the session's CSRF token)."""

    def __init__(self, url: str, username: str, password: str) -> None:
        self.url = url.rstrip("/")
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self._headers: dict[str, str] = {}
        login = {"username": username, "password": password, "provider": "db", "refresh": False}
        token = self.call("POST", "/api/v1/security/login", login)["access_token"]
        self._headers["Authorization"] = f"Bearer {token}"
        self._headers["X-CSRFToken"] = self.call("GET", "/api/v1/security/csrf_token/")["result"]
        self._headers["Referer"] = self.url

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One API call; raises ``RuntimeError`` with Superset's message on an HTTP error."""
        headers = dict(self._headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with self._opener.open(request, timeout=300) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = error.read().decode(errors="replace")
            raise RuntimeError(f"{method} {path}: HTTP {error.code}: {detail}") from None

    def sqllab(self, database_id: int, sql: str) -> list[dict[str, Any]]:
        """Run one statement in SQL Lab (synchronously) and return its rows."""
        result = self.call(
            "POST",
            "/api/v1/sqllab/execute/",
            {"database_id": database_id, "sql": sql, "schema": "main", "runAsync": False},
        )
        if result.get("status") != "success":
            raise RuntimeError(f"SQL Lab: {result}")
        return result["data"]

    def chart_data(self, chart_id: int) -> list[dict[str, Any]]:
        """The rows a saved chart shows, computed by Superset from the chart's saved query."""
        return self.call("GET", f"/api/v1/chart/{chart_id}/data/?format=json")["result"][0]["data"]


def register(superset: Superset, duckdb_file: str) -> dict[str, int]:
    """Create the database, the dataset with its metrics and the chart; return their ids."""
    database = superset.call(
        "POST",
        "/api/v1/database/",
        {
            "database_name": DATABASE,
            "sqlalchemy_uri": f"duckdb:///{duckdb_file}?access_mode=read_only",
            "expose_in_sqllab": True,
        },
    )["id"]
    dataset = superset.call(
        "POST", "/api/v1/dataset/", {"database": database, "schema": "main", "table_name": DATASET}
    )["id"]
    superset.call("PUT", f"/api/v1/dataset/{dataset}", {"metrics": [METRIC, COUNT_QUERIES]})
    # a bar per device; query_context is what Superset runs for the chart's data endpoint
    query = {
        "columns": ["device"],
        "metrics": [METRIC["metric_name"], COUNT_QUERIES["metric_name"]],
        "orderby": [["device", True]],
        "row_limit": 1000,
    }
    params = {
        "viz_type": "echarts_timeseries_bar",
        "datasource": f"{dataset}__table",
        "x_axis": "device",
        "metrics": [METRIC["metric_name"]],
        "groupby": [],
        "row_limit": 1000,
        "y_axis_format": ".3f",
    }
    context = {
        "datasource": {"id": dataset, "type": "table"},
        "queries": [query],
        "form_data": params,
        "result_format": "json",
        "result_type": "full",
    }
    chart = superset.call(
        "POST",
        "/api/v1/chart/",
        {
            "slice_name": CHART,
            "viz_type": params["viz_type"],
            "datasource_id": dataset,
            "datasource_type": "table",
            "params": json.dumps(params),
            "query_context": json.dumps(context),
        },
    )["id"]
    return {"database": database, "dataset": dataset, "chart": chart}


def main(argv: list[str]) -> None:
    url, username, password, duckdb_file = argv
    superset = Superset(url, username, password)
    ids = register(superset, duckdb_file)
    print(f"database {ids['database']}, dataset {ids['dataset']}, chart {ids['chart']}")
    print(f"{CHART}:")
    for row in superset.chart_data(ids["chart"]):
        print(f"  {row['device']:<8} {row['mean_ndcg_10']:.4f} over {row['queries']} queries")
    for name, sql in SQLLAB.items():
        print(f"SQL Lab, {name}: {superset.sqllab(ids['database'], sql)}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1:])
