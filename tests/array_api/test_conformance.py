"""A short run of the array API conformance suite (the full run: ``nox -s array_api``).

The vendored suite lives in ``../shared/peer-suites/`` beside the repository root
(as on CI, which clones main with ``shared/`` next to it); without it these tests
skip. The run uses few Hypothesis examples and a subset of the suite's files so
that it stays within about a minute on two cores; every failure it may meet is in
the device's xfails file (``tests/array_api/xfails-<device>.txt``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: ``$REPO/../shared/peer-suites`` (CI's layout); ``STRIDEWAVE_PEER_SUITES`` overrides it
#: for checkouts elsewhere (a git worktree).
PEER = Path(os.environ.get("STRIDEWAVE_PEER_SUITES", ROOT.parent / "shared" / "peer-suites"))
RUNNER = PEER / "run-array-api-tests"
HERE = Path(__file__).resolve().parent

#: Suite files of the short run (the quick ones, covering every function group once).
SHORT_FILES = (
    "array_api_tests/test_has_names.py",
    "array_api_tests/test_signatures.py",
    "array_api_tests/test_creation_functions.py",
    "array_api_tests/test_data_type_functions.py",
    "array_api_tests/test_indexing_functions.py",
    "array_api_tests/test_inspection_functions.py",
    "array_api_tests/test_manipulation_functions.py",
    "array_api_tests/test_searching_functions.py",
    "array_api_tests/test_set_functions.py",
    "array_api_tests/test_sorting_functions.py",
    "array_api_tests/test_statistical_functions.py",
    "array_api_tests/test_utility_functions.py",
    "array_api_tests/test_linalg.py",
    "array_api_tests/test_array_object.py",
    "array_api_tests/test_constants.py",
)


def _missing() -> str | None:
    if not RUNNER.is_file():
        return f"the vendored array-api-tests suite is not at {PEER}"
    for module in ("hypothesis", "ndindex"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install -e '.[test]')"
    return None


def run_suite(device: str, *extra: str, max_examples: int = 2) -> subprocess.CompletedProcess[str]:
    """Run the vendored suite against stridewave.array_api on ``device`` (cpu or metal)."""
    env = dict(os.environ)
    env["PYTHON"] = sys.executable
    env["STRIDEWAVE_ARRAY_API_DEVICE"] = device
    if device == "metal":
        env.setdefault("STRIDEWAVE_METAL_DEVICE", "cpu")
    command = [
        "bash",
        str(RUNNER),
        "--max-examples",
        str(max_examples),
        "--xfails-file",
        str(HERE / f"xfails-{device}.txt"),
        "--disable-deadline",
        "--derandomize",
        "-q",
        "-p",
        "no:warnings",
        *extra,
    ]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param(
            "metal",
            marks=[
                pytest.mark.needs_mlx,
                pytest.mark.skipif(
                    importlib.util.find_spec("mlx") is None, reason="mlx is not importable"
                ),
            ],
        ),
    ],
)
def test_short_conformance_run(device: str) -> None:
    why = _missing()
    if why:
        pytest.skip(why)
    result = run_suite(device, *SHORT_FILES)
    tail = "\n".join((result.stdout + result.stderr).splitlines()[-40:])
    assert result.returncode == 0, f"conformance failures on {device}:\n{tail}"
    assert " passed" in result.stdout, tail


def test_xfails_files_give_a_reason_for_every_entry() -> None:
    for name in ("xfails-cpu.txt", "xfails-metal.txt"):
        lines = (HERE / name).read_text().splitlines()
        reason = False
        for line in lines:
            stripped = line.strip()
            if not stripped:
                reason = False
                continue
            if stripped.startswith("#"):
                reason = True
                continue
            assert reason, f"{name}: {stripped!r} has no '#' reason line above it"
            assert stripped.startswith("array_api_tests/"), stripped
