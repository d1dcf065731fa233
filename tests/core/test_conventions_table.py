"""The conventions table (duckdb_ndcg.conventions) against every layer that restates it.

1. each public ``.sql`` signature: parameter names, order and defaults; no macro missing either way;
2. each ``.sql`` header comment: its signature lines name the same parameters and defaults;
3. each enumerated option of each macro: a bad value (and NULL) raises the table's wording on DuckDB;
4. the Python API's defaults, the CLI's choices and defaults, the portable ``to_sql`` validation;
5. the README's Conventions, Reference and Statistics sections: every macro, every enumerated
   option's default and allowed values, every ``name := default`` of a reference signature.

Disagreements in files this test does not own are listed in KNOWN, each a strict xfail naming the
file: fixing the file makes the test pass, and then the entry must go.
"""

from __future__ import annotations

import argparse
import inspect
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli, portable
from duckdb_ndcg import macros as loader
from duckdb_ndcg.conventions import (
    AGGREGATES,
    CLI_COMMANDS,
    CLI_LISTS,
    CLI_SWITCHES,
    MACROS,
    PYTHON_API,
    REPORT_OPTIONS,
    Macro,
    Param,
    cli_flag,
    enumerated,
)

ROOT = Path(__file__).resolve().parents[2]
HEAD = "CREATE OR REPLACE MACRO "

# Disagreements found in files this test does not own (see the module docstring).
KNOWN: dict[tuple[str, ...], str] = {
    **{(f, "gain", "wording"): "the portable SQL has no value grades: its gain error names "
       "'linear', 'exponential' or a MAP, not the report macros' gain := 'value'"
       for f in ("events_to_sql", "compare_to_sql")},
}


def known(*key: str) -> list[pytest.MarkDecorator]:
    reason = KNOWN.get(key)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


# --- parsing ---------------------------------------------------------------------------------


def split_top(text: str) -> list[str]:
    """``text`` cut at the commas outside brackets and string literals."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch in "([{":
            depth += 1
        elif not quoted and ch in ")]}":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def call_arguments(text: str, name: str) -> str:
    """What stands between ``name(`` and its matching ``)`` in ``text``."""
    start = re.search(rf"\b{name}\(", text).end()
    depth, quoted = 1, False
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
            if depth == 0:
                return text[start:i]
    raise AssertionError(f"no closing parenthesis after {name}(")


def parse_params(arguments: str) -> list[tuple[str, str | None]]:
    out = []
    for part in split_top(arguments):
        name, _, value = part.partition(":=")
        out.append((name.strip(), value.strip() or None))
    return out


def norm(sql: str | None) -> str | None:
    """A default as SQL text, compared loosely: casts, case of keywords, spacing, 0 vs 0.0."""
    if sql is None:
        return None
    text = re.sub(r"::\s*[A-Za-z]+(\[\])*", "", sql)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([,\[\]])\s*", r"\1", text)
    if text.upper() in ("NULL", "TRUE", "FALSE"):
        return text.upper()
    try:
        return repr(float(text))
    except ValueError:
        return text


def python_sql(value: object) -> str:
    """A Python default written as the SQL literal it stands for."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(python_sql(v) for v in value) + "]"
    return repr(value)


def sql_texts() -> dict[str, str]:
    """Each public macro's statement with its header comment, as the loader reads them."""
    return {m.name: m.sql for m in loader.macros() if m.public}


def signature(name: str) -> list[tuple[str, str | None]]:
    return parse_params(call_arguments(sql_texts()[name].split(HEAD, 1)[1], name))


def header(name: str) -> str:
    lines = sql_texts()[name].split(HEAD, 1)[0].splitlines()
    return "\n".join(re.sub(r"^--\s?", "", line) for line in lines if line.startswith("--"))


def table_params(macro: Macro) -> list[tuple[str, str | None]]:
    return [(p.name, p.default) for p in macro.params]


# --- 1. the .sql signatures ---------------------------------------------------------------------


def test_every_public_macro_is_in_the_table() -> None:
    assert sorted(sql_texts()) == sorted(MACROS)


@pytest.mark.parametrize("name", sorted(MACROS))
def test_sql_signature(name: str) -> None:
    sql = [(n, norm(d)) for n, d in signature(name)]
    table = [(n, norm(d)) for n, d in table_params(MACROS[name])]
    assert sql == table


def test_measures_and_preset_overloads() -> None:
    """Which macros have a second signature (the measures overload) and a third (the preset
    overload) is the table's to say."""
    count = {m.name: len(loader.signatures(m.sql)) for m in loader.macros() if m.public}
    assert count == {m.name: 1 + bool(m.measures) + m.preset for m in MACROS.values()}


@pytest.mark.parametrize("name", sorted(m.name for m in MACROS.values() if m.preset))
def test_sql_preset_overload(name: str) -> None:
    """The preset overload's parameters are the macro's with preset after the required ones."""
    sql = sql_texts()[name]
    opening, close = loader.signatures(sql)[2]
    listed = [(n, norm(d)) for n, d in parse_params(sql[opening + 1 : close])]
    assert listed == [(p.name, norm(p.default)) for p in MACROS[name].preset_overload]


@pytest.mark.parametrize("name", sorted(m.name for m in MACROS.values() if m.measures))
def test_sql_measures_overload(name: str) -> None:
    """The overload's parameters are the macro's with measures and grammar after the required
    ones; its body calls the macro the table names for it."""
    sql = sql_texts()[name]
    opening, close = loader.signatures(sql)[1]
    listed = [(n, norm(d)) for n, d in parse_params(sql[opening + 1 : close])]
    assert listed == [(p.name, norm(p.default)) for p in MACROS[name].overload]
    assert f"SELECT * FROM {MACROS[name].measures}(" in sql[close:]


# --- 2. the header comments ----------------------------------------------------------------------

# How a report macro's header stands for REPORT_OPTIONS it does not list one by one.
_EVERY_REPORT_OPTION = "...every other ndcg_report parameter"


@pytest.mark.parametrize("name", [pytest.param(n, marks=known(n)) for n in sorted(MACROS)])
def test_header_signature(name: str) -> None:
    """The header's own signature (its first lines) names the parameters, defaults included."""
    text = header(name)
    assert text.startswith(f"{name}("), f"{name}.sql: the header must open with the signature"
    listed = parse_params(call_arguments(text, name))
    expected = table_params(MACROS[name])
    if listed and listed[-1][0] == _EVERY_REPORT_OPTION:
        listed = listed[:-1]
        named = {n for n, _ in listed}
        expected = [
            (n, d) for n, d in expected if n in named or n not in {p.name for p in REPORT_OPTIONS}
        ]
    # the header writes a default where the signature has one (a required parameter has none)
    assert [(n, norm(d)) for n, d in listed] == [(n, norm(d)) for n, d in expected]


# --- 3. the errors for a bad enumerated value, on DuckDB ------------------------------------------

_ARGUMENTS = {
    "rel": "rel",
    "rnk": "rnk",
    "query_id": "query_id",
    "rels": "[3, 2, 0]",
    "tbl": "'judged_run'",
    "rankings": "'shown'",
    "rankings_a": "'shown'",
    "rankings_b": "'shown'",
    "events": "'events'",
    "arm_col": "'variant'",
    "queries_tbl": "'ubi_queries'",
    "responses_tbl": "'ubi_queries'",  # Algolia's: no enumerated option reads it
    "events_tbl": "'click_log'",
    "logs_tbl": "'click_log'",
    "policy_tbl": "'click_policy'",
}
_UBI = {"queries_tbl": "'ubi_queries'", "events_tbl": "'ubi_events'"}
_TABLES = {
    "p_adjust": {"tbl": "'results'"},
    **{name: {"tbl": "'ga4_export'"} for name in ("ga4_rankings", "ga4_events", "ga4_unattributed")},
    **{f"ubi_{name}": _UBI for name in ("rankings", "events", "unattributed")},
    **{f"algolia_{name}": {"events_tbl": "'ubi_events'"} for name in ("events", "unattributed")},
    **{f"snowplow_{name}": {"tbl": "'snowplow_atomic'"}
       for name in ("rankings", "events", "unattributed")},
    **{f"segment_{name}": {"tbl": "'segment_tracks'"}
       for name in ("rankings", "events", "unattributed")},
}
_EXTRA = {"ab_summary": ", baseline := 'a'"}
_BAD = ("'bogus'", "NULL")


def checked(macro: Macro) -> Iterator[Param]:
    """The enumerated options to call a macro with: a report macro's only where the table first
    declares them for the report family (each report macro binds for 0.3 s, and a shared option,
    REPORT_OPTIONS or PAIRING, reaches the same engine from every one of them)."""
    reports = [m for m in MACROS.values() if m.kind == "report"]
    for param in macro.params:
        first = next((m for m in reports if param in m.params), macro)
        if param.choices and (macro.kind != "report" or first is macro):
            yield param


def on_every_minor(macro: Macro, param: Param) -> list[pytest.MarkDecorator]:
    """``versions`` for the first macro of each kind that takes an option: the older minors check
    each option's validation once per kind of macro (scalar, aggregate, table, report...), whose
    bindings differ between versions; which macro wires which check is the same SQL on every
    version, and the newest runs all of them (a call binds for 0.1 to 0.3 s: 186 calls of each
    test were a third of each older minor's run)."""
    first = next(m for m in MACROS.values() if m.kind == macro.kind and param in checked(m))
    return [pytest.mark.versions] if first is macro else []


def bad_calls() -> Iterator[object]:
    for macro in MACROS.values():
        for param in checked(macro):
            for bad in _BAD:
                value = f"[{bad}]" if param.many else bad
                got = f"[{bad.strip(chr(39))}]" if param.many else bad
                key = (macro.name, param.name, bad)
                yield pytest.param(macro, param, value, got, id="-".join(key),
                                   marks=[*known(*key), *on_every_minor(macro, param)])


def call(macro: Macro, option: str, value: str) -> str:
    positional = {**_ARGUMENTS, **_TABLES.get(macro.name, {})}
    args = [positional[p.name] for p in macro.params if p.default is None]
    args.append(f"{option} := {value}")
    text = f"{macro.name}({', '.join(args)}{_EXTRA.get(macro.name, '')})"
    if macro.kind in ("table", "report", "stats_table"):
        return f"SELECT * FROM {text}"
    return f"SELECT {text} FROM judged_run WHERE rnk IS NOT NULL"


@pytest.fixture(scope="module")
def data() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            "CREATE TABLE judged_run AS SELECT * FROM (VALUES ('q', 'x', 2.0, 1.0), ('q', 'y', 0.0, "
            "2.0), ('q', 'z', 1.0, NULL)) t(query_id, item_id, rel, rnk)"
        )
        con.execute(
            "CREATE TABLE shown AS SELECT * FROM (VALUES ('q', 'x', 1, 'a'), ('q', 'y', 2, 'a'), "
            "('r', 'x', 1, 'b'), ('r', 'y', 2, 'b')) t(query_id, item_id, position, variant)"
        )
        con.execute(
            "CREATE TABLE events AS SELECT * FROM (VALUES ('q', 'y', 'click'), ('r', 'x', "
            "'purchase')) t(query_id, item_id, event_type)"
        )
        con.execute("CREATE TABLE results AS SELECT 0.01 AS p_value")
        con.execute(  # an empty GA4 export (tests/sources/test_ga4.py has one with rows)
            "CREATE TABLE ga4_export (event_date VARCHAR, event_timestamp BIGINT, event_name "
            "VARCHAR, event_params STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, "
            "int_value BIGINT, float_value DOUBLE, double_value DOUBLE))[], user_pseudo_id "
            "VARCHAR, device STRUCT(category VARCHAR), items STRUCT(item_id VARCHAR, price DOUBLE, "
            "quantity BIGINT, item_revenue DOUBLE, item_list_name VARCHAR, item_list_index "
            "VARCHAR)[])"
        )
        con.execute(  # empty UBI indexes (tests/sources/test_ubi.py has them with documents)
            "CREATE TABLE ubi_queries (application VARCHAR, query_id VARCHAR, client_id VARCHAR, "
            "user_query VARCHAR, timestamp VARCHAR, query_response_hit_ids VARCHAR[])"
        )
        con.execute(
            "CREATE TABLE ubi_events (application VARCHAR, action_name VARCHAR, query_id VARCHAR, "
            "session_id VARCHAR, client_id VARCHAR, timestamp VARCHAR, event_attributes "
            "STRUCT(object STRUCT(object_id VARCHAR), position STRUCT(ordinal INTEGER)))"
        )
        con.execute(  # an empty Snowplow table (tests/sources/test_snowplow.py has one with rows)
            "CREATE TABLE snowplow_atomic (event_id VARCHAR, derived_tstamp TIMESTAMP, "
            "domain_userid VARCHAR, user_id VARCHAR, domain_sessionid VARCHAR, "
            "unstruct_event_com_snowplowanalytics_snowplow_ecommerce_snowplow_ecommerce_action_1 "
            "STRUCT(type VARCHAR, name VARCHAR), "
            "contexts_com_snowplowanalytics_snowplow_ecommerce_product_1 STRUCT(id VARCHAR, "
            "price DOUBLE, quantity BIGINT, position BIGINT)[], "
            "unstruct_event_com_snowplowanalytics_snowplow_site_search_1 STRUCT(terms VARCHAR[]))"
        )
        con.execute(  # empty Segment track calls (tests/sources/test_segment.py has some)
            "CREATE TABLE segment_tracks (type VARCHAR, event VARCHAR, userId VARCHAR, "
            "anonymousId VARCHAR, messageId VARCHAR, timestamp VARCHAR, properties JSON, "
            "context JSON)"
        )
        con.execute(
            "CREATE TABLE click_log AS SELECT * FROM (VALUES ('s', 'q', 'x', 1, 1), "
            "('s', 'q', 'y', 2, 0)) t(session_id, query_id, item_id, position, click)"
        )
        con.execute("ALTER TABLE click_log ADD COLUMN propensity_score DOUBLE DEFAULT 0.5")
        for column in ("slate_id VARCHAR DEFAULT 's'", "evaluation_propensity DOUBLE DEFAULT 0.5"):
            con.execute(f"ALTER TABLE click_log ADD COLUMN {column}")  # slate_estimate's
        con.execute("CREATE TABLE click_policy AS SELECT 'x' AS item_id, 1 AS position, "
                    "1.0 AS probability")
        yield con


@pytest.mark.parametrize(("macro", "param", "value", "got"), list(bad_calls()))
def test_bad_value_error(
    data: duckdb.DuckDBPyConnection, macro: Macro, param: Param, value: str, got: str
) -> None:
    with pytest.raises(duckdb.Error) as raised:
        data.execute(call(macro, param.name, value)).fetchall()
    assert f"duckdb_ndcg: {param.error(got)}" in str(raised.value)


@pytest.mark.parametrize(
    ("macro", "param", "value"),
    [
        pytest.param(m, p, f"'{c}'" if not p.many else f"['{c}']", marks=on_every_minor(m, p))
        for m in MACROS.values()
        for p in checked(m)
        for c in p.choices
        if not (p.name == "collapse" and c == "last")
    ],
    ids=lambda v: v.name if isinstance(v, (Macro, Param)) else v,
)
def test_allowed_value_accepted(
    data: duckdb.DuckDBPyConnection, macro: Macro, param: Param, value: str
) -> None:
    """Every allowed value is accepted (ties 'key' without a tie key, duplicates in a report:
    errors of another kind, which must not be the option's own)."""
    try:
        data.execute(call(macro, param.name, value)).fetchall()
    except duckdb.Error as error:
        assert f"{param.name} must " not in str(error)


# --- 4. the Python API, the CLI, the portable SQL ---------------------------------------------------

_PYTHON_FUNCTIONS = {
    "evaluate": duckdb_ndcg.evaluate,
    "compare": duckdb_ndcg.compare,
    "to_sql": portable.to_sql,
    "events_to_sql": portable.events_to_sql,
    "compare_to_sql": portable.compare_to_sql,
    "click_grades": duckdb_ndcg.click_grades,
    "click_grades_to_sql": portable.click_grades_to_sql,
    "position_bias": duckdb_ndcg.position_bias,
    "ips_estimate": duckdb_ndcg.ips_estimate,
    "slate_estimate": duckdb_ndcg.slate_estimate,
    "ips_ndcg": duckdb_ndcg.ips_ndcg,
    "ips_estimate_to_sql": portable.ips_estimate_to_sql,
    "slate_estimate_to_sql": portable.slate_estimate_to_sql,
    "ips_ndcg_to_sql": portable.ips_ndcg_to_sql,
}


def python_defaults() -> Iterator[object]:
    for function, macros in PYTHON_API.items():
        for name, parameter in inspect.signature(_PYTHON_FUNCTIONS[function]).parameters.items():
            for macro in macros:
                if parameter.default is inspect.Parameter.empty:
                    continue
                # a parameter the macro requires has no default to agree with (evaluate's
                # events is optional: source='ga4' reads both from one export)
                if any(p.name == name and p.default is not None for p in MACROS[macro].params):
                    yield pytest.param(
                        function,
                        macro,
                        name,
                        parameter.default,
                        id=f"{function}-{macro}-{name}",
                        marks=known(function, macro, name),
                    )


def test_to_sql_covers_every_aggregate() -> None:
    assert sorted(portable.METRICS) == sorted(AGGREGATES)


@pytest.mark.parametrize(("function", "macro", "name", "value"), list(python_defaults()))
def test_python_default(function: str, macro: str, name: str, value: object) -> None:
    assert norm(python_sql(value)) == norm(MACROS[macro].param(name).default)


@pytest.mark.parametrize(
    ("function", "macro"),
    [
        pytest.param(f, ms[0], marks=known(f, "options"), id=f)
        for f, ms in PYTHON_API.items()
        if f in ("evaluate", "compare")
    ],
)
def test_python_takes_every_option(function: str, macro: str) -> None:
    """evaluate and compare take every named parameter of the macro they call."""
    taken = set(inspect.signature(_PYTHON_FUNCTIONS[function]).parameters)
    missing = [
        p.name for p in MACROS[macro].params if p.default is not None and p.name not in taken
    ]
    assert missing == []


def cli_actions(command: str) -> dict[str, argparse.Action]:
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {flag: a for a in sub.choices[command]._actions for flag in a.option_strings}


def cli_cases() -> Iterator[object]:
    for command, macro in CLI_COMMANDS.items():
        actions = cli_actions(command)
        for param in MACROS[macro].params:
            if param.default is not None and cli_flag(param.name) in actions:
                yield pytest.param(
                    command,
                    param,
                    actions[cli_flag(param.name)],
                    id=f"{command}-{param.name}",
                    marks=known("cli", command, param.name),
                )


@pytest.mark.parametrize(("command", "param", "action"), list(cli_cases()))
def test_cli_option(command: str, param: Param, action: argparse.Action) -> None:
    """Choices equal the allowed values; the default is the macro's (None: not given, so the
    macro's own default applies); a switch sets one allowed value."""
    if param.name in CLI_SWITCHES:
        assert isinstance(action, argparse._StoreTrueAction)
        assert CLI_SWITCHES[param.name][1] in param.choices
        assert CLI_SWITCHES[param.name][1] != param.default.strip("'")
        return
    if param.choices:
        assert action.choices is not None and set(action.choices) == set(param.choices)
    if action.default is None:
        return
    value = action.default
    if param.name in CLI_LISTS:  # --k's [10] is k := 10; --metrics' [ndcg] is ['ndcg']
        value = [] if value == "" else value
        one = [value[0]] if isinstance(value, list) and len(value) == 1 else []
        assert norm(param.default) in {norm(python_sql(v)) for v in [value, *one]}
        return
    assert norm(python_sql(value)) == norm(param.default)


@pytest.mark.parametrize("command", sorted(CLI_COMMANDS))
def test_cli_enumerated_options_have_choices(command: str) -> None:
    """A CLI flag of an enumerated option offers exactly the allowed values (no free text)."""
    actions = cli_actions(command)
    for name in enumerated():
        action = actions.get(cli_flag(name))
        if action is not None and name not in CLI_SWITCHES:
            assert action.choices is not None, f"{command} {cli_flag(name)}: no choices"


_TO_SQL_METRIC = {"denominator": "average_precision"}
_TO_SQL_EXTRA = {("ties", "key"): {"tie_key": "item_id"}}


def portable_cases(valid: bool) -> Iterator[object]:
    signature_ = inspect.signature(portable.to_sql).parameters
    for name, choices in enumerated().items():
        if name not in signature_:
            continue
        values = choices if valid else ("bogus",)
        for value in values:
            key = ("to_sql", name, value)
            yield pytest.param(name, value, id="-".join(key), marks=known(*key))


@pytest.mark.parametrize(("name", "value"), list(portable_cases(True)))
def test_to_sql_accepts(name: str, value: str) -> None:
    extra = _TO_SQL_EXTRA.get((name, value), {})
    metric = _TO_SQL_METRIC.get(name, "ndcg")
    assert "SELECT" in portable.to_sql(metric, "duckdb", table="t", **{name: value}, **extra)


@pytest.mark.parametrize(("name", "value"), list(portable_cases(False)))
def test_to_sql_rejects(name: str, value: str) -> None:
    """ValueError naming the option, the bad value and every allowed value."""
    metric = _TO_SQL_METRIC.get(name, "ndcg")
    with pytest.raises(ValueError) as raised:
        portable.to_sql(metric, "duckdb", table="t", **{name: value})
    message = str(raised.value)
    assert message.startswith(f"{name} must be")
    assert all(f"'{c}'" in message for c in enumerated()[name]), message
    assert f"'{value}'" in message


_CALLS = {  # each Python entry point with its required arguments (checked before any SQL runs)
    "evaluate": lambda **kw: duckdb_ndcg.evaluate("r", "e", **kw),
    "compare": lambda **kw: duckdb_ndcg.compare("a", "b", "e", **kw),
    "to_sql": lambda **kw: portable.to_sql(
        _TO_SQL_METRIC.get(next(iter(kw)), "ndcg"), "duckdb", table="t", **kw
    ),
    "events_to_sql": lambda **kw: portable.events_to_sql("duckdb", rankings="r", events="e", **kw),
    "compare_to_sql": lambda **kw: portable.compare_to_sql(
        "duckdb", rankings_a="a", rankings_b="b", events="e", **kw
    ),
    "click_grades": lambda **kw: duckdb_ndcg.click_grades("e", **kw),
    "click_grades_to_sql": lambda **kw: portable.click_grades_to_sql("duckdb", table="e", **kw),
    "position_bias": lambda **kw: duckdb_ndcg.position_bias("e", **kw),
    "ips_estimate": lambda **kw: duckdb_ndcg.ips_estimate("l", "p", **kw),
    "slate_estimate": lambda **kw: duckdb_ndcg.slate_estimate("l", **kw),
    "ips_ndcg": lambda **kw: duckdb_ndcg.ips_ndcg("l", "r", **kw),
    "ips_estimate_to_sql": lambda **kw: portable.ips_estimate_to_sql(
        "duckdb", logs="l", policy="p", **kw
    ),
    "slate_estimate_to_sql": lambda **kw: portable.slate_estimate_to_sql("duckdb", logs="l", **kw),
    "ips_ndcg_to_sql": lambda **kw: portable.ips_ndcg_to_sql("duckdb", logs="l", ranking="r", **kw),
}


def wording_cases() -> Iterator[object]:
    for function, macros in PYTHON_API.items():
        taken = inspect.signature(_PYTHON_FUNCTIONS[function]).parameters
        for name in sorted({p.name for m in macros for p in MACROS[m].params if p.choices}):
            if name in taken:
                yield pytest.param(
                    function, name, id=f"{function}-{name}", marks=known(function, name, "wording")
                )


@pytest.mark.parametrize(("function", "name"), list(wording_cases()))
def test_python_wording(function: str, name: str) -> None:
    """A bad value is a ValueError in the macros' words: ``ties must be 'average' or 'key', got
    'bogus'`` (a layer taking no gain map may leave that alternative out)."""
    found = [p for m in PYTHON_API[function] for p in MACROS[m].params if p.name == name]
    param = max(found, key=lambda p: len(p.choices))  # denominator: average_precision's
    with pytest.raises(ValueError) as raised:
        _CALLS[function](**{name: "bogus"})
    assert str(raised.value) in {param.error("'bogus'"), replace(param, also="").error("'bogus'")}


# --- 5. the README ---------------------------------------------------------------------------------


def readme_sections(*titles: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for title in titles:
        match = re.search(rf"^## {title}\n(.*?)(?=^## )", text + "\n## ", re.MULTILINE | re.DOTALL)
        assert match, f"README has no section '## {title}'"
        found.append(match.group(1))
    return "\n".join(found)


REFERENCE = ("Conventions", "Reference", "Statistics")


@pytest.mark.parametrize("name", sorted(MACROS))
def test_readme_names_macro(name: str) -> None:
    assert re.search(rf"`{name}\b", readme_sections(*REFERENCE))


@pytest.mark.parametrize("name", sorted(enumerated()))
def test_readme_states_option(name: str) -> None:
    """The option's default (as `name := default` or a Conventions row) and every allowed value."""
    text = readme_sections(*REFERENCE)
    defaults = {p.default for m in MACROS.values() for p in m.params if p.name == name}
    for default in defaults:
        row = re.search(rf"^\| [^|]* \| `{name}` \| `{re.escape(default)}` \|", text, re.MULTILINE)
        assert row or f"{name} := {default}" in text, f"README: default {name} := {default}"
    many = any(p.many for m in MACROS.values() for p in m.params if p.name == name)
    for choice in enumerated()[name]:
        written = f"`{choice}`" if many else f"'{choice}'"  # a list's values: `ndcg`, `dcg`
        assert written in text, f"README: {name} value {written}"


def readme_signatures() -> Iterator[object]:
    text = readme_sections("Reference", "Statistics")
    for match in re.finditer(r"\*\*`(\w+)\((.*?)\)`\*\*", text):
        name, arguments = match.groups()
        yield pytest.param(name, arguments, id=name, marks=known("readme", name))


@pytest.mark.parametrize(("name", "arguments"), list(readme_signatures()))
def test_readme_signature(name: str, arguments: str) -> None:
    """Each parameter a reference entry names is the macro's; each default it writes, the table's."""
    macro = MACROS[name]
    for param, written in parse_params(arguments):
        if param.startswith(("...", "<")):
            continue
        known = {p.name for p in (*macro.overload, *macro.preset_overload)}
        assert param in known, f"README {name}: no parameter {param}"
        if written is not None and not written.startswith("<"):
            assert norm(written) == norm(macro.param(param).default), f"README {name}: {param}"
