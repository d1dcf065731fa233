"""Options travel by name: an internal macro that takes a report's or a metric's options declares
each one as ``name := NULL``, and every call names every one of them (issue 21: a swapped or
forgotten positional option was caught only by behaviour tests).

The rule is read from the SQL, not listed here: an internal macro whose parameters after its
tables are all ``:= NULL`` takes options, so each call of it must name exactly those options.
"""

from __future__ import annotations

import re

import pytest

from duckdb_ndcg.macros import macros

_COMMENT = re.compile(r"--[^\n]*")
_LITERAL = re.compile(r"'(?:[^']|'')*'")


def _code(sql: str) -> str:
    """The text without comments, string literals blanked (a literal may hold commas)."""
    return _LITERAL.sub("''", _COMMENT.sub("", sql))


def _arguments(text: str, open_at: int) -> list[str]:
    """The top-level, comma-separated arguments of the call whose '(' is at ``open_at``."""
    depth, current, parts = 0, "", []
    for ch in text[open_at:]:
        if ch in "([{":
            depth += 1
            if depth == 1:
                continue
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                parts.append(current.strip())
                return [p for p in parts if p]
        if ch == "," and depth == 1:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    raise AssertionError("unbalanced call")


def _signature(sql: str) -> list[str]:
    code = _code(sql)
    head = re.search(r"CREATE OR REPLACE MACRO \w+\s*\(", code)
    assert head is not None
    return _arguments(code, head.end() - 1)


def _option_takers() -> dict[str, tuple[int, set[str]]]:
    """name -> (how many positional tables, the options it takes), for every internal macro
    whose named parameters all default to NULL (and that has at least three of them)."""
    found = {}
    for macro in macros():
        if macro.public:
            continue
        params = _signature(macro.sql)
        named = [p.split(":=")[0].strip() for p in params if ":=" in p]
        defaults = [p.split(":=")[1].strip() for p in params if ":=" in p]
        if len(named) >= 3 and all(d == "NULL" for d in defaults):
            found[macro.name] = (len(params) - len(named), set(named))
    return found


TAKERS = _option_takers()


def test_the_engines_take_their_options_by_name() -> None:
    # the internal macros that used to take the report's or ndcg's options by position
    assert {"_ndcg_report_rows", "_ndcg_report_metric_rows", "_ndcg_compare_pairs",
            "_ndcg_event_relevance", "_ndcg_dcg", "_ndcg_ndcg"} <= set(TAKERS)


@pytest.mark.parametrize("macro", [m for m in macros() if any(
    re.search(rf"\b{name}\s*\(", _code(m.sql.split("AS", 1)[1])) for name in TAKERS)],
    ids=lambda m: m.name)
def test_every_call_names_every_option(macro) -> None:
    body = _code(macro.sql)
    body = body[re.search(r"CREATE OR REPLACE MACRO \w+\s*\(", body).end():]
    calls = 0
    for name, (tables, options) in TAKERS.items():
        for call in re.finditer(rf"\b{name}\s*\(", body):
            args = _arguments(body, call.end() - 1)
            positional = [a for a in args if ":=" not in a]
            given = [a.split(":=")[0].strip() for a in args if ":=" in a]
            assert len(positional) == tables, (
                f"{macro.name} passes {name} {len(positional)} arguments by position; "
                f"only its {tables} tables go by position, the options by name")
            assert len(given) == len(set(given)), f"{macro.name} names an option twice"
            missing, unknown = options - set(given), set(given) - options
            assert not missing, f"{macro.name} calls {name} without {sorted(missing)}"
            assert not unknown, f"{macro.name} calls {name} with unknown {sorted(unknown)}"
            calls += 1
    assert calls > 0


def test_a_forgotten_option_is_caught() -> None:
    # the check above on a call that leaves out ties: it must fail
    takers = dict(TAKERS)
    tables, options = takers["_ndcg_report_rows"]
    call = ("_ndcg_report_rows(rankings, events, "
            + ", ".join(f"{o} := {o}" for o in sorted(options - {"ties"})) + ")")
    args = _arguments(call, call.index("("))
    given = {a.split(":=")[0].strip() for a in args if ":=" in a}
    assert options - given == {"ties"}
    assert len([a for a in args if ":=" not in a]) == tables
