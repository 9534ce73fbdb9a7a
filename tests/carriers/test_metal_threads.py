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
from typing import Any

import pytest

from stridewave import CPU, DType, Layout, Metal, Tensor

from .conftest import needs_mlx

pytestmark = needs_mlx
I32 = DType.Int32

TRIALS_SCRIPT = Path(__file__).with_name("metal_thread_trials.py")
#: trials per scenario and run (each trial: one or two writers x 12 scatters, a reader)
TRIALS = 40


def _mlx_on_cuda() -> bool:
    """Whether this MLX is its CUDA build on a machine with a CUDA device."""
    import mlx.core as mx

    cuda = getattr(mx, "cuda", None)
    return cuda is not None and bool(cuda.is_available())


#: MLX's CUDA build can abort at interpreter exit after threads that scheduled work
#: have ended ("corrupted size vs. prev_size", glibc's abort): their thread-local
#: command encoders are torn down as the CUDA runtime unloads, more often under load.
#: Seen in 5 of 56 runs of ``cross_thread`` under 14 parallel runs on an H200, with the
#: C speedups and without them; upstream: https://github.com/ml-explore/mlx/issues/4506
EXIT_ABORT_UPSTREAM = "https://github.com/ml-explore/mlx/issues/4506"


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
        # a lazy pipeline, each step built on another thread (some ended), read on
        # another: one thread's values; two writers leave untouched slots alone
        "same_values_any_thread",
    ],
)
def test_metal_device_work_from_several_threads_keeps_every_write(
    name: str, tmp_path: Path
) -> None:
    done = run_trials(name, TRIALS, tmp_path)
    if (
        done.returncode == -6
        and done.stdout.strip().endswith(f"OK {name} {TRIALS}")
        and _mlx_on_cuda()
    ):
        # Every trial's assertions held; the abort came after, at exit, inside MLX.
        pytest.xfail(f"MLX's CUDA build aborted at interpreter exit ({EXIT_ABORT_UPSTREAM})")
    assert done.returncode == 0, (
        f"scenario {name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    assert done.stdout.strip().endswith(f"OK {name} {TRIALS}"), done.stdout


# -- the rule behind the trials, pinned without threads ------------------------------


def _stepped_scatter(carrier: Any, value: int) -> None:
    source = CPU(0, dtype=I32).new_like([value] * 4)
    carrier.scatter(
        Tensor(source, Layout((4,))), Tensor(carrier, Layout((carrier.size(),))), Layout((4,), (2,))
    )


@pytest.mark.parametrize("viewed", [False, True], ids=["no-view", "host-view"])
def test_an_mlx_write_never_rebinds_the_stored_array_a_reader_holds(viewed: bool) -> None:
    # A reader on another thread holds the stored MLX array (the array API's graphs,
    # mlx.core.array(carrier)); the write publishes a new, evaluated array instead of
    # turning the held one into an unevaluated graph (which the reader would schedule
    # a second time: a segmentation fault on MLX 0.32.4).
    import mlx.core as mx

    carrier = Metal(0, dtype=I32).new_like(list(range(10, 18)))
    if viewed:
        assert carrier.get_value(0) == 10
    held = carrier._mx_array
    _stepped_scatter(carrier, -5)
    assert held.tolist() == list(range(10, 18))  # the reader's array is unchanged
    stored = carrier._mx_array
    assert stored is not held
    assert stored.tolist() == [-5, 11, -5, 13, -5, 15, -5, 17] == list(carrier)
    assert carrier.version == 1
    assert mx.array(carrier).tolist() == list(carrier)


def test_the_no_view_scalar_fallback_publishes_an_evaluated_array() -> None:
    # The per-element MLX fallback (devices without a host view) follows the same rule.
    carrier = Metal(0, dtype=I32).new_like([1, 2, 3])
    carrier._host = False  # as on a device that gives no host view
    held = carrier._mx_array
    carrier.set_value(1, 20)
    assert held.tolist() == [1, 2, 3]
    assert carrier._mx_array.tolist() == [1, 20, 3] == [carrier.get_value(i) for i in range(3)]
    assert carrier.version == 1


def test_a_scatter_whose_evaluation_fails_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Spec: "A failed call SHALL preserve values and version". The evaluation of the
    # updated storage fails (as out of memory would): the stored array is the old,
    # evaluated one, not a graph that a later read would still run.
    import mlx.core as mx

    carrier = Metal(0, dtype=I32).new_like(list(range(8)))
    assert carrier.get_value(0) == 0
    real_eval = mx.eval
    calls: list[int] = []

    def failing_second_eval(*arrays: Any) -> None:
        calls.append(len(arrays))
        if len(calls) == 2:  # the first evaluates the source, the second the storage
            raise RuntimeError("[metal::malloc] Resource limit exceeded (simulated)")
        real_eval(*arrays)

    monkeypatch.setattr(mx, "eval", failing_second_eval)
    with pytest.raises(RuntimeError, match="simulated"):
        _stepped_scatter(carrier, 9)
    monkeypatch.setattr(mx, "eval", real_eval)
    assert len(calls) == 2
    assert list(carrier) == list(range(8)) == carrier._mx_array.tolist()
    assert carrier.version == 0
