"""Shared helpers of the Metal tests: the MLX skip mark, host copies, scripts in subprocesses.

Thread and crash scenarios run in a fresh interpreter with a private ``TMPDIR``: a
segmentation fault or a hang then fails one test instead of the session. The scripts
that fork (the Metal ones and the carriers' fork scenarios) define their forked-child
helper with :func:`in_child_source`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp

HAVE_MLX = importlib.util.find_spec("mlx") is not None

#: Skip a test (or a module, as ``pytestmark``) where MLX is not importable.
requires_mlx = pytest.mark.skipif(
    not HAVE_MLX, reason='mlx is not importable: install "stridewave[mlx]"'
)


def host(a: xp.Array) -> np.ndarray[Any, Any]:
    """Return the values of ``a`` as a NumPy array (a copy through the CPU device)."""
    return np.asarray(a.to_device(xp.Device("CPU")))


def run_script(
    script: str,
    *args: str,
    tmp_path: Path,
    metal_device: str | None = "cpu",
    speedups: bool = True,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``args`` in a fresh interpreter whose ``TMPDIR`` is ``tmp_path``.

    ``metal_device``: the ``STRIDEWAVE_METAL_DEVICE`` it sees (None: this process's,
    MLX's CPU device when unset). ``speedups=False`` sets ``STRIDEWAVE_NO_SPEEDUPS``
    (the pure-Python scalar paths). A run longer than ``timeout`` seconds raises
    ``subprocess.TimeoutExpired``.
    """
    device = (
        os.environ.get("STRIDEWAVE_METAL_DEVICE", "cpu") if metal_device is None else metal_device
    )
    env = dict(os.environ, TMPDIR=str(tmp_path), STRIDEWAVE_METAL_DEVICE=device)
    if not speedups:
        env["STRIDEWAVE_NO_SPEEDUPS"] = "1"
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def last_line(script: str, *args: str, tmp_path: Path, speedups: bool = True) -> str:
    """:func:`run_script` on MLX's CPU device; assert it exits 0; return its last line."""
    done = run_script(script, *args, tmp_path=tmp_path, speedups=speedups)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def in_child_source(timeout: int) -> str:
    """Return the source of ``in_child(body, timeout=timeout)``, for a script that forks.

    ``in_child`` runs ``body()`` in a forked child and returns the child's exit status
    (0: ``body`` returned). ``signal.alarm(timeout)`` makes a child that hangs die of
    ``SIGALRM`` (status 14) instead of hanging the test; the child prints the traceback
    of what it raised, flushes its output and leaves with ``os._exit``.
    """
    return f"""
import os, signal, sys

def in_child(body, timeout={timeout}):
    # Run body() in a forked child; return its exit status (0: body returned).
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(timeout)  # a child that hangs dies (status 14), not the test
            body()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status
"""
