"""Shared test configuration: hypothesis profiles and markers."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# No test may fail on timing: no deadline and no speed health check in any profile (a
# shared or loaded machine is slow at random). ``CI`` set: derandomized, so a CI
# failure reproduces. ``HYPOTHESIS_PROFILE=nightly`` digs deeper.
settings.register_profile(
    "dev",
    max_examples=100,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("ci", settings.get_profile("dev"), derandomize=True)
settings.register_profile("nightly", settings.get_profile("dev"), max_examples=2000)
# JAX (an optional interop consumer) would take 75 % of a GPU's memory when first used,
# which the Metal carriers on the same GPU (MLX's CUDA backend) then miss.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def _metal_device_for_tests() -> None:
    """Run Metal on MLX's CPU device where MLX has no GPU (and the caller chose none).

    With ``STRIDEWAVE_METAL_DEVICE`` unset and a GPU runtime present (Apple Metal, MLX
    CUDA), the variable stays unset, so the suite exercises the GPU. Subprocesses
    started by tests inherit the choice.
    """
    if "STRIDEWAVE_METAL_DEVICE" in os.environ:
        return
    from stridewave.carriers._mlx_runtime import runtime

    available, _why = runtime()
    if not available:
        os.environ["STRIDEWAVE_METAL_DEVICE"] = "cpu"


_metal_device_for_tests()


#: At most this many workers for ``-n auto`` (pyproject's default): each imports NumPy
#: and MLX and starts interpreters of its own, so more would cost memory, not time.
MAX_WORKERS = 8


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config) -> int:  # type: ignore[no-untyped-def]
    """Give ``-n auto`` one worker per usable core, at most ``MAX_WORKERS``."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_WORKERS, cores or 1))


def pytest_addoption(parser) -> None:  # type: ignore[no-untyped-def]
    parser.addoption("--runslow", action="store_true", help="run the slow soak tests too")


#: Test files that start interpreters or run external suites: they run after the rest,
#: so that the progress line moves from the start of a run instead of sitting on them.
#: Paths relative to ``tests/``; order kept within each group.
RUN_LAST = (
    "carriers/hardening/test_processes.py",
    "carriers/hardening/test_resources.py",
    "carriers/hardening/test_faults.py",
    "carriers/test_metal_host_writes_under_threads.py",
    "carriers/test_speedups.py",
    "array_api/test_metal_results_and_reads.py",
    "array_api/test_conformance.py",
    "test_notebooks.py",
    "test_testing_suite.py",
    "test_cli.py",
)


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    import pytest

    here = os.path.dirname(os.path.abspath(__file__))

    def last(item) -> bool:  # type: ignore[no-untyped-def]
        path = os.path.relpath(str(item.path), here).replace(os.sep, "/")
        return path in RUN_LAST

    items[:] = [item for item in items if not last(item)] + [i for i in items if last(i)]
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow soak test: run with --runslow (nox -s soak)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
