"""stridewave.testing as another project runs it: in its own pytest session.

The example module of docs/adding-a-carrier.md runs, through the installed pytest
plugin, in a directory of its own (no conftest, no pyproject of ours), and passes; a
kind that breaks the contract fails the same suite, by the tests that pin what it
broke.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from stridewave.testing import CarrierTests

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "adding-a-carrier.md"

# The plugin reaches another project's pytest through the installed distribution's
# pytest11 entry point; a source tree on PYTHONPATH (the GPU runs) has none.
pytestmark = pytest.mark.skipif(
    not any(
        ep.value.startswith("stridewave.")
        for ep in importlib.metadata.entry_points(group="pytest11")
    ),
    reason="stridewave is not installed here (no pytest11 entry point): pip install -e .",
)


def _doc_example() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "adding-a-carrier.md has one complete example module"
    return str(blocks[0])


def _pytest(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(directory), "STRIDEWAVE_METAL_DEVICE": "cpu"}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", *args],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_the_documented_example_passes_the_contract_through_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_my_carrier.py").write_text(_doc_example())
    proc = _pytest(tmp_path, "-q", "-rs", "test_my_carrier.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = proc.stdout.strip().splitlines()[-1]
    passed = int(re.search(r"(\d+) passed", summary).group(1))  # type: ignore[union-attr]
    methods = [name for name in dir(CarrierTests) if name.startswith("test_")]
    assert passed > len(methods), summary  # every contract test ran, some once per dtype
    assert "failed" not in summary and "skipped" not in summary, summary


def test_the_plugin_declares_the_marker_and_names_the_metal_runtime(tmp_path: Path) -> None:
    markers = _pytest(tmp_path, "--markers")
    assert markers.returncode == 0, markers.stderr
    assert "@pytest.mark.needs_mlx:" in markers.stdout
    (tmp_path / "test_nothing.py").write_text("def test_nothing() -> None:\n    pass\n")
    header = _pytest(tmp_path, "test_nothing.py")
    assert re.search(r"^stridewave \S+; Metal: ", header.stdout, re.MULTILINE), header.stdout


BROKEN = '''
import numpy as np

from stridewave import CPU, DType
from stridewave.testing import CarrierTests, Kind


class Boastful(CPU):
    """Claims every descriptor as a storage dtype, and forgets its subclass in new_like."""

    def supports_storage_dtype(self, dtype):
        return True

    def _raw_new_like(self, values, *, mutable, dtype):
        return CPU(0, dtype=dtype).new_like(values, mutable=mutable)


class TestBoastful(CarrierTests):
    kind = Kind(
        name="Boastful",
        cls=Boastful,
        make=lambda values, dtype, mutable: Boastful.from_numpy(
            np.array(values, dtype=np.float32), mutable=mutable
        ),
        raw_values=lambda carrier: carrier._raw_array().tolist(),
        dtypes=(DType.Float32,),
        supported=(DType.Float32,),
        initializes_empty=False,
    )
'''


def test_a_kind_that_breaks_the_contract_fails_it(tmp_path: Path) -> None:
    (tmp_path / "test_boastful.py").write_text(BROKEN)
    proc = _pytest(tmp_path, "-q", "-k", "storage or preserve or valid_unsupported")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = set(re.findall(r"^FAILED \S+::TestBoastful::(\w+)", proc.stdout, re.MULTILINE))
    assert {
        "test_query_support_independently_of_current_storage",
        "test_query_a_valid_unsupported_descriptor",
        "test_preserve_dtype_by_default",
    } <= failed, proc.stdout
