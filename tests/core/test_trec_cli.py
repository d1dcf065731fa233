"""duckdb-ndcg trec: the lines trec_eval 10 prints, line for line, for every measure computed here.

Oracles: trec_eval's own test files (../shared/peers/trec_eval relative to the repository root:
out.test.aq, .aqc, .aqcM, .aql) and trec_eval 10 built from source and run on generated fixtures
(tests/fixtures/trec_eval/make_fixtures.py: equal scores, queries judged but not run, unjudged
returned items, all-zero queries, grade -1) under -c, -J, -l 2, -M 10 and all four. Each expected
file is trec_eval -q -m all_trec; the lines of the measures below are compared, in order."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from duckdb_ndcg import cli
from duckdb_ndcg.trec import trec_lines, trec_measures

ROOT = Path(__file__).parents[2]
# ../shared/peers/trec_eval from the repository root (CI), or from the folder of worktrees
PEERS = next((p / "shared" / "peers" / "trec_eval" for p in (ROOT.parent, ROOT.parent.parent)
              if (p / "shared" / "peers" / "trec_eval").is_dir()), ROOT / "missing")
FIXTURES = ROOT / "tests" / "fixtures" / "trec_eval"

# all_trec's measures not computed yet (trec_eval prints them; duckdb-ndcg trec would name them
# on stderr and print the rest): none
NOT_YET: set[str] = set()
COMPUTED = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "gm_bpref", "ndcg",
            "ndcg_cut", "map_cut", "success", "set_P", "set_recall", "set_F",
            "num_nonrel_judged_ret", "utility", "11pt_avg", "relative_P", "Rprec_mult",
            "set_relative_P", "set_map", "relstring", "unj", "rbp", "rbp_resid", "infAP",
            "ndcg_rel", "Rndcg", "binG", "G"}


# every measure computed here, each family at one or two parameters (all_trec's 90 lines a query
# take 4 s of planning per option set; out.test.aq checks the whole of all_trec)
SOME = ["official", "recall.5", "gm_bpref", "ndcg", "ndcg_cut.5,10", "map_cut.10", "success.1",
        "set_P", "set_recall", "set_F", "num_nonrel_judged_ret", "utility", "11pt_avg",
        "relative_P.5,1000", "Rprec_mult.0.2,1.0,2.0", "set_relative_P", "set_map",
        "relstring", "unj", "rbp", "rbp_resid", "infAP", "ndcg_rel", "Rndcg", "binG", "G"]
# the measures an option changes differently, for the other option sets (1 s each, not 3)
FEW = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
       "recip_rank", "iprec_at_recall.0,0.5", "P.5,10", "ndcg_cut.5", "set_F", "gm_bpref",
       "num_nonrel_judged_ret", "infAP", "binG", "Rndcg", "unj.5", "relstring"]

def _base(line: str) -> str:
    name = line.split("\t")[0].strip()
    return next((b for b in sorted(NOT_YET | COMPUTED, key=len, reverse=True)
                 if name == b or name.startswith(b + "_")), name)


def _expect_same(mine: list[str], expected_file: Path, every: bool = False) -> None:
    """mine equal to trec_eval's lines of the same names, in trec_eval's order; every: mine holds
    every measure of COMPUTED (each family at some parameters)."""
    text = expected_file.read_text()
    assert {_base(line) for line in text.splitlines()} == NOT_YET | COMPUTED
    printed = {line.split("\t")[0] for line in mine}
    if every:
        assert {_base(name) for name in printed} == COMPUTED
    assert mine == [line for line in text.splitlines() if line.split("\t")[0] in printed]


def test_all_trec_computes_all_but_the_named() -> None:
    runid, measures, skipped = trec_measures(["all_trec"])
    assert runid
    assert set(skipped) == NOT_YET
    assert {_base(m.trec) for m in measures} == COMPUTED - {"runid"}


@pytest.fixture(scope="module")
def trec_con():
    import duckdb

    import duckdb_ndcg

    with duckdb.connect() as con:
        duckdb_ndcg.register(con)
        yield con


PEER_CASES = {  # trec_eval's test outputs: (run file, measures, options)
    "out.test.aq": ("results.test", ["all_trec"], {}),  # every line (6 s of planning)
    "out.test.aqc": ("results.trunc", FEW, {"complete": True}),
}


@pytest.mark.skipif(not PEERS.is_dir(), reason="trec_eval's test files are not checked out")
def test_trec_evals_own_test_files(trec_con, check_cases) -> None:
    def case(expected: str, run: str, measures: list[str], options: dict):
        def check() -> None:
            mine = list(trec_lines(trec_con, str(PEERS / "qrels.test"), str(PEERS / run),
                                   measures, per_query=True, **options))
            if measures == ["all_trec"]:  # line for line, the whole file
                assert mine == (PEERS / expected).read_text().splitlines()
            _expect_same(mine, PEERS / expected, measures is SOME)
        return check

    check_cases((name, case(name, *spec)) for name, spec in PEER_CASES.items())


@pytest.mark.skipif(not PEERS.is_dir(), reason="trec_eval's test files are not checked out")
def test_relevance_level_peer_file(trec_con) -> None:
    """out.test.aql: -m all_trec -m relstring.20 -l 2 on qrels graded -1 .. 4 (-m's parameters
    override the nickname's relstring)."""
    mine = list(trec_lines(trec_con, str(PEERS / "qrels.rel_level"), str(PEERS / "results.test"),
                           [*(m for m in FEW if m != "relstring"), "relstring.20", "ndcg_rel", "G",
                            "rbp", "rbp_resid"],
                           per_query=True, level=2))
    assert "relstring_20          \t303\t'0000.....00..0.0.02.'" in mine
    printed = {line.split("\t")[0] for line in mine}
    lines = (PEERS / "out.test.aql").read_text().splitlines()
    assert mine == [line for line in lines if line.split("\t")[0] in printed]


# out.<name>.txt: (qrels file, options). Each call plans its measures anew (1.5 to 2.5 s), so the
# recorded sets that others cover are not run: plain (out.test.aq), c (out.test.aqc and
# test_cli_official_and_flags), l2 (out.test.aql), M10 (cJl2M10)
FIXTURE_CASES = {
    "J": ("qrels_run_only.txt", {"judged_only": True}),
    "cJl2M10": ("qrels.txt", {"complete": True, "judged_only": True, "level": 2,
                              "max_retrieved": 10}),
}


def test_generated_fixtures(trec_con, check_cases) -> None:
    def case(name: str, qrels: str, options: dict):
        def check() -> None:
            measures = SOME if name == "cJl2M10" else FEW
            mine = list(trec_lines(trec_con, str(FIXTURES / qrels), str(FIXTURES / "run.txt"),
                                   measures, per_query=True, **options))
            printed = {line.split("\t")[0] for line in mine}
            assert {_base(name) for name in printed} == (
                COMPUTED if measures is SOME else {_base(m.split(".")[0]) for m in FEW})
            expected = (FIXTURES / f"out.{name}.txt").read_text().splitlines()
            expected = [line for line in expected if line.split("\t")[0] in printed]
            # trec_eval quirk: with -J and -c, a query judged but not run has iprec_at_recall_0.00
            # 0 / 0 (printed -nan, and so is the mean); here 0, and the mean of the values
            nan = {tuple(line.split("\t")[:2]) for line in expected if "nan" in line}
            if options.get("complete") and options.get("level", 1) != 1:
                # trec_eval quirk: under -c its num_rel of "all" counts grades >= 1 whatever -l
                # (here: the sum of the queries' num_rel, as without -c)
                nan.add(("num_rel               ", "all"))
            assert all(line.endswith("\t0.0000") for line in mine
                       if tuple(line.split("\t")[:2]) in nan and "\tall\t" not in line)
            assert [line for line in mine if tuple(line.split("\t")[:2]) not in nan] == [
                line for line in expected if tuple(line.split("\t")[:2]) not in nan]
        return check

    check_cases((name, case(name, qrels, options))
                for name, (qrels, options) in FIXTURE_CASES.items())


def test_cli_official_and_flags(capsys, monkeypatch) -> None:
    """The README's command line (-m twice: a nickname, a cutoff list; -q, -c) in the folder of
    the generated qrels.txt and run.txt: trec_eval's lines."""
    readme = (ROOT / "README.md").read_text()
    command = readme[readme.index("### A drop-in trec_eval"):].split("```bash\n", 1)[1]
    command = command.split("\n", 1)[0]
    assert command == "duckdb-ndcg trec qrels.txt run.txt -c -q -m official -m ndcg_cut.5,10"
    monkeypatch.chdir(FIXTURES)
    assert cli.main(shlex.split(command)[1:]) == 0
    printed = capsys.readouterr().out.splitlines()
    expected = [line for line in (FIXTURES / "out.c.txt").read_text().splitlines()
                if _base(line) in {*trec_official(), "ndcg_cut"}
                and line.split("\t")[0].strip() not in {f"ndcg_cut_{k}" for k in
                                                        (15, 20, 30, 100, 200, 500, 1000)}]
    assert printed == expected


def test_no_summary(trec_con) -> None:
    """-n: the queries' lines only."""
    lines = list(trec_lines(trec_con, str(FIXTURES / "qrels.txt"), str(FIXTURES / "run.txt"),
                            ["P.5"], per_query=True, complete=True, summary=False))
    expected = [line for line in (FIXTURES / "out.c.txt").read_text().splitlines()
                if line.startswith("P_5 ") and "\tall\t" not in line]
    assert lines == expected and len(lines) == 8


def trec_official() -> set[str]:
    from duckdb_ndcg.measures import OFFICIAL

    return set(OFFICIAL)


BAD = [  # arguments after QRELS RUN, exit code, words of the one error line
    (["-m", "ndcg_cut.0"], 2, ["-m:", "'ndcg_cut.0'", "cutoff"]),
    (["-m", "ndcg_cut.ten"], 2, ["-m:", "'ndcg_cut.ten'"]),
    (["-m", "recip_rnk"], 2, ["unknown measure 'recip_rnk'", "recip_rank"]),
    (["-m", "map.5"], 2, ["'map.5'", "takes no parameters"]),
    (["-m", "infAP.5"], 2, ["'infAP.5'", "takes no parameters"]),
    (["-m", "ndcg_rel.p=0.5"], 2, ["'ndcg_rel.p=0.5'", "does not take 'p'", "grade=gain"]),
    (["-m", "rbp.p=2"], 2, ["'rbp.p=2'", "p must be a number between 0 and 1"]),
    (["-m", "G.1=high"], 2, ["'G.1=high'", "'1=high' is not name=number"]),
    (["-m", "rbp_resid.1=2"], 2, ["'rbp_resid.1=2'", "does not take '1'"]),
    (["-m", "relstring.0"], 2, ["'relstring.0'", "cutoff must be a whole number >= 1"]),
    (["-M", "0"], 2, ["-M:", "'0'"]),
    (["-l", "two"], 2, ["-l:", "'two'"]),
]


def test_bad_arguments(tmp_path, capsys, check_cases) -> None:
    qrels, run = str(FIXTURES / "qrels.txt"), str(FIXTURES / "run.txt")
    bad_run = tmp_path / "bad_run.txt"
    bad_run.write_text("q1 Q0 d100 1 2.0 t\nq1 Q0 d101 2 high t\n")
    bad_qrels = tmp_path / "bad_qrels.txt"
    bad_qrels.write_text("q1 0 d100 1\n")
    cases = [(f"{args}", [qrels, run, *args], code, words) for args, code, words in BAD]
    cases += [
        ("bad run line", [str(bad_qrels), str(bad_run)], 1, [f"{bad_run} line 2", "'high'"]),
        ("no such run", [qrels, str(tmp_path / "nope.txt")], 2, ["run file", "nope.txt"]),
    ]

    def case(argv: list[str], code: int, words: list[str]):
        def check() -> None:
            assert cli.main(["trec", *argv]) == code
            out, err = capsys.readouterr()
            assert out == ""
            assert err.count("\n") == 1 and err.startswith("duckdb-ndcg trec: "), err
            for word in words:
                assert word in err, err
        return check

    check_cases((name, case(argv, code, words)) for name, argv, code, words in cases)


def test_bad_qrels_line(trec_con, tmp_path) -> None:
    bad_qrels = tmp_path / "bad_qrels.txt"
    bad_qrels.write_text("q1 0 d100 1\nq1 0 d101\n")
    with pytest.raises(Exception, match=f"{bad_qrels} line 2: a qrels line has 4 fields"):
        list(trec_lines(trec_con, str(bad_qrels), str(FIXTURES / "run.txt"), ["map"]))
