"""The CLI's conventions (issue 20, items 14 and 28): ``--output -`` and ``-`` for stdin, exit code
2 for a wrong command line and 1 for data that cannot be evaluated, 130 on Ctrl-C."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from duckdb_ndcg import cli
from duckdb_ndcg.conventions import CLI_COMMANDS, CLI_LISTS, CLI_SWITCHES, MACROS, cli_flag
from duckdb_ndcg.inputs import OptionError, checked_metrics, checked_report_options

SHOWN = """query_id,item_id,position,device
q1,a,1,mobile
q1,b,2,mobile
q1,c,3,mobile
q2,a,1,desktop
q2,d,2,desktop
"""
EVENTS = """query_id,item_id,event_type
q1,b,click
q1,c,purchase
q2,d,add_to_cart
"""
# NDCG@3 by hand (linear gain, grades click 1, add_to_cart 2, purchase 3):
# q1: dcg 1/log2(3) + 3/log2(4) = 2.130930, idcg 3 + 1/log2(3) = 3.630930 -> 0.586883
# q2: dcg 2/log2(3) = 1.261860, idcg 2 -> 0.630930
BY_HAND = {"q1": 0.5868828, "q2": 0.6309298}


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "shown.csv").write_text(SHOWN)
    (tmp_path / "events.csv").write_text(EVENTS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _cli(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# -- --output -: the result alone on stdout, as DuckDB writes the file ---------------------------


def test_output_dash_is_csv_on_stdout(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evaluate", "shown.csv", "events.csv", "--k", "3"]
    code, out, err = _main(capsys, *args, "--output", "-")
    # stderr holds warnings only (this click-only log leaves items unjudged), stdout the CSV
    assert code == 0 and all(": warning: " in line for line in err.splitlines())
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["query_id"]: float(r["ndcg"]) for r in rows} == pytest.approx(BY_HAND, abs=1e-6)
    code, _, _ = _main(capsys, *args, "--output", "r.csv")
    assert code == 0 and (data / "r.csv").read_text() == out  # the same bytes as the file


def test_output_dash_format_json(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evaluate", "shown.csv", "events.csv", "--k", "3", "--output", "-", "--format", "json"]
    code, out, _ = _main(capsys, *args)
    assert code == 0
    rows = json.loads(out)
    assert {r["query_id"]: r["ndcg"] for r in rows} == pytest.approx(BY_HAND, abs=1e-6)


def test_compare_output_dash_is_the_table_alone(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "b.csv").write_text(SHOWN.replace("q1,a,1", "q1,a,4").replace("q1,c,3", "q1,c,1"))
    code, out, _ = _main(capsys, "compare", "shown.csv", "b.csv", "events.csv", "--k", "3",
                         "--output", "-", "--format", "json")
    assert code == 0
    (row,) = json.loads(out)  # no verdict line mixed in
    assert row["k"] == 3 and row["queries"] == 2


def test_format_needs_output_dash(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(
        capsys, "evaluate", "shown.csv", "events.csv", "--output", "r.csv", "--format", "json"
    )
    assert code == 2 and out == "" and "--format json: only with --output -" in err
    assert not (data / "r.csv").exists()


# -- - as an input: stdin ------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["rankings", "events"])
def test_dash_input_reads_stdin(data: Path, which: str) -> None:
    args = ["-", "events.csv"] if which == "rankings" else ["shown.csv", "-"]
    text = SHOWN if which == "rankings" else EVENTS
    done = _cli("evaluate", *args, "--k", "3", "--output", "-", cwd=data, stdin=text)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert {r["query_id"]: float(r["ndcg"]) for r in rows} == pytest.approx(BY_HAND, abs=1e-6)


def test_dash_input_parquet_from_stdin(data: Path) -> None:
    with duckdb.connect() as con:
        con.execute("COPY (FROM 'shown.csv') TO 'shown.parquet'")
    with (data / "shown.parquet").open("rb") as file:
        done = subprocess.run(
            [sys.executable, "-m", "duckdb_ndcg.cli", "evaluate", "-", "events.csv", "--k", "3",
             "--output", "-"],
            cwd=data, stdin=file, capture_output=True, timeout=120, check=False,
        )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout.decode())))
    assert {r["query_id"]: float(r["ndcg"]) for r in rows} == pytest.approx(BY_HAND, abs=1e-6)


def test_dash_input_errors(data: Path) -> None:
    both = _cli("evaluate", "-", "-", cwd=data, stdin=SHOWN)
    assert both.returncode == 2
    assert both.stderr.strip() == (
        "duckdb-ndcg evaluate: rankings and events are both -: stdin is read once"
    )
    empty = _cli("evaluate", "-", "events.csv", cwd=data, stdin="")
    assert empty.returncode == 1 and "stdin is empty" in empty.stderr
    missing = _cli("evaluate", "-", "events.csv", "--query-col", "qid", cwd=data, stdin=SHOWN)
    assert missing.returncode == 1
    assert "rankings stdin has no column 'qid' (--query-col)" in missing.stderr


# -- exit codes: 2 the command line, 1 the data ----------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "shown.csv", "events.csv", "--bogus"],
        ["evaluate", "shown.csv", "nope.csv"],  # an input that does not exist
        ["evaluate", "shown", "events.csv"],  # a table that does not exist
        ["evaluate", "shown.csv", "events.csv", "--mapping", "nope.csv"],
        ["evaluate", "shown.csv", "events.csv", "--collapse", "last"],  # needs --time-col
        ["evaluate", "shown.csv", "events.csv", "--output", "r.txt"],
        ["evaluate", "shown.csv", "events.csv", "--db", "events.csv"],
        ["compare", "shown.csv", "shown.csv", "events.csv", "--conf", "95"],
        ["sql", "ndcg", "--dialect", "nosuchdialect"],
        ["sql", "no_such_macro"],
    ],
)
def test_usage_errors_exit_2(
    data: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = _main(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("shown", "events", "args", "message"),
    [
        (SHOWN + "q1,a,4,mobile\n", EVENTS, [], "--allow-duplicates"),
        (SHOWN, EVENTS + "q1,a,wishlist\n", [], "--ignore-unknown"),
        (SHOWN, EVENTS, ["--query-col", "qid"], "no column 'qid' (--query-col)"),
        (SHOWN, EVENTS, ["--slice-by", "region"], "--slice-by"),
        (SHOWN.replace(",1,", ",first,"), EVENTS, [], "is VARCHAR, not a number"),
        (SHOWN, "\x00\x01 not, a\ncsv\x00", [], "events"),
    ],
    ids=["duplicates", "unknown-event", "no-column", "no-slice", "text-position", "not-a-csv"],
)
def test_data_errors_exit_1(
    data: Path,
    capsys: pytest.CaptureFixture[str],
    shown: str,
    events: str,
    args: list[str],
    message: str,
) -> None:
    (data / "shown.csv").write_text(shown)
    (data / "events.csv").write_text(events)
    code, out, err = _main(capsys, "evaluate", "shown.csv", "events.csv", *args)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    assert message in err


def test_exit_codes_from_the_installed_command(data: Path) -> None:
    assert _cli("evaluate", "shown.csv", "nope.csv", cwd=data).returncode == 2
    (data / "shown.csv").write_text(SHOWN + "q1,a,4,mobile\n")
    assert _cli("evaluate", "shown.csv", "events.csv", cwd=data).returncode == 1


# -- 28: Ctrl-C is one line and exit code 130 ------------------------------------------------------


@pytest.mark.parametrize("after", [0.0, 2.0], ids=["registering-macros", "in-the-report"])
def test_ctrl_c_during_a_query_is_one_line_and_130(tmp_path: Path, after: float) -> None:
    """Ctrl-C as the macros are registered (DuckDB raises RuntimeError('Query interrupted')
    there) and while the report runs (duckdb.InterruptException): one line, exit code 130."""
    with duckdb.connect() as con:  # big enough that the report runs for seconds
        con.execute(
            "COPY (SELECT i // 50 AS query_id, i % 50 AS item_id, i % 50 + 1 AS position "
            "FROM range(6000000) t(i)) TO ?", [str(tmp_path / "shown.parquet")]
        )
        con.execute(
            "COPY (SELECT i // 50 AS query_id, i % 50 AS item_id, 'click' AS event_type "
            "FROM range(6000000) t(i) WHERE i % 7 = 0) TO ?", [str(tmp_path / "events.parquet")]
        )
    # stderr on a terminal: the CLI then names each stage, so the test knows the query runs
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "duckdb_ndcg.cli", "evaluate", "shown.parquet", "events.parquet",
         "--k", "1,2,3,4,5,6,7,8,9,10,20,30,40,50", "--summary"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower, env={**os.environ, "TERM": "dumb"},
    )
    os.close(follower)
    seen = b""
    try:
        while b"reading, grading and reporting" not in seen:
            chunk = os.read(leader, 4096)
            assert chunk, f"the CLI ended before the report started: {seen!r}"
            seen += chunk
        time.sleep(after)
        assert process.poll() is None, "the report ended before it could be interrupted"
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    lines = [line for line in seen.decode().splitlines() if not line.endswith("...")]
    assert (process.returncode, lines) == (130, ["duckdb-ndcg evaluate: interrupted"])
    assert "Traceback" not in seen.decode()


class _InterruptedAt:
    """A connection whose first query starting with ``needle`` is interrupted, as Ctrl-C interrupts
    a running DuckDB query: the query raises ``duckdb.InterruptException``."""

    def __init__(self, con: duckdb.DuckDBPyConnection, needle: str,
                 error: Exception | None = None) -> None:
        self._con, self._needle, self.interrupted = con, needle, False
        self._error = error or duckdb.InterruptException("INTERRUPT Error: Interrupted!")
        # no replacement scans: from this module, DuckDB would read 'shown.csv' as the csv module
        con.execute("SET python_enable_replacements = false")

    def _check(self, query: object) -> None:
        statement = re.sub(r"^(\s*--[^\n]*\n)*\s*", "", str(query))  # its comments skipped
        if not self.interrupted and statement.startswith(self._needle):
            self.interrupted = True
            raise self._error

    def sql(self, query: str, *args: object, **kwargs: object) -> duckdb.DuckDBPyRelation:
        self._check(query)
        return self._con.sql(query, *args, **kwargs)

    def execute(self, query: str, *args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        self._check(query)
        return self._con.execute(query, *args, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._con, name)


# every query evaluate() runs before the report whose failure it turns into a message of its own
_CHECK_QUERIES = ["SELECT * FROM query_table(", "SELECT sampled, matched FROM event_match("]


@pytest.mark.parametrize("needle", _CHECK_QUERIES)
def test_an_interrupted_check_query_is_an_interrupt_not_a_message(
    data: Path, needle: str
) -> None:
    # a Ctrl-C that lands in one of evaluate()'s checks was reported as "table does not exist"
    # (exit 1 in the CLI) or swallowed, and the run went on
    from duckdb_ndcg import evaluate

    with duckdb.connect() as real:
        con = _InterruptedAt(real, needle)
        with pytest.raises(duckdb.InterruptException):
            evaluate("shown.csv", "events.csv", con=con)  # type: ignore[arg-type]
        assert con.interrupted


# Ctrl-C as a statement starts (registering the macros) reaches Python as a RuntimeError
_AS_A_STATEMENT_STARTS = ("CREATE OR REPLACE", RuntimeError("Query interrupted"))


@pytest.mark.parametrize(("needle", "error"),
                         [*((needle, None) for needle in _CHECK_QUERIES), _AS_A_STATEMENT_STARTS])
def test_ctrl_c_in_a_check_query_exits_130(
    data: Path, needle: str, error: Exception | None, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    connect = duckdb.connect
    monkeypatch.setattr(cli.duckdb, "connect",
                        lambda *a, **k: _InterruptedAt(connect(*a, **k), needle, error))
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv")
    assert (code, err.strip().splitlines()) == (130, ["duckdb-ndcg evaluate: interrupted"])


class _Terminal(io.StringIO):
    """stderr as a terminal, each write kept apart."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_a_stage_line_is_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C between a progress line's text and its newline (print() writes them apart) left
    the line open: 'interrupted' then ended it (seen once in the real-SIGINT test above)."""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    cli._stage("reading, grading and reporting")
    assert terminal.writes == ["duckdb-ndcg: reading, grading and reporting...\n"]


# a value each typed flag takes (the others take any text)
SAMPLES = {"value_grades": "30=1,120=2", "conf": "0.9", "alpha": "0.1", "threshold": "2",
           "max_grade": "4", "eps": "0.1"}


@pytest.mark.parametrize(("command", "macro", "inputs"), [
    ("evaluate", "ndcg_report", ["shown.csv", "events.csv"]),
    ("compare", "compare_summary", ["a.csv", "b.csv", "events.csv"]),
])
def test_every_flag_of_an_option_reaches_the_call(command: str, macro: str,
                                                  inputs: list[str]) -> None:
    """Each flag for an option of the macro, given, is passed on by the option's name (a flag
    the command parsed and then dropped would be a silent default)."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = {flag: a for a in sub.choices[command]._actions for flag in a.option_strings}
    checked = 0
    for param in MACROS[macro].params:
        flag = cli_flag(param.name)
        if param.default is None or param.name in CLI_LISTS or flag not in actions:
            continue
        action = actions[flag]
        if isinstance(action, argparse._StoreTrueAction):
            given = [flag]
        elif action.choices:
            given = [flag, next(c for c in action.choices if c != action.default)]
        else:
            given = [flag, SAMPLES.get(param.name, "3")]
        args = parser.parse_args([command, *inputs, *given])
        assert param.name in cli._flag_options(args, macro), flag
        checked += 1
    assert checked >= 12


# (sql's flags set the options of whichever metric it prints, not of one macro)
@pytest.mark.parametrize(("command", "macro"),
                         [(c, m) for c, m in sorted(CLI_COMMANDS.items()) if c != "sql"])
def test_every_option_flag_comes_from_the_table(command: str, macro: str) -> None:
    """The option flags of evaluate, compare, grades and ips are the conventions table's rows:
    the help names the table's default (not a copy of it), the choices are the table's, and
    a flag left out is the table's default, which _flag_options then does not pass on (the
    macro's own default applies)."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = {flag: a for a in sub.choices[command]._actions for flag in a.option_strings}
    inputs = {"evaluate": ["s.csv", "e.csv"], "compare": ["a.csv", "b.csv", "e.csv"],
              "grades": ["log.csv"], "ips": ["log.csv", "policy.csv"]}[command]
    bare = parser.parse_args([command, *inputs])
    assert cli._flag_options(bare, macro) == {}
    for param in MACROS[macro].params:
        action = actions.get(cli_flag(param.name))
        if param.default is None or action is None or param.name in CLI_SWITCHES:
            continue
        shown = cli._sql_default_text(param.default)
        if shown is not None:
            assert action.help.endswith(f"(default {shown})"), (command, param.name)
        if param.choices:
            assert tuple(action.choices) == param.choices, (command, param.name)


def test_every_report_help_line_is_an_option() -> None:
    """A help line for an option evaluate and compare do not have would be dead text."""
    names = {p.name for m in ("ndcg_report", "compare_summary") for p in MACROS[m].params}
    assert set(cli._REPORT_HELP) <= names


def test_a_default_written_out_is_not_passed_on(data: Path) -> None:
    """``--ties average`` (the table's default) is the same call as no --ties."""
    parser = cli._parser()
    written = parser.parse_args(["evaluate", "shown.csv", "events.csv", "--ties", "average",
                                 "--threshold", "1", "--max-grade", "mapping"])
    assert cli._flag_options(written, "ndcg_report") == {}
    assert cli._given_flags(written, "ndcg_report") == []
    changed = parser.parse_args(["evaluate", "shown.csv", "events.csv", "--ties", "key"])
    assert cli._given_flags(changed, "ndcg_report") == ["--ties"]


@pytest.mark.parametrize(("option", "message", "worded"), [
    ("threshold", "threshold must be a positive number, got -1",
     "--threshold must be a positive number, got -1"),
    # the name is data: a sentence whose subject is the option, reworded by the table's flag,
    # the rest of it as any message (query_col is --query-col)
    ("value_grades", "value_grades must be a MAP, not one named in query_col",
     "--value-grades must be a MAP, not one named in --query-col"),
    # an option without a flag here, or a switch, keeps its name
    ("eps", "eps must be a finite number >= 0, got -1", "eps must be a finite number >= 0, got -1"),
    ("duplicates", "duplicates must be 'error' or 'allow', got 'x'",
     "duplicates must be 'error' or 'allow', got 'x'"),
])
def test_an_option_error_is_worded_by_its_option(option: str, message: str, worded: str) -> None:
    assert cli._error_wording(OptionError(option, message)) == worded


def test_the_python_api_names_the_option_of_a_bad_value() -> None:
    """evaluate()'s checks raise OptionError with the option's name, so the CLI needs no
    pattern to find it; str() is unchanged (a ValueError in the Python API's words)."""
    with pytest.raises(OptionError) as raised:
        checked_metrics(["ndcg"], -1, "mapping")
    assert raised.value.option == "threshold"
    assert isinstance(raised.value, ValueError)
    assert str(raised.value) == "threshold must be a positive number, got -1"
    with pytest.raises(OptionError) as raised:
        checked_report_options([0], "average", "linear", 2, "max", None, "error", "error")
    assert raised.value.option == "k"


def test_a_bad_option_of_the_cli_names_its_flag(data: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(capsys, "compare", "shown.csv", "shown.csv", "events.csv",
                         "--k", "3", "--seed", "1", "--resamples", "5", "--test", "randomization",
                         "--conf", "0.9", "--alpha", "0.05")
    assert code == 0, err
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", "--metrics", "err",
                         "--max-grade", "0")
    assert code == 2
    assert err.strip() == ("duckdb-ndcg evaluate: --max-grade must be 'mapping' or a positive "
                           "number, got 0")
