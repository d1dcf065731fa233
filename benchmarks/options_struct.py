"""Options as one STRUCT against options by name: what DuckDB's macro expansion costs at planning.

A table macro reads 27 options 150 times (about what the report engine does): from a struct
``o['f3']`` built by its caller, or from named parameters ``f3`` passed on by name. DuckDB pastes
a macro's argument wherever the body names it, so each ``o['f3']`` copies and binds the whole
struct; a named parameter pastes one constant. Minimum of 7 one-row runs, milliseconds.

    python benchmarks/options_struct.py
"""

from __future__ import annotations

import time

import duckdb

FIELDS = [f"f{i}" for i in range(27)]
USES = 150


def main() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    params = ", ".join(f"{f} := 1" for f in FIELDS)
    from_struct = ", ".join(f"o['f{i % 27}'] AS c{i}" for i in range(USES))
    by_name = ", ".join(f"f{i % 27} AS c{i}" for i in range(USES))
    con.execute(f"CREATE MACRO read_struct(o) AS TABLE SELECT {from_struct} FROM t")
    con.execute(f"CREATE MACRO read_named({params}) AS TABLE SELECT {by_name} FROM t")
    struct = "{" + ", ".join(f"'{f}': {f}" for f in FIELDS) + "}"
    con.execute(f"CREATE MACRO via_struct({params}) AS TABLE FROM read_struct({struct})")
    named = ", ".join(f"{f} := {f}" for f in FIELDS)
    con.execute(f"CREATE MACRO via_named({params}) AS TABLE FROM read_named({named})")
    print(f"DuckDB {duckdb.__version__}: {USES} reads of 27 options, one row, min of 7")
    for label, query in (("one STRUCT, o['name']", "FROM via_struct()"),
                         ("by name, name := name", "FROM via_named()")):
        times = []
        for _ in range(7):
            start = time.perf_counter()
            con.execute(query).fetchall()
            times.append(time.perf_counter() - start)
        print(f"  {label}: {min(times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
