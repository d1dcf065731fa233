"""The UBI adapter on the public ESCI UBI sample: queries, impressions and clicks per application,
and the interactions not attributed, by reason (issue 22's local check; the suite ships its own
generated UBI fixtures, this file is not in the repository).

The sample is OpenSearch Search Relevance Workbench's test data,
``src/test/data-esci/ubi_queries_events.ndjson`` of opensearch-project/search-relevance: an
OpenSearch bulk file, an ``{"index": {"_index": ...}}`` line before each document of the
``ubi_queries`` and ``ubi_events`` indexes. This script splits it into the two indexes (as an
export of each would give them), then reads them through ``ubi_rankings``, ``ubi_events`` and
``ubi_unattributed`` with their defaults, and writes ``benchmarks/results/esci_ubi_counts.md``.

Run (the search tool's fetch brings the repository; no network otherwise)::

    git -C /work/.mirror/opensearch-project+search-relevance/repo show \\
        HEAD:src/test/data-esci/ubi_queries_events.ndjson > /tmp/esci_bulk.ndjson
    .venv/bin/python benchmarks/esci_ubi_counts.py /tmp/esci_bulk.ndjson
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import duckdb

import duckdb_ndcg

RESULTS = Path(__file__).resolve().parent / "results" / "esci_ubi_counts.md"


def split(bulk: Path, folder: Path) -> dict[str, Path]:
    """The bulk file's documents, one NDJSON file per index."""
    files = {name: folder / f"{name}.ndjson" for name in ("ubi_queries", "ubi_events")}
    outs = {name: path.open("w", encoding="utf-8") for name, path in files.items()}
    index = None
    with bulk.open(encoding="utf-8") as lines:
        for line in lines:
            document = json.loads(line)
            if "index" in document and len(document) == 1:
                index = document["index"]["_index"]
            else:
                outs[index].write(line)
    for out in outs.values():
        out.close()
    return files


def table(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    rel = con.sql(sql)
    rows = rel.fetchall()
    head = "| " + " | ".join(rel.columns) + " |\n|" + "---|" * len(rel.columns) + "\n"
    return head + "".join("| " + " | ".join(map(str, r)) + " |\n" for r in rows)


def main(bulk: str) -> None:
    with tempfile.TemporaryDirectory() as folder, duckdb.connect() as con:
        files = split(Path(bulk), Path(folder))
        duckdb_ndcg.register(con)
        for name, path in files.items():
            con.execute(f"CREATE TABLE {name} AS FROM read_json(?)", [str(path)])
        con.execute("CREATE TABLE shown AS FROM ubi_rankings('ubi_queries', 'ubi_events')")
        con.execute("CREATE TABLE acted AS FROM ubi_events('ubi_queries', 'ubi_events')")
        raw = table(con, """
            SELECT application, action_name, count(*) AS events,
                   count(DISTINCT query_id) AS queries,
                   min(event_attributes.position.ordinal) AS lowest_ordinal
            FROM ubi_events GROUP BY ALL ORDER BY ALL""")
        queries = table(con, """
            SELECT application, count(*) AS ubi_queries,
                   count(*) FILTER (WHERE len(query_response_hit_ids) > 0) AS with_hit_ids
            FROM ubi_queries GROUP BY ALL ORDER BY ALL""")
        adapted = table(con, """
            SELECT s.application, count(DISTINCT s.query_id) AS shown_queries,
                   count(*) AS shown_rows, count(*) FILTER (WHERE s.shown_by = 'hits') AS by_hit_ids,
                   (SELECT count(*) FROM acted a JOIN (SELECT DISTINCT query_id, application
                       FROM shown) q USING (query_id)
                    WHERE q.application = s.application AND a.event_type = 'click') AS clicks
            FROM shown s GROUP BY ALL ORDER BY ALL""")
        missed = table(con, """
            SELECT event_name AS action_name, reason, count(*) AS events
            FROM ubi_unattributed('ubi_queries', 'ubi_events') GROUP BY ALL ORDER BY ALL""")
        report = table(con, """
            SELECT s.application, count(*) AS queries, round(avg(r.ndcg), 4) AS mean_ndcg_10
            FROM ndcg_report('shown', 'acted', k := 10) r
            JOIN (SELECT DISTINCT query_id, application FROM shown) s USING (query_id)
            GROUP BY ALL ORDER BY ALL""")
        version = duckdb.__version__
    RESULTS.write_text(
        "# The UBI adapter on SRW's public ESCI UBI sample\n\n"
        f"`benchmarks/esci_ubi_counts.py` (its docstring says how to run it), DuckDB {version}.\n\n"
        "## The indexes as they are\n\n" + queries + "\n" + raw +
        "\n## Through `ubi_rankings` and `ubi_events` (defaults: position_base 'auto')\n\n"
        + adapted + "\n## Not attributed (`ubi_unattributed`), by reason\n\n" + missed
        + "\n## Mean NDCG@10 per application (clicks graded 1, impressions 0)\n\n" + report,
        encoding="utf-8",
    )
    print(RESULTS.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main(sys.argv[1])
