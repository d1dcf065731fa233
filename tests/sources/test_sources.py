"""Every source adapter is complete and reachable: its three macros, its conventions rows, its
SOURCES entry (evaluate(source=...)) and the CLI's --source choice (README Development: "a
source")."""

from __future__ import annotations

from duckdb_ndcg import cli, macros
from duckdb_ndcg.conventions import MACROS
from duckdb_ndcg.sources import SOURCES

PARTS = ("rankings", "events", "unattributed")
TO_ADD = (
    "a source needs sql/sources/<vendor>.sql with <vendor>_rankings, <vendor>_events and "
    "<vendor>_unattributed, their rows in duckdb_ndcg/conventions.py and its inputs in SOURCES "
    "(duckdb_ndcg/sources.py)"
)


def test_every_vendor_has_its_macros_rows_and_entry() -> None:
    vendors = {m.name.removesuffix("_rankings") for m in macros.macros()
               if m.public and m.name.endswith("_rankings") and m.path.parent.name == "sources"}
    assert vendors == set(SOURCES), TO_ADD
    for vendor in SOURCES:
        for part in PARTS:
            assert f"{vendor}_{part}" in MACROS, f"{vendor}_{part}: {TO_ADD}"
        required = [p.name for p in MACROS[f"{vendor}_events"].params if p.default is None]
        assert len(required) == len(SOURCES[vendor]), f"{vendor}: SOURCES names its inputs"


def test_the_cli_offers_every_source() -> None:
    parser = cli._parser()
    evaluate = next(a for a in parser._actions if a.dest == "command").choices["evaluate"]
    source = next(a for a in evaluate._actions if a.dest == "source")
    assert tuple(source.choices) == tuple(SOURCES)
