"""Shared fixtures: a fresh in-memory DuckDB connection with every macro registered."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest

import duckdb_ndcg


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as connection:
        duckdb_ndcg.register(connection)
        yield connection
