"""The loader reads several statements per ``.sql`` file, each with its own header comment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from duckdb_ndcg import macros as loader

TWO = """-- What this file holds.

-- _ndcg_a(x): the first (internal).
CREATE OR REPLACE MACRO _ndcg_a(x) AS
x + 1;

-- b(x): the second, calling the first.
--   x  a number
CREATE OR REPLACE MACRO b(x) AS
-- a comment inside the body stays with it
_ndcg_a(x) * 2;
"""


def test_each_statement_keeps_its_header_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "two.sql"
    path.write_text(TWO, encoding="utf-8")
    first = "-- _ndcg_a(x): the first (internal).\nCREATE OR REPLACE MACRO _ndcg_a(x) AS\nx + 1;\n"
    second = (
        "-- b(x): the second, calling the first.\n--   x  a number\n"
        "CREATE OR REPLACE MACRO b(x) AS\n-- a comment inside the body stays with it\n"
        "_ndcg_a(x) * 2;\n"
    )
    assert loader.statements(path) == [("_ndcg_a", first), ("b", second)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-- nothing here\n", "holds no 'CREATE OR REPLACE MACRO name(' statement"),
        ("SELECT 1;\n\n" + TWO, "only a comment may come before the first macro's header"),
    ],
)
def test_a_file_that_is_not_macros_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.sql"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuntimeError, match=re.escape(message)):
        loader.statements(path)


def test_every_macro_is_created_once_and_files_hold_several() -> None:
    found = loader.macros()
    names = [m.name for m in found]
    assert len(names) == len(set(names))
    files = {m.path for m in found}
    assert len(files) < len(found)  # files group a concept's macros
    for path in files:  # every statement of a file is found, in file order
        in_file = [m.name for m in found if m.path == path]
        assert sorted(in_file) == sorted(name for name, _ in loader.statements(path))
        assert path.read_text(encoding="utf-8").count(loader._HEAD) == len(in_file)
