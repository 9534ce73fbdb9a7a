"""Project hygiene: one version everywhere, and the license ships with the package."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

import stridewave

ROOT = Path(__file__).resolve().parents[1]


def test_version_agrees_across_changelog_and_citation() -> None:
    version = stridewave.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## (\d+\.\d+\.\d+\S*) \(", changelog, flags=re.MULTILINE)
    assert released, "CHANGELOG.md has no released version heading"
    assert released[0] == version, f"newest CHANGELOG entry {released[0]} != {version}"
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf'^version: "{re.escape(version)}"$', citation, flags=re.MULTILINE)


def test_installed_distribution_declares_the_license_file() -> None:
    try:
        meta = importlib.metadata.metadata("stridewave")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("stridewave runs from a source tree here, not an installed distribution")
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert "LICENSE" in (meta.get_all("License-File") or [])
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("BSD 3-Clause License")


def test_classifiers_cover_the_declared_python_versions() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    low = int(project["requires-python"].removeprefix(">=3."))
    classifiers = set(project["classifiers"])
    for minor in range(low, 14):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
