"""duckdb-ndcg trec with a Parquet run: columns query_id, doc_id, score (ir_measures' names) or
qid, docno, score (PyTerrier's), an optional run_id or tag column for runid. Oracle: the same
run as a text file gives trec_eval's lines (tests/core/test_trec_cli.py checks those against
trec_eval 10), so the Parquet run must print them too."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from duckdb_ndcg import cli
from duckdb_ndcg.trec import trec_lines

FIXTURES = Path(__file__).parents[2] / "tests" / "fixtures" / "trec_eval"
QRELS = str(FIXTURES / "qrels.txt")
MEASURES = ["runid", "num_ret", "map", "P.5,10", "ndcg_cut.5", "infAP", "relstring",
            "recip_rank"]


def _parquet(con, path: Path, select: str) -> str:
    """The fixture run.txt as a Parquet file of the columns ``select`` names."""
    con.execute(
        f"COPY (SELECT {select} FROM (SELECT string_split(line, ' ') AS f FROM read_csv("
        f"'{FIXTURES / 'run.txt'}', columns = {{'line': 'VARCHAR'}}, delim = '\\t', "
        f"header = false))) TO '{path}'")
    return str(path)


def test_parquet_run_prints_the_text_runs_lines(con, tmp_path, capsys) -> None:
    run = _parquet(con, tmp_path / "run.parquet", "f[1] AS query_id, f[3] AS doc_id, "
                   "f[5]::DOUBLE AS score, f[6] AS run_id")
    options = {"per_query": True, "complete": True, "max_retrieved": 10}
    mine = list(trec_lines(con, QRELS, run, MEASURES, **options))
    text = list(trec_lines(con, QRELS, str(FIXTURES / "run.txt"), MEASURES, **options))
    assert mine == text and len(mine) == 8 * 8 + 8  # relstring has no `all` line
    # PyTerrier's names, the score as text, no tag column: runid is the file's name (the CLI)
    run = _parquet(con, tmp_path / "bm25.parquet", "f[1] AS qid, f[3] AS docno, f[5] AS score")
    assert cli.main(["trec", QRELS, run, "-m", "runid", "-m", "map", "-m", "ndcg"]) == 0
    out = capsys.readouterr().out.splitlines()
    text = list(trec_lines(con, QRELS, str(FIXTURES / "run.txt"), ["map", "ndcg"]))
    assert out == ["runid                 \tall\tbm25", *text] and len(text) == 2


BAD = [  # the Parquet run's columns, words of the one error line
    ("f[1] AS query_id, f[3] AS doc, f[5]::DOUBLE AS score",
     ["needs the columns query_id, doc_id, score or qid, docno, score",
      "has query_id, doc, score"]),
    ("f[1] AS query_id, f[3] AS doc_id, CASE WHEN f[3] = 'd104' THEN 'nan' ELSE f[5] END AS score",
     ["score 'nan' of document 'd104' (query 'q1') is not a finite number"]),
    ("f[1] AS query_id, CASE WHEN f[3] = 'd104' THEN 'd128' ELSE f[3] END AS doc_id, f[5] AS score",
     ["document 'd128' is listed more than once for query 'q1'"]),
]


@pytest.mark.parametrize(("select", "words"), BAD, ids=["columns", "nan", "duplicate"])
def test_bad_parquet_run(con, tmp_path, select: str, words: list[str]) -> None:
    run = _parquet(con, tmp_path / "bad.parquet", select)
    with pytest.raises((ValueError, duckdb.Error)) as raised:
        list(trec_lines(con, QRELS, run, ["map"]))
    message = str(raised.value)
    assert "\n" not in message and "bad.parquet" in message
    for word in words:
        assert word in message, message


def test_bad_parquet_run_cli(con, tmp_path, capsys) -> None:
    run = _parquet(con, tmp_path / "bad.parquet", "f[1] AS query_id, f[3] AS doc_id")
    assert cli.main(["trec", QRELS, run, "-m", "map"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("duckdb-ndcg trec: "), err
    assert "needs the columns query_id, doc_id, score" in err and "bad.parquet" in err
