"""What a user installs and reads (issue 20, item 14): the wheel's py.typed and metadata, the dbt
package reachable from git, and a README that speaks of the project, not of its history."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel pip builds from the source tree (hatchling, as `pip install` does)."""
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("duckdb_ndcg-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_ships_py_typed(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    assert "duckdb_ndcg/py.typed" in names
    assert not [name for name in names if name.startswith("dbt/")]  # the README says: use git


def test_wheel_metadata(wheel: zipfile.ZipFile) -> None:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = Parser().parsestr(wheel.read(name).decode())
    classifiers = metadata.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert metadata["Author"] and metadata["Keywords"] and "ndcg" in metadata["Keywords"]
    assert metadata["License-Expression"] == "MIT"
    # no home page on a host that does not exist: the project has none yet
    assert metadata.get_all("Project-URL") is None and metadata["Home-page"] is None


def test_dbt_package_from_git_names_an_existing_subdirectory() -> None:
    """The git form of packages.yml the README shows: its subdirectory is the dbt package, and its
    URL is a placeholder on a reserved domain (RFC 2606), not a host that might not exist."""
    (package,) = yaml.safe_load(
        (ROOT / "examples/dbt_project/packages_from_git.yml").read_text()
    )["packages"]
    project = yaml.safe_load((ROOT / package["subdirectory"] / "dbt_project.yml").read_text())
    assert project["name"] == "duckdb_ndcg"
    assert re.fullmatch(r"https://example\.com/YOUR-ORG/duckdb_ndcg\.git", package["git"])
    assert "packages_from_git.yml -->" in README and "subdirectory: dbt/duckdb_ndcg" in README


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bthis round\b",
        r"\brounds? back\b",
        r"\bissue \d+",
        r"\b(after|before|against) [0-9a-f]{7,40}\b",
        r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b",  # a commit id
        r"\btoday'?s?\b",
    ],
)
def test_readme_has_no_changelog_text(pattern: str) -> None:
    found = re.findall(rf".{{0,30}}{pattern}.{{0,30}}", README, flags=re.IGNORECASE)
    assert not found, found


def test_readme_paths_stay_in_the_repository() -> None:
    """Every ../ path of the README resolves inside the repository, from some folder of it (the
    dbt example's `local: ../../dbt/duckdb_ndcg` from examples/dbt_project), and no absolute path
    of the machine it was written on appears."""
    folders = [ROOT] + [p for p in ROOT.rglob("*") if p.is_dir() and ".git" not in p.parts]
    for path in re.findall(r"(?:\.\./)+[\w./-]*\w", README):
        inside = [
            folder for folder in folders
            if (folder / path).exists() and (folder / path).resolve().is_relative_to(ROOT)
        ]
        assert inside, f"README names {path}, which is outside the repository"
    assert not re.findall(r"/work/|/home/|/Users/", README)
