"""A sample of the consumers' own array-API test suites passes on us as on the reference.

scikit-learn's, SciPy's and array-api-extra's own tests, run by the vendored harness
``consumers/run-peer.sh`` (``../shared/peer-suites`` beside the repository root, or
``$STRIDEWAVE_PEER_SUITES``), on ``array_api_strict`` and on the CPU device: every
chosen test that passes on strict passes on ``stridewave.array_api``. The sample is a
few test classes of each suite, in one process (``PEER_N=0``), about 30-60 s in all;
``nox -s peer`` runs the suites whole, on Metal too. A suite skips where the harness is
absent or the suite's package (or ``array_api_strict``) does not import; the README's
``pip install -e ".[test]"`` installs them all.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: ``$REPO/../shared/peer-suites`` (CI's layout); ``STRIDEWAVE_PEER_SUITES`` overrides it.
PEER = Path(os.environ.get("STRIDEWAVE_PEER_SUITES", ROOT.parent / "shared" / "peer-suites"))
HARNESS = PEER / "consumers"


@dataclass(frozen=True)
class Sample:
    """The chosen tests of one suite: the package it needs and how to select them."""

    package: str
    env: dict[str, str]
    select: str


#: One small selection per suite (a ``-k`` expression over the harness's test modules).
SAMPLES = {
    "sklearn": Sample(
        "sklearn",
        {
            "PEER_SKLEARN_MODULES": "sklearn.utils.tests.test_array_api "
            "sklearn.decomposition.tests.test_pca"
        },
        "test_average or test_pca_array_api_compliance",
    ),
    "scipy": Sample(
        "scipy",
        {
            "PEER_SCIPY_MODULES": "scipy.special.tests.test_logsumexp",
            "PEER_SCIPY_SAMPLE": "",
        },
        "TestLogSumExp",
    ),
    "xpx": Sample("array_api_extra", {}, "TestAtLeastND or TestCov or TestNUnique"),
}


def _compare() -> Any:
    """The harness's ``compare.py``, imported from its folder."""
    spec = importlib.util.spec_from_file_location("peer_compare", HARNESS / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(suite: str, namespace: str, out: Path) -> str:
    """Run the suite's sample on one namespace (device ``cpu``); its output."""
    sample = SAMPLES[suite]
    path = os.environ.get("PYTHONPATH")
    env = {
        **os.environ,
        **sample.env,
        "PYTHON": sys.executable,
        "PEER_N": "0",
        "PEER_OUT": str(out),
        "STRIDEWAVE_METAL_DEVICE": os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu"),
        # this checkout's package, whatever the environment has installed
        "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else ""),
    }
    command = ["bash", str(HARNESS / "run-peer.sh"), suite, namespace, "cpu", "-k", sample.select]
    done = subprocess.run(
        command, check=False, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("suite", sorted(SAMPLES))
def test_every_sampled_test_that_passes_on_strict_passes_on_the_cpu_device(
    suite: str, tmp_path: Path
) -> None:
    if not (HARNESS / "run-peer.sh").is_file():
        pytest.skip(f"no peer harness at {HARNESS} (set STRIDEWAVE_PEER_SUITES)")
    for package in (SAMPLES[suite].package, "array_api_strict"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed: pip install -e '.[test]'")
    strict = _run(suite, "array_api_strict", tmp_path)
    ours = _run(suite, "stridewave", tmp_path)
    report = _compare().analyse(str(tmp_path), suites=(suite,))
    counts = report["suites"][suite]["counts"]
    assert counts["array_api_strict-cpu"]["passed"] > 0, f"the sample selects nothing:\n{strict}"
    found = report["suites"][suite]["devices"]["cpu"]
    assert found["common"] == counts["array_api_strict-cpu"]["collected"], found["strict_only"]
    lost = {label: group["tests"] for label, group in found["groups"].items()}
    assert found["pass_strict_fail_stridewave"] == 0, (lost, ours)
