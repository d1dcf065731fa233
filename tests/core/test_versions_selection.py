"""What the older DuckDB minors run: the tests marked ``versions``.

``.ci/run`` runs the whole suite on the newest DuckDB and ``-m versions`` on each older supported
minor: what can differ between versions (a macro binding, a function's behaviour, a plan that is
linear on one engine and quadratic on another) and one representative result per public macro,
in a few minutes per minor. Where a new test goes:

- a new public macro: call it, with a number computed independently, in a test marked
  ``@pytest.mark.versions`` (this test fails until one does);
- a test of a difference between DuckDB versions (a workaround, a function one minor lacks):
  mark it ``@pytest.mark.versions``;
- anything else (oracle sweeps, options, errors, the Python layer, the CLI): no mark, the
  newest DuckDB runs it.

A module whose ``pytestmark`` holds ``pytest.mark.versions`` counts as a whole.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from duckdb_ndcg.conventions import MACROS

TESTS = Path(__file__).resolve().parents[1]
MARK = "mark.versions"


def _marked(node: ast.AST, text: str) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(MARK in (ast.get_source_segment(text, d) or "") for d in decorators)


def _module_marked(tree: ast.Module, text: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return MARK in (ast.get_source_segment(text, node.value) or "")
    return False


def _with_helpers(tree: ast.Module, text: str, test: ast.AST) -> str:
    """A test's source and that of every module-level function, class or constant it reaches
    by name (its helpers, its tables of cases), transitively."""
    defined: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    defined[target.id] = node
    seen, todo, parts = set(), [test], []
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        parts.append(ast.get_source_segment(text, node) or "")
        for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
            if name in defined:
                todo.append(defined[name])
    return "\n".join(parts)


def versions_sources() -> Iterator[tuple[str, str]]:
    """(test id, source) of every test marked ``versions`` under tests/, helpers included."""
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        where = path.relative_to(TESTS.parent).as_posix()
        if _module_marked(tree, text):
            yield where, text
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test") and _marked(
                node, text
            ):
                yield f"{where}::{node.name}", _with_helpers(tree, text, node)


def calls(source: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){name}\s*\(", source) is not None


def test_every_public_macro_runs_on_every_minor() -> None:
    """Each public macro is called by at least one test the older minors run."""
    sources = list(versions_sources())
    missing = [m for m in sorted(MACROS) if not any(calls(s, m) for _, s in sources)]
    assert not missing, (
        "public macros no @pytest.mark.versions test calls (the older DuckDB minors would never "
        f"run them; see this module's docstring): {', '.join(missing)}"
    )


def test_the_scan_sees_marks_helpers_and_calls() -> None:
    text = (
        "import pytest\n"
        "CASES = [('x', 'list_ndcg([1])')]\n"
        "def _helper():\n    return 'ndcg(rel, rnk)'\n"
        "@pytest.mark.versions\n"
        "def test_a():\n    _helper(); CASES\n"
        "def test_b():\n    return 'err(rel, rnk)'\n"
    )
    tree = ast.parse(text)
    marked = [n for n in tree.body if isinstance(n, ast.FunctionDef) and _marked(n, text)]
    assert [n.name for n in marked] == ["test_a"]
    source = _with_helpers(tree, text, marked[0])
    assert calls(source, "ndcg") and calls(source, "list_ndcg") and not calls(source, "err")
    assert not calls("mean_ndcg(q, rel, rnk)", "ndcg")
    assert _module_marked(ast.parse(text + "pytestmark = pytest.mark.versions\n"), text + (
        "pytestmark = pytest.mark.versions\n"))
