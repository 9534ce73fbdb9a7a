"""Every spec Scenario has a test named after it, and docs/spec-coverage.md is current."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT.parent / "shared" / "specs"

pytestmark = pytest.mark.skipif(
    not SPECS.is_dir(), reason="the specs live in ../shared/specs beside the repository"
)


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("spec_coverage", ROOT / "tools/spec_coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("spec_coverage", module)
    spec.loader.exec_module(module)
    return module


def test_every_scenario_has_a_test_named_after_it() -> None:
    _, missing = _tool().coverage(SPECS)
    assert missing == []


def test_spec_coverage_page_is_current() -> None:
    page, _ = _tool().coverage(SPECS)
    current = (ROOT / "docs" / "spec-coverage.md").read_text()
    assert current.strip() == page.strip(), (
        "docs/spec-coverage.md is out of date: run "
        "`python tools/spec_coverage.py > docs/spec-coverage.md`"
    )
