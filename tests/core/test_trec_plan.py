"""duckdb-ndcg trec on runs larger than memory: trec_eval's usual measures by the plan DuckDB
spills (duckdb_ndcg.trec_plan), under --memory-limit and --temp-directory.

Oracle: trec_eval 10's own output on the generated fixtures (tests/fixtures/trec_eval/
make_fixtures.py: equal scores, queries judged but not run, unjudged returned items, queries
graded all 0), line for line; the other trec tests (test_trec_cli.py) run the same plan on
trec_eval's test files whenever a measure below is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from duckdb_ndcg import cli
from duckdb_ndcg.trec import trec_measures
from duckdb_ndcg.trec_plan import covers

FIXTURES = Path(__file__).parents[2] / "tests" / "fixtures" / "trec_eval"
# every measure the plan computes: official's, recall and map at cutoffs
PLANNED = ["official", "recall.5,30", "map_cut.10,1000"]


def test_the_plan_covers_official() -> None:
    """official, P, recall and map_cut go through the spilling plan; ndcg and -J do not."""
    assert covers(trec_measures(PLANNED)[1])
    assert not covers(trec_measures(["ndcg"])[1])


@pytest.mark.parametrize(("flags", "expected", "qrels"), [
    (["-c"], "out.c.txt", "qrels.txt"),
    (["-l", "2"], "out.l2.txt", "qrels_run_only.txt"),
    (["-M", "10"], "out.M10.txt", "qrels_run_only.txt"),
], ids=["-c", "-l 2", "-M 10"])
def test_under_a_memory_limit(tmp_path, capsys, flags, expected, qrels) -> None:
    """trec_eval's lines (-q) of the planned measures, in a DuckDB limited to 100MB that spills
    to tmp_path."""
    code = cli.main(["trec", str(FIXTURES / qrels), str(FIXTURES / "run.txt"), "-q", *flags,
                     *(f"-m{m}" for m in PLANNED), "--memory-limit", "100MB",
                     "--temp-directory", str(tmp_path / "spill")])
    assert code == 0
    mine = capsys.readouterr().out.splitlines()
    printed = {line.split("\t")[0] for line in mine}
    lines = (FIXTURES / expected).read_text().splitlines()
    assert mine == [line for line in lines if line.split("\t")[0] in printed]
    # runid and the 4 counts, map, gm_map, Rprec, bpref, recip_rank, iprec 11, P 9, recall, map_cut
    assert len(printed) == 5 + 5 + 11 + 9 + 2 + 2


@pytest.mark.parametrize("size", ["2XB", "lots", "80%"])
def test_bad_memory_limit(capsys, size: str) -> None:
    assert cli.main(["trec", str(FIXTURES / "qrels.txt"), str(FIXTURES / "run.txt"),
                     "--memory-limit", size]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--memory-limit takes a size like 500MB or 2GB, got '{size}'" in err
