"""Fixtures of the statistics tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def gc_frozen() -> Iterator[None]:
    """The objects the session holds so far frozen out of the garbage collector for one test.

    statsmodels' multipletests(method='holm') calls gc.collect() on every call, a full collection
    that walks every object of the test session (about 0.15 s a call here: 60 s of a 200-family
    holm oracle). Frozen, those objects are skipped; what the test itself makes is collected as
    usual, and the oracle's numbers are the same."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
