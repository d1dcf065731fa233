"""The BI-tool lanes: slow, opt-in (each installs a tool in its own venv)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "superset: installs and starts Apache Superset (DUCKDB_NDCG_SUPERSET=1)"
    )
