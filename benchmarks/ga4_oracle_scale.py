"""ga4_rankings and ga4_events against the plain-Python GA4 oracle of
``tests/sources/test_ga4_random.py`` at scale (issue 22's acceptance: about 100,000 generated
sessions), for 'last' and 'first' attribution with per-type windows. A local check, not a test
(the suite runs the same oracle on two small seeds): the oracle is the test's, so it shares no
code with the SQL.

    python benchmarks/ga4_oracle_scale.py --users 50000

Writes ``benchmarks/results/ga4_oracle_scale.md``: the sizes, and per attribution the shown rows
and events each side found and how many differ (0 expected).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import duckdb

import duckdb_ndcg

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "sources"))
from test_ga4_random import SCHEMA, WINDOWS, _as_ga4, _export, _oracle

COLUMNS = ("event_date", "event_timestamp", "event_name", "event_params", "user_pseudo_id",
           "device", "items")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rows = _export(args.seed, users=args.users)
    sessions = len({(r[0], r[1]) for r in rows})
    windows = ", ".join(f"'{n}': INTERVAL {s} SECOND" for n, s in WINDOWS.items())
    lines = [
        f"# GA4 adapter against the Python oracle, {sessions:,} sessions",
        "",
        (f"`benchmarks/ga4_oracle_scale.py --users {args.users} --seed {args.seed}`, "
         f"DuckDB {duckdb.__version__}: {len(rows):,} export rows of {args.users:,} users."),
        "",
        ("| attribution | shown rows (oracle / SQL) | events (oracle / SQL) | differing rows "
         "| SQL seconds |"),
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder, duckdb.connect() as con:
        duckdb_ndcg.register(con)
        path = Path(folder) / "ga4.ndjson"
        with path.open("w", encoding="utf-8") as out:
            for values in _as_ga4(rows):
                out.write(json.dumps(dict(zip(COLUMNS, values))) + "\n")
        columns = "{" + ", ".join(
            f"'{c}': '{t}'" for c, t in (part.split(" ", 1) for part in _split(SCHEMA))) + "}"
        con.execute(f"CREATE TABLE ga4 AS FROM read_json(?, columns = {columns})", [str(path)])
        for attribution in ("last", "first"):
            rankings, events = _oracle(rows, attribution)
            start = time.perf_counter()
            shown = set(con.sql("SELECT query_id, item_id, position FROM ga4_rankings('ga4')"
                                ).fetchall())
            got = set(con.sql("SELECT query_id, item_id, event_name, position FROM ga4_events("
                              f"'ga4', attribution := '{attribution}', "
                              f"attribution_window := MAP {{{windows}}})").fetchall())
            seconds = time.perf_counter() - start
            differing = len(shown ^ rankings) + len(got ^ events)
            lines.append(f"| {attribution} | {len(rankings):,} / {len(shown):,} | "
                         f"{len(events):,} / {len(got):,} | {differing} | {seconds:.1f} |")
    out = HERE / "results" / "ga4_oracle_scale.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def _split(schema: str) -> list[str]:
    """SCHEMA's column definitions, cut at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(schema):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(schema[start:i].strip())
            start = i + 1
    return [*parts, schema[start:].strip()]


if __name__ == "__main__":
    main()
