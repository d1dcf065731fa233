"""How much SQL a reader follows from a public macro: the macros it calls, transitively, and the
files and lines holding them (issue 21's counts: `ndcg` readable from at most 9 files).

    python benchmarks/reach.py ndcg ndcg_report run_report
"""

from __future__ import annotations

import re
import sys

from duckdb_ndcg.macros import _HEAD, macros


def reached(name: str) -> list[str]:
    """``name`` and every macro it calls, transitively."""
    by_name = {m.name: m for m in macros()}
    seen, todo = [], [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        body = by_name[current].sql.split(_HEAD, 1)[1]
        todo += [n for n in by_name if n != current and re.search(rf"\b{n}\s*\(", body)]
    return seen


def main(names: list[str]) -> None:
    by_name = {m.name: m for m in macros()}
    print(f"{len(macros())} macros in {len({m.path for m in macros()})} files")
    print("| macro | macros reached | files | lines |")
    print("|---|---|---|---|")
    for name in names:
        found = reached(name)
        files = {by_name[n].path for n in found}
        lines = sum(by_name[n].sql.count("\n") for n in found)
        print(f"| {name} | {len(found)} | {len(files)} | {lines} |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["ndcg", "ndcg_report", "run_report"])
