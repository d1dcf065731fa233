"""duckdb-ndcg ips: ips_estimate from the shell, against obp 0.5.7's estimates on its Open
Bandit sample (tests/fixtures/clicks/obp_estimates.csv), with its errors in the CLI's words."""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import pytest
from clicks_data import FIXTURES, ROOT, read_csv

from duckdb_ndcg import cli

LOGS = str(FIXTURES / "obd_random_all.csv")
POLICY = str(FIXTURES / "obd_bts_policy.csv")


def result(path: Path) -> dict[str, dict[str, str]]:
    with path.open(newline="") as f:
        return {r["position"]: r for r in csv.DictReader(f)}


def test_readme_recipe_equal_obp(tmp_path: Path) -> None:
    """The README's command (clipped IPW at 10) on the fixtures, against obp's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("duckdb-ndcg ips obd_random_all.csv")
    command = shlex.split(readme[start:readme.index("\n", start)])
    out = tmp_path / "ips.csv"
    files = {"obd_random_all.csv": LOGS, "obd_bts_policy.csv": POLICY, "ips.csv": str(out)}
    assert cli.main([files.get(word, word) for word in command[1:]]) == 0
    oracle = {r["position"]: r for r in read_csv("obp_estimates.csv")}
    got = result(out)
    assert sorted(got) == sorted(oracle) == ["", "1", "2", "3"]
    for position, row in got.items():
        assert float(row["estimate"]) == pytest.approx(float(oracle[position]["ipw_clipped"]),
                                                       abs=1e-12), position
        assert row["rows"] == oracle[position]["rows"] and row["ci_low"] == ""


def test_bootstrap_and_renamed_columns(tmp_path: Path) -> None:
    """--ci bootstrap with a seed: an interval around the estimate (the seeded interval is
    tested in test_ips_interval.py); --propensity-col reads another column name."""
    renamed = tmp_path / "logs.csv"
    with open(LOGS, newline="") as f, renamed.open("w", newline="") as g:
        rows = list(csv.reader(f))
        rows[0] = ["item_id", "position", "click", "pscore"]
        csv.writer(g).writerows(rows)
    flags = ["--ci", "bootstrap", "--resamples", "20", "--seed", "3", "--propensity-col",
             "pscore"]
    out = tmp_path / "ci.csv"
    assert cli.main(["ips", str(renamed), POLICY, *flags, "--output", str(out)]) == 0
    a = result(out)[""]
    assert float(a["ci_low"]) < float(a["estimate"]) < float(a["ci_high"])
    assert float(a["relative"]) == pytest.approx(1.198126315789, abs=1e-12)


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ips", LOGS, POLICY, "--estimator", "clipped"]) == cli.USAGE
    assert capsys.readouterr().err.strip() == (
        "duckdb-ndcg ips: --estimator clipped needs --clip <the largest weight, a number > 0>")
    assert cli.main(["ips", LOGS, POLICY, "--estimator", "dr"]) == cli.USAGE
    assert "--estimator: invalid choice: 'dr'" in capsys.readouterr().err
    assert cli.main(["ips", LOGS, POLICY, "--clip", "0"]) == cli.USAGE
    assert "--clip: must be a finite number > 0, got '0'" in capsys.readouterr().err
    assert cli.main(["ips", LOGS, str(tmp_path / "none.csv")]) == cli.USAGE
    assert "does not exist" in capsys.readouterr().err

    zero = tmp_path / "zero.csv"
    zero.write_text("item_id,position,click,propensity_score\n1,1,1,0.0\n")
    assert cli.main(["ips", str(zero), POLICY]) == cli.DATA
    err = capsys.readouterr().err.strip()
    assert err.startswith("duckdb-ndcg ips: propensity_score of logs table ")
    assert err.endswith("must be a probability in (0, 1] (1 rows are NULL, 0 or above 1)")
