"""The statistics macros from a persisted file, in the DuckDB 1.4 and 1.5 CLIs (no Python there):
the same numbers as in this process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import duckdb
import pytest

import duckdb_ndcg

# structs as JSON text: the 1.4 CLI prints a STRUCT in -json mode as a string of its own format
QUERY = """
SELECT g, json_array(paired_ttest(b, a), welch_ttest(b, g % 2 = 0), wilcoxon_test(b, a),
                   sign_test(b, a), randomization_test(b, a, resamples := 200),
                   bootstrap_ci(b, a, resamples := 100), win_tie_loss(b, a))::VARCHAR AS s
FROM pairs GROUP BY g ORDER BY g
"""
ADJUSTED = "SELECT g, p_adjusted, reject FROM p_adjust('p', by := ['k']) ORDER BY g"


def _flatten(value: object) -> list:
    if isinstance(value, str) and value.startswith("["):
        return _flatten(json.loads(value))
    if isinstance(value, (dict, list)):
        return [x for v in (value.values() if isinstance(value, dict) else value)
                for x in _flatten(v)]
    return [value]


def test_stats_in_the_cli(duckdb_cli: Path, tmp_path: Path) -> None:
    path = tmp_path / "stats.duckdb"
    duckdb_ndcg.install(path)  # the oldest storage the package supports
    with duckdb.connect(str(path)) as con:
        # groups of different sizes (several list depths in one vector), ties and zeros in some
        con.execute("""CREATE TABLE pairs AS
            SELECT i % 7 AS g,
                   round((hash(i::VARCHAR || 'b') % 1000) / 1000, (1 + i % 7 % 2)::INTEGER) AS b,
                   round((hash(i::VARCHAR || 'a') % 1000) / 1000, 1) AS a
            FROM range(40 + 7 * 70) t(i) WHERE i % 7 < 3 OR i < 300""")
        con.execute("CREATE TABLE p AS SELECT g, g % 2 AS k, paired_ttest(b, a).p_value AS p_value "
                    "FROM pairs GROUP BY g")
        ours = [_flatten(list(row)) for row in con.execute(QUERY).fetchall()]
        ours_adj = [_flatten(list(row)) for row in con.execute(ADJUSTED).fetchall()]
    for sql, want in ((QUERY, ours), (ADJUSTED, ours_adj)):
        result = subprocess.run([str(duckdb_cli), "-readonly", "-json", str(path), "-c",
                                 " ".join(sql.split())], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        theirs = [_flatten(list(record.values())) for record in json.loads(result.stdout)]
        assert len(theirs) == len(want)
        for mine, cli in zip(want, theirs, strict=True):
            for a, b in zip(mine, cli, strict=True):
                if isinstance(a, float):
                    assert a == pytest.approx(float(b), rel=1e-12, abs=1e-15)
                else:
                    assert a == b
