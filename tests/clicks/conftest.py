"""One connection for the click tests (registering the macros costs a second or more): the
generated log as ``log``, SRW's UBI example as ``ubi``."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest
from clicks_data import FIXTURES, UBI

import duckdb_ndcg


@pytest.fixture(scope="session")
def log() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(f"CREATE TABLE log AS SELECT * FROM read_csv('{FIXTURES / 'log.csv'}')")
        con.execute("CREATE TABLE ubi (user_query VARCHAR, object_id VARCHAR, "
                    "action_name VARCHAR, ordinal INTEGER, day DATE)")
        con.executemany("INSERT INTO ubi VALUES (?, ?, ?, ?, ?)", UBI)
        yield con
