"""read_qrels / read_trec_run on TREC files the tests write, and end-to-end agreement with
pytrec_eval on those files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest
import pytrec_eval

QRELS = "q1 0 d1 2\n\nq1\t0\td2\t0\n  q1   0   d3   1  \nq2 0 d1 1\r\nq2 0 d9 3.5\n"
RUN = (
    "q1 Q0 d3 1 2.5 tag\n"
    "q1\tQ0\td1\t2\t2.5\ttag\n"
    "\n"
    "q1 Q0 d10 3 2.5 tag\n"
    "q1 Q0 d2 99 -1e3 tag\n"
    "q2 Q0 d1 1 0.125 tag\r\n"
    "q2 Q0 d7 1 7 tag\n"
)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_read_qrels_spaces_tabs_blank_lines(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    rows = con.execute(
        "SELECT query_id, item_id, rel FROM read_qrels($1) ORDER BY query_id, item_id",
        [write(tmp_path, "qrels.txt", QRELS)],
    ).fetchall()
    assert rows == [
        ("q1", "d1", 2.0),
        ("q1", "d2", 0.0),
        ("q1", "d3", 1.0),
        ("q2", "d1", 1.0),
        ("q2", "d9", 3.5),
    ]


def test_read_trec_run_orders_as_trec_eval(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    """Score descending, then item id descending as strings (d3 > d10 > d1); the file's rank
    column (1, 2, 3, 99) is ignored."""
    rows = con.execute(
        "SELECT query_id, item_id, score, rnk FROM read_trec_run($1) ORDER BY query_id, rnk",
        [write(tmp_path, "run.txt", RUN)],
    ).fetchall()
    assert rows == [
        ("q1", "d3", 2.5, 1),
        ("q1", "d10", 2.5, 2),
        ("q1", "d1", 2.5, 3),
        ("q1", "d2", -1000.0, 4),
        ("q2", "d7", 7.0, 1),
        ("q2", "d1", 0.125, 2),
    ]


def test_column_types(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    qrels = write(tmp_path, "qrels.txt", QRELS)
    run = write(tmp_path, "run.txt", RUN)
    types = con.execute(
        "SELECT (SELECT list(column_type) FROM (DESCRIBE SELECT * FROM read_qrels($1))), "
        "(SELECT list(column_type) FROM (DESCRIBE SELECT * FROM read_trec_run($2)))",
        [qrels, run],
    ).fetchone()
    assert types == (["VARCHAR", "VARCHAR", "DOUBLE"], ["VARCHAR", "VARCHAR", "DOUBLE", "BIGINT"])


JOIN = """
SELECT coalesce(r.query_id, q.query_id) AS query_id, coalesce(r.item_id, q.item_id) AS item_id,
       q.rel::INTEGER AS rel, r.rnk
FROM read_trec_run($1) AS r
FULL OUTER JOIN read_qrels($2) AS q USING (query_id, item_id)
WHERE query_id IN (SELECT query_id FROM read_trec_run($1) INTERSECT SELECT query_id FROM read_qrels($2))
"""

MEASURES = {
    "ndcg": "ndcg(rel, rnk, full_ideal := true)",
    "ndcg_cut_5": "ndcg(rel, rnk, 5)",
    "P_5": "precision_at_k(rel, rnk, 5)",
    "recall_10": "recall_at_k(rel, rnk, 10)",
    "map": "average_precision(rel, rnk)",
    "recip_rank": "reciprocal_rank(rel, rnk)",
}


def random_files(tmp_path: Path, seed: int) -> tuple[str, str, dict, dict]:
    """TREC files with tied scores across many queries, written with mixed separators."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    qrels_lines, run_lines = [], []
    for q in range(200):
        qid = f"topic-{q}"
        items = [f"doc{i}" for i in range(int(rng.integers(2, 30)))]
        for item in rng.choice(items, size=int(rng.integers(1, len(items))), replace=False):
            grade = int(rng.choice([0, 0, 1, 2]))
            qrels.setdefault(qid, {})[str(item)] = grade
            sep = "\t" if rng.random() < 0.5 else " "
            qrels_lines.append(sep.join([qid, "0", str(item), str(grade)]))
        returned = rng.choice(items, size=int(rng.integers(1, len(items))), replace=False)
        for rank, item in enumerate(returned, 1):
            score = float(rng.integers(0, 4)) / 2
            run.setdefault(qid, {})[str(item)] = score
            run_lines.append(f"{qid} Q0 {item} {rank} {score} run")
        if rng.random() < 0.2:
            run_lines.append("")
    order = rng.permutation(len(run_lines))  # trec_eval does not need the file sorted
    run_text = "\n".join(run_lines[i] for i in order) + "\n"
    return (
        write(tmp_path, "qrels.txt", "\n".join(qrels_lines) + "\n"),
        write(tmp_path, "run.txt", run_text),
        qrels,
        run,
    )


@pytest.mark.versions
def test_end_to_end_matches_pytrec_eval(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    """The files, read by our macros and joined, give pytrec_eval's value for every query.
    read_trec_run's rnk is a position in trec_eval's order, so no tie_key is needed."""
    qrels_path, run_path, qrels, run = random_files(tmp_path, seed=5)
    con.execute(f"CREATE TABLE judged_run AS {JOIN}", [run_path, qrels_path])
    select = ", ".join(f'{sql} AS "{name}"' for name, sql in MEASURES.items())
    rows = con.execute(f"SELECT query_id, {select} FROM judged_run GROUP BY query_id").fetchall()
    ours = {row[0]: dict(zip(MEASURES, row[1:], strict=True)) for row in rows}
    measures = {"ndcg", "ndcg_cut.5", "P.5", "recall.10", "map", "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert set(ours) == set(theirs) and len(theirs) == 200
    for qid, values in theirs.items():
        for name, value in values.items():
            assert ours[qid][name] == pytest.approx(value, abs=1e-9), (qid, name)


def test_error_line_numbers_count_blank_lines_and_crlf(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """Mixed \\n and \\r\\n endings and blank lines: the error names the line a text editor shows."""
    path = write(tmp_path, "qrels.txt", "q1 0 d1 1\r\n\nq1 0 d2 2\n\r\nq1 0 d3\r\n")
    with pytest.raises(duckdb.Error, match=r"line 5: a qrels line has 4 fields"):
        con.execute("SELECT * FROM read_qrels($1)", [path]).fetchall()


def test_run_fields_after_the_tag_are_ignored(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """trec_eval: "Any field following run_id is ignored"; the run was refused before."""
    path = write(
        tmp_path,
        "run.txt",
        "q1 Q0 d1 1 2.5 tag extra fields here\nq1 Q0 d2 2 1.5 tag\tmore\nq1 Q0 d3 3 0.5 tag\n",
    )
    got = con.execute("SELECT item_id, score, rnk FROM read_trec_run($1) ORDER BY rnk", [path])
    assert got.fetchall() == [("d1", 2.5, 1), ("d2", 1.5, 2), ("d3", 0.5, 3)]
    short = write(tmp_path, "short.txt", "q1 Q0 d1 1 2.5\n")
    with pytest.raises(duckdb.Error, match=r"line 1: a run line has 6 fields .*, got 5"):
        con.execute("SELECT * FROM read_trec_run($1)", [short]).fetchall()
    qrels = write(tmp_path, "qrels.txt", "q1 0 d1 1 extra\n")
    with pytest.raises(duckdb.Error, match=r"line 1: a qrels line has 4 fields"):
        con.execute("SELECT * FROM read_qrels($1)", [qrels]).fetchall()


def test_the_first_of_several_bad_lines_is_named(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    lines = [f"q{i} 0 d{i} 1" for i in range(3000)]
    lines[1200] = "q 0 d x"
    lines[2500] = "q 0 d"
    lines[2900] = "q 0 d nan"
    path = write(tmp_path, "qrels.txt", "\n".join(lines) + "\n")
    with pytest.raises(duckdb.Error, match=r"line 1201: grade 'x' is not a finite number"):
        con.execute("SELECT * FROM read_qrels($1)", [path]).fetchall()
