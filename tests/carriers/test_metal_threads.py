"""Metal carriers under device work from several threads (docs/threads-and-processes.md).

The rules held here (CONTRACT section 7, spec carrier-storage "A successful Metal call
SHALL complete all writes before returning"): no acknowledged write is lost, the
version steps once per write, a concurrent reader sees a scatter wholly or not at all,
and storage made, scheduled or written on one thread is read and written from any
other. The trials live in ``metal_thread_trials.py`` and run in a subprocess with a
private ``TMPDIR``: before the fix, a reader on one thread scheduling the MLX graph a
scatter on another thread had left in the storage crashed the interpreter
(segmentation fault) or raised ``RuntimeError: std::bad_cast``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import needs_mlx

pytestmark = needs_mlx

TRIALS_SCRIPT = Path(__file__).with_name("metal_thread_trials.py")
#: trials per scenario and run (each trial: one or two writers x 12 scatters, a reader)
TRIALS = 40


def run_trials(name: str, trials: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run ``trials`` trials of scenario ``name`` in a subprocess with its own TMPDIR."""
    environ = dict(os.environ, TMPDIR=str(tmp_path))
    return subprocess.run(
        [sys.executable, str(TRIALS_SCRIPT), name, str(trials)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=environ,
    )


@pytest.mark.parametrize(
    "name",
    [
        # a writer scatters stepped runs; another thread exports MLX snapshots
        "mlx_reader",
        # two writers scatter disjoint runs into one carrier; an MLX reader
        "two_writers",
        # a writer scatters into the storage the array API computes with on another thread
        "array_api_reader",
        # storage made (or scheduled by the array API) on a thread that then ends,
        # written and read on others
        "cross_thread",
        # scatters and reads through an Evictable over Metal while it moves
        "evictable",
    ],
)
def test_metal_device_work_from_several_threads_keeps_every_write(
    name: str, tmp_path: Path
) -> None:
    done = run_trials(name, TRIALS, tmp_path)
    assert done.returncode == 0, (
        f"scenario {name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    assert done.stdout.strip().endswith(f"OK {name} {TRIALS}"), done.stdout
