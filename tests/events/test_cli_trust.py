"""The CLI as a user meets it (issue 9): one-line errors naming flags, safe outputs, progress
only on a terminal's stderr, version and help, `sql --full-ideal`, sliced charts, the demo."""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from importlib.metadata import version
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg
from duckdb_ndcg import cli, demo

ROOT = Path(__file__).resolve().parents[2]

SHOWN = """query_id,item_id,position,device,day
q1,a,1,mobile,2024-01-01
q1,b,2,mobile,2024-01-01
q1,c,3,mobile,2024-01-01
q2,a,1,desktop,2024-01-02
q2,d,2,desktop,2024-01-02
q3,e,1,desktop,2024-01-01
q3,a,2,desktop,2024-01-01
"""
EVENTS = """query_id,item_id,event_type,ts
q1,b,click,2024-01-01 10:00:00
q1,c,purchase,2024-01-01 10:01:00
q2,a,view,2024-01-02 10:00:00
q2,d,add_to_cart,2024-01-02 10:00:00
q3,a,click,2024-01-01 11:00:00
"""


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "shown.csv").write_text(SHOWN)
    (tmp_path / "events.csv").write_text(EVENTS)
    (tmp_path / "grades.csv").write_text("event_type,grade\nclick,1\nview,0\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _cli(*args: str, cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duckdb_ndcg.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kwargs,
    )


# -- 13: every error is one line naming the problem, exit code 2, in the CLI's own terms --------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evaluate", "shown.csv", "events.csv", "--k", "x"], "duckdb-ndcg evaluate: --k: "),
        (["evaluate", "shown.csv", "events.csv", "--k", "0"], "--k: expected positive"),
        (["evaluate", "shown.csv"], "duckdb-ndcg evaluate: EVENTS is missing (give the events"),
        (["evaluate", "shown.csv", "events.csv", "--ties", "no"], "--ties: invalid choice: 'no'"),
        (["evaluate", "shown.csv", "events.csv", "--bogus"], "unrecognized arguments: --bogus"),
        (["demo", "--k", "0"], "duckdb-ndcg demo: --k: expected a positive whole number"),
        ([], "duckdb-ndcg: the following arguments are required: COMMAND"),
        (["nope"], "duckdb-ndcg: COMMAND: invalid choice: 'nope'"),
    ],
)
def test_argparse_errors_are_one_line(
    data: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = _main(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "usage:" not in err
    assert err.startswith("duckdb-ndcg") and message in err


def test_argparse_error_one_line_from_the_installed_command(data: Path) -> None:
    done = _cli("evaluate", "shown.csv", "events.csv", "--k", "1,x", cwd=data)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "duckdb-ndcg evaluate: --k: expected whole numbers like 10 or 1,5,10, got '1,x'"
    ]


@pytest.mark.parametrize(
    ("events", "args", "flags", "exit_code"),
    [
        (EVENTS + "q1,a,wishlist,2024-01-01 10:00:00\n", [], ["--ignore-unknown", "--mapping"], 1),
        (EVENTS, ["--collapse", "last"], ["--collapse last", "--time-col"], 2),  # flags alone
        (EVENTS, ["--query-col", "qid"], ["(--query-col)"], 1),  # found in the data
        (EVENTS, ["--slice-by", "region"], ["--slice-by"], 1),
    ],
)
def test_messages_name_the_cli_flag(
    data: Path,
    capsys: pytest.CaptureFixture[str],
    events: str,
    args: list[str],
    flags: list[str],
    exit_code: int,
) -> None:
    (data / "events.csv").write_text(events)
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", *args)
    assert code == exit_code and len(err.strip().splitlines()) == 1
    assert all(flag in err for flag in flags), err
    assert ":=" not in err and "_col" not in err and "slice_by" not in err


def test_duplicates_message_names_allow_duplicates(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "shown.csv").write_text(SHOWN + "q1,a,4,mobile,2024-01-01\n")
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv")
    assert code == 1 and "--allow-duplicates" in err and ":=" not in err
    assert "Invalid Input Error" not in err and "shown.csv shows item_id a" in err


def test_warnings_are_printed_once_in_cli_terms(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "events.csv").write_text(EVENTS + "q1,a,wishlist,2024-01-01 10:00:00\n")
    args = ["--ignore-unknown", "--chart", "c.html", "--k", "3"]  # the chart evaluates again
    code, out, err = _main(capsys, "evaluate", "shown.csv", "events.csv", *args)
    assert code == 0 and out.startswith("query_id")
    # each warning once: the ignored event types, and (this log holds no impressions) the
    # share of shown items no event judges
    warned = [line for line in err.splitlines() if "warning" in line]
    assert len(warned) == 2 and warned[0].startswith("duckdb-ndcg evaluate: warning: events ")
    assert warned[1].startswith("duckdb-ndcg evaluate: warning: rankings shown.csv: only ")
    assert "events.csv: ignored 1 rows whose event type is not in the mapping (wishlist)" in err


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            (
                "Invalid Input Error: duckdb_ndcg: events table e has event types the mapping "
                "lacks: x (give them a grade in mapping, or pass unknown := 'ignore')"
            ),
            (
                "events table e has event types the mapping lacks: x (give them a grade in "
                "--mapping, or pass --ignore-unknown)"
            ),
        ),
        (
            "duckdb_ndcg: collapse := 'last' needs time_col := <timestamp column>",
            "--collapse last needs --time-col <timestamp column>",
        ),
        (
            "collapse='last' needs time_col, the name of the events' timestamp column",
            "--collapse last needs --time-col, the name of the events' timestamp column",
        ),
        (
            "... (pass duplicates := 'allow' to score every impression)",
            "... (pass --allow-duplicates to score every impression)",
        ),
        (
            "rankings r has no column 'x' (slice_by[1]); its columns",
            "rankings r has no column 'x' (--slice-by); its columns",
        ),
        (
            "k must be a positive whole number or NULL, got 0",
            "--k must be a positive whole number or NULL, got 0",
        ),
        ("k lists a cutoff more than once: [5, 5]", "--k lists a cutoff more than once: [5, 5]"),
        ("the mapping lacks: x", "the mapping lacks: x"),
        (
            "rankings table r has NULL in query_id, item_id or position",
            "rankings table r has NULL in query_id, item_id or position",
        ),
        (
            "events table 'time_col' has no column 'query_col'",
            "events table 'time_col' has no column 'query_col'",
        ),
    ],
)
def test_cli_wording_translates_parameters_to_flags(message: str, expected: str) -> None:
    assert cli._cli_wording(message) == expected


# -- 11: a text position column, --db that is not a DuckDB file -----------------------------------


def test_text_position_column_is_named_with_its_type(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "shown.csv").write_text(SHOWN.replace(",1,", ",first,"))
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "column 'position' (--position-col) is VARCHAR, not a number" in err
    (data / "shown.csv").write_text(SHOWN.replace("position", "score"))
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", "--score-col", "day")
    assert code == 1 and "column 'day' (--score-col) is DATE, not a number" in err


def test_db_that_is_a_csv_is_a_clear_error(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(capsys, "evaluate", "shown", "events", "--db", "events.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--db events.csv is not a DuckDB database file" in err


# -- 7: outputs never overwrite an input, and are renamed into place when complete ---------------


@pytest.mark.parametrize(
    ("output", "extra", "role"),
    [
        ("shown.csv", [], "rankings file"),
        ("./sub/../events.csv", [], "events file"),
        ("grades.csv", ["--mapping", "grades.csv"], "--mapping file"),
        ("link.csv", [], "events file"),
    ],
)
def test_output_that_is_an_input_is_refused(
    data: Path, capsys: pytest.CaptureFixture[str], output: str, extra: list[str], role: str
) -> None:
    (data / "sub").mkdir()
    (data / "link.csv").symlink_to(data / "events.csv")
    before = {p.name: p.read_bytes() for p in data.glob("*.csv")}
    args = ["evaluate", "shown.csv", "events.csv", "--output", output, *extra]
    code, _, err = _main(capsys, *args)
    assert code == 2 and f"is the {role}: it would be overwritten" in err
    assert {p.name: p.read_bytes() for p in data.glob("*.csv")} == before


def test_output_that_is_the_db_is_refused(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with duckdb.connect("logs.duckdb") as con:
        con.execute("CREATE TABLE shown AS SELECT * FROM 'shown.csv'")
        con.execute("CREATE TABLE events AS SELECT * FROM 'events.csv'")
    (data / "logs.csv").symlink_to(data / "logs.duckdb")
    code, _, err = _main(
        capsys, "evaluate", "shown", "events", "--db", "logs.duckdb", "--output", "logs.csv"
    )
    assert code == 2 and "--output logs.csv is the --db file" in err
    with duckdb.connect("logs.duckdb", read_only=True) as con:
        assert con.execute("SELECT count(*) FROM shown").fetchone() == (7,)


def test_interrupted_output_leaves_no_file(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (data / "out.csv").write_text("an earlier, complete result\n")

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.os, "replace", interrupted)
    for name in ("out.csv", "new.parquet", "new.json"):
        code = cli.main(["evaluate", "shown.csv", "events.csv", "--output", name])
        assert code == 130
    assert (data / "out.csv").read_text() == "an earlier, complete result\n"
    assert sorted(p.name for p in data.iterdir()) == [
        "events.csv",
        "grades.csv",
        "out.csv",
        "shown.csv",
    ]


def test_output_that_cannot_be_written_is_one_line(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / f".out.csv.{os.getpid()}.tmp").mkdir()  # where the CLI writes before renaming
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", "--output", "out.csv")
    # one error line, after the warnings of the computation (this log judges 72 % of the items)
    lines = [line for line in err.strip().splitlines() if ": warning: " not in line]
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith("duckdb-ndcg evaluate: --output out.csv cannot be written: ")
    assert ".tmp" not in err and not (data / "out.csv").exists()


# -- 18: JSON is written by DuckDB -----------------------------------------------------------------


def test_json_output_is_duckdbs_json_array(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(
        capsys, "evaluate", "shown.csv", "events.csv", "--k", "1,3", "--output", "r.json"
    )
    assert code == 0 and "wrote 6 rows to r.json" in err
    text = (data / "r.json").read_text()
    rows = json.loads(text)
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute("CREATE VIEW s AS FROM 'shown.csv'")
        con.execute("CREATE VIEW e AS FROM 'events.csv'")
        want = con.execute(
            "SELECT query_id, k, ndcg FROM ndcg_report('s', 'e', k := [1, 3]) ORDER BY ALL"
        ).fetchall()
    assert [(r["query_id"], r["k"]) for r in rows] == [w[:2] for w in want]
    assert [r["ndcg"] for r in rows] == pytest.approx([w[2] for w in want], abs=1e-12)
    lines = text.splitlines()  # DuckDB's array format: one object per line, no pretty-printing
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(rows) + 2
    assert all(line.strip().startswith('{"query_id":"q') for line in lines[1:-1])


# -- 14: progress only on a terminal's stderr, never in redirected stdout --------------------------

_ALWAYS_PROGRESS = """
import sys, duckdb

class Eager:  # after its first statement, a bar left on is drawn for every query, however short
    def __init__(self, con):
        self._con, self._eager = con, False

    def __getattr__(self, name):
        attribute = getattr(self._con, name)
        if self._eager or name not in ("execute", "sql"):
            return attribute

        def first(*args, **kwargs):
            result = attribute(*args, **kwargs)
            self._eager = True
            on = self._con.sql("SELECT current_setting('enable_progress_bar')").fetchall()[0][0]
            if on:  # (setting the time turns the bar on, and a SET runs with the bar)
                self._con.execute("SET progress_bar_time = 0")
            return result
        return first

connect = duckdb.connect
duckdb.connect = lambda *args, **kwargs: Eager(connect(*args, **kwargs))
from duckdb_ndcg import cli
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "shown.csv", "events.csv", "--k", "1,3", "--slice-by", "device"],
        ["demo", "--queries", "50", "--chart", "d.html"],
    ],
)
@pytest.mark.parametrize("stderr_is_a_terminal", [False, True])
def test_redirected_stdout_never_holds_progress(
    data: Path, args: list[str], stderr_is_a_terminal: bool
) -> None:
    (data / "always_progress.py").write_text(_ALWAYS_PROGRESS)
    leader, follower = pty.openpty() if stderr_is_a_terminal else (None, subprocess.PIPE)
    done = subprocess.run(
        [sys.executable, "always_progress.py", *args],
        cwd=data,
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
        timeout=120,
        check=False,
    )
    err = done.stderr or ""
    if leader is not None:
        os.close(follower)
        err = _read_all(leader)
    assert done.returncode == 0, err
    # DuckDB's bar prints "42%"; the demo's verdict holds judged shares written "89 %"
    assert "\r" not in done.stdout and "elapsed" not in done.stdout
    assert not re.search(r"\d%", done.stdout)
    assert "elapsed" not in err  # DuckDB's bar stays off unless stdout is a terminal too
    assert ("duckdb-ndcg: " in err and "..." in err) == stderr_is_a_terminal


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def test_progress_bar_on_only_when_stdout_and_stderr_are_terminals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for out_tty, err_tty in [(True, True), (True, False), (False, True), (False, False)]:
        monkeypatch.setattr(sys, "stdout", Stream(out_tty))
        monkeypatch.setattr(sys, "stderr", Stream(err_tty))
        con = cli._connect()
        setting = con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0]
        assert setting is (out_tty and err_tty)


# -- 15: version, help ------------------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert duckdb_ndcg.__version__ == version("duckdb_ndcg")
    code, out, _ = _main(capsys, "--version")
    assert code == 0 and out.strip() == f"duckdb-ndcg {duckdb_ndcg.__version__}"


def test_every_option_has_help() -> None:
    parser = cli._parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, command in {"": parser, **commands}.items():
        for action in command._actions:
            assert action.help, f"duckdb-ndcg {name}: {action.option_strings or action.dest}"


def test_evaluate_help_states_columns_mapping_and_k(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "evaluate", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "rankings query_id, item_id, position" in text
    assert "events query_id, item_id, event_type" in text
    assert "impression/view 0, click 1, add_to_cart/cart 2, purchase 3" in text
    assert "Default cutoff: --k 10" in text


# -- 16: sql --full-ideal ---------------------------------------------------------------------------


def test_sql_full_ideal_is_not_a_no_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, full, _ = _main(capsys, "sql", "ndcg", "--dialect", "duckdb", "--full-ideal")
    assert code == 0
    code, plain, _ = _main(capsys, "sql", "ndcg", "--dialect", "duckdb")
    assert code == 0 and full != plain
    assert full.strip() == duckdb_ndcg.to_sql("ndcg", "duckdb", table="judged_run", full_ideal=True)
    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        con.execute(
            "CREATE TABLE judged_run AS SELECT * FROM (VALUES ('q', 'a', 1, 1), ('q', 'b', 3, NULL))"
            " AS t(query_id, item_id, rel, rnk)"
        )
        got = con.execute(full).fetchall()
        want = con.execute(
            "SELECT query_id, ndcg(rel, rnk, full_ideal := true) FROM judged_run GROUP BY ALL"
        ).fetchall()
        assert got[0][1] == pytest.approx(want[0][1], abs=1e-12) and got[0][1] < 1.0
    code, _, err = _main(capsys, "sql", "ndcg", "--dialect", "duckdb", "--full-ideal", "--k", "10")
    assert code == 2 and "--full-ideal" in err and "--k" in err and len(err.splitlines()) == 1
    code, _, err = _main(capsys, "sql", "ndcg", "--full-ideal")
    assert code == 2 and "--full-ideal: only with --dialect" in err
    code, _, err = _main(capsys, "sql", "events", "--dialect", "duckdb", "--full-ideal")
    assert code == 2 and "--full-ideal: not used by events" in err


# -- 17: charts: a line per slice combination, escaped, titled; paths checked before the work -------


def test_chart_draws_a_line_per_slice_combination(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--slice-by", "device,day", "--k", "3", "--chart", "c.html"]
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", *args)
    assert code == 0, err
    page = (data / "c.html").read_text()
    assert page.count("<polyline") == 3
    for label in (
        "device=desktop, day=2024-01-01",
        "device=desktop, day=2024-01-02",
        "device=mobile, day=2024-01-01",
    ):
        assert f">{label}</text>" in page
    assert "<title>Mean NDCG@k, k = 1..3, per device, day</title>" in page


def test_chart_escapes_slice_names_and_values(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data / "shown.csv").write_text(
        SHOWN.replace("device", '"dev""ice"').replace("mobile", '"<mo""bile>"')
    )
    code, _, err = _main(
        capsys, "evaluate", "shown.csv", "events.csv", "--slice-by", 'dev"ice', "--chart", "c.html"
    )
    assert code == 0, err
    page = (data / "c.html").read_text()
    assert "dev&quot;ice=&lt;mo&quot;bile&gt;" in page and "<mo" not in page
    assert "per dev&quot;ice</title>" in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chart", "missing/c.html"], "--chart missing/c.html: folder missing does not exist"),
        (["--chart", "c.png"], "--chart c.png: use a .html or .htm file name"),
        (
            ["--output", "missing/out.csv"],
            "--output missing/out.csv: folder missing does not exist",
        ),
        (["--chart", "events.html"], "--chart events.svg is the events file"),
        (["--chart", "c.html", "--k", "5,1001"], "--chart draws NDCG@1..1001"),
    ],
)
def test_chart_and_output_paths_are_checked_before_the_work(
    data: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (data / "events.html").write_text("not a chart")
    os.rename(data / "events.csv", data / "events.svg")  # the chart's .svg would overwrite it
    args = [*args, "--output", "out.csv"] if "--output" not in args else args
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.svg", *args)
    assert code == 2 and message in err, err
    assert not (data / "out.csv").exists() and not (data / "missing").exists()
    assert (data / "events.html").read_text() == "not a chart"


def test_chart_of_too_many_lines_draws_12_and_the_result_is_written(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = "".join(f"q{i},a,1,d{i},2024-01-01\n" for i in range(13))
    (data / "shown.csv").write_text(SHOWN.splitlines()[0] + "\n" + rows)
    args = ["--slice-by", "device", "--chart", "c.html", "--output", "out.csv"]
    code, _, err = _main(capsys, "evaluate", "shown.csv", "events.csv", *args)
    assert code == 0 and "draws the 12 slices with the most queries of 13" in err
    assert (data / "out.csv").exists() and (data / "c.html").exists()


# -- 20: the demo ------------------------------------------------------------------------------------


def test_demo_hint_works_as_printed_and_follows_k(tmp_path: Path) -> None:
    done = _cli("demo", "--queries", "60", "--k", "4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "NDCG@4" in done.stdout and "NDCG@10" not in done.stdout
    hint = next(line for line in done.stdout.splitlines() if "--keep" in line)
    assert "rerun with --keep demo.duckdb" in hint
    page = (tmp_path / "ndcg_demo.html").read_text()
    assert "k = 1..4" in page and ": NDCG@4 = " in page and ": NDCG@5 = " not in page
    kept = _cli("demo", "--queries", "60", "--k", "4", "--keep", "my demo.duckdb", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    lines = kept.stdout.splitlines()
    command = next(line for line in lines if line.startswith("Same report:")).split(":", 1)[1]
    assert command.strip() == hint.split("then:", 1)[1].strip().replace(
        "demo.duckdb", "'my demo.duckdb'"
    )
    words = shlex.split(command)
    assert words[0] == "duckdb-ndcg"
    report = _cli(*words[1:], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert report.stdout.split()[:2] == ["ranker", "k"]
    sql = next(line for line in lines if "or in SQL on" in line).split(":", 1)[1]
    with duckdb.connect(str(tmp_path / "my demo.duckdb"), read_only=True) as con:
        rows = con.execute(sql).fetchall()  # the macros were saved with the tables
    assert len(rows) == 2 * 4  # two rankers, cutoffs 1, 3, 4 (--k) and 5
    shown = [line.split() for line in report.stdout.splitlines()[2:]]
    assert sorted((r[0], int(r[1])) for r in shown) == sorted((r[0], r[1]) for r in rows)


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        ("events.csv", "--keep events.csv: use a .duckdb or .db file name"),
        ("fake.duckdb", "--keep fake.duckdb exists and is not a DuckDB database file"),
        ("missing/demo.duckdb", "--keep missing/demo.duckdb: folder missing does not exist"),
    ],
)
def test_demo_keep_must_be_a_duckdb_file(
    data: Path, capsys: pytest.CaptureFixture[str], keep: str, message: str
) -> None:
    (data / "fake.duckdb").write_text("query_id\n")
    code, out, err = _main(capsys, "demo", "--queries", "5", "--keep", keep)
    assert code == 2 and out == "" and err.strip() == f"duckdb-ndcg demo: {message}"
    assert (data / "events.csv").read_text() == EVENTS and not (data / "ndcg_demo.html").exists()


def test_demo_ab_arms_are_random_per_session() -> None:
    with duckdb.connect() as con:
        demo.generate(con, queries=400)
        arms = con.execute(
            """
            WITH seen AS (SELECT DISTINCT session_id, query_id, item_id FROM demo_events
                          WHERE event_type = 'impression'),
            fits AS (SELECT session_id, any_value(query_id) AS query_id, ranker
                     FROM seen JOIN demo_rankings USING (query_id, item_id)
                     GROUP BY session_id, ranker HAVING count(*) = 10)
            SELECT query_id, session_id, any_value(ranker) FROM fits GROUP BY ALL
            HAVING count(*) = 1  -- the session's items are one ranker's list, not both
            """
        ).fetchall()
    shares = Counter(arm for _, _, arm in arms)
    assert 0.42 < shares["A"] / len(arms) < 0.58
    patterns: dict[str, dict[int, str]] = defaultdict(dict)
    for query, session, arm in arms:
        patterns[query][int(session.rsplit("-", 1)[1])] = arm
    for s in range(4):  # every session number sees both arms across queries
        assert {p[s] for p in patterns.values() if s in p} == {"A", "B"}
    four = [tuple(p[s] for s in range(4)) for p in patterns.values() if len(p) == 4]
    assert len(four) > 50 and len(set(four)) >= 12  # of the 16 possible A/B patterns


def test_license_matches_pyproject() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = (ROOT / "LICENSE").read_text()
    assert meta["license"] == "MIT" and text.startswith("MIT License")
    assert re.search(r"Copyright \(c\) \d{4} duckdb_ndcg contributors", text)
    assert "WITHOUT WARRANTY OF ANY KIND" in text


def test_out_of_memory_names_the_way_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a limit below DuckDB's working memory (8MB) even the spilling plan runs out: one
    line that says what to change; a bad size is a usage error."""
    monkeypatch.chdir(tmp_path)
    with duckdb.connect() as con:
        con.execute(
            "COPY (SELECT i // 100 AS query_id, i % 100 AS item_id, i % 100 + 1 AS position "
            "FROM range(400000) t(i)) TO 'shown.parquet'"
        )
        con.execute(
            "COPY (SELECT i // 100 AS query_id, i % 100 AS item_id, 'click' AS event_type "
            "FROM range(400000) t(i) WHERE i % 7 = 0) TO 'events.parquet'"
        )
    code, out, err = _main(
        capsys, "evaluate", "shown.parquet", "events.parquet", "--memory-limit", "8MB"
    )
    assert code == 1 and out == ""  # the data's size: exit code 1
    assert len(err.strip().splitlines()) == 1
    assert "Out of Memory" in err and "spills to disk" in err and "--memory-limit" in err
    code, _, err = _main(capsys, "evaluate", "shown.parquet", "events.parquet", "--memory-limit", "8")
    assert code == 2 and "--memory-limit takes a size like 500MB" in err
    code, out, _ = _main(
        capsys, "evaluate", "shown.parquet", "events.parquet", "--memory-limit", "2GB", "--summary"
    )
    assert code == 0 and "4000" in out
