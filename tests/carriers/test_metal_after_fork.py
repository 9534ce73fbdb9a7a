"""MLX in a forked child (CONTRACT section 7, "Fork").

MLX's worker threads do not survive ``fork``: in a child forked after MLX started in
its parent, any Metal work used to hang for ever. It now raises ``RuntimeError``
naming the ``spawn`` start method, and host reads and writes of the child's carriers
keep working. Every scenario runs in a subprocess whose children die of ``SIGALRM``
instead of hanging, and the subprocess itself has a timeout.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..metal_scripts import in_child_source, requires_mlx, run_script  # noqa: TID252

pytestmark = [requires_mlx, pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")]

_SCRIPT = (
    in_child_source(timeout=20)
    + """
import sys
import numpy as np
import stridewave.array_api as xp
from stridewave import CPU, DType, FileBacked, Layout, Metal, Tensor

METAL = xp.Device("Metal")

def refused(action):
    try:
        action()
    except RuntimeError as exc:
        assert "spawn" in str(exc) and "fork" in str(exc), exc
        return True
    return False

if sys.argv[1] == "before":
    def child():
        m = Metal(4); m[1] = 2.5                       # MLX never ran in the parent
        assert m[1] == 2.5 and float(xp.sum(xp.asarray(m))) == 2.5
    assert in_child(child) == 0
    print("ok")
    sys.exit(0)

import mlx.core as mx
from stridewave.carriers._mlx_runtime import gpu_backend
ON_GPU = gpu_backend(mx) is not None  # (MLX's CUDA build: managed memory on any device)
viewed = Metal(4); viewed[0] = 1.0                     # MLX has started; a host view
unviewed = Metal(4)
x = xp.asarray(np.arange(4, dtype=np.float32), device=METAL)
assert float(xp.sum(x * 2)) == 12.0

def child():
    checks = {
        "Metal()": lambda: Metal(4),
        "new_like": lambda: viewed.new_like([1.0, 2.0]),
        "asarray on Metal": lambda: xp.asarray([1.0, 2.0], device=METAL),
        "an operation": lambda: x * 2,
        "a reduction": lambda: float(xp.sum(x)),
        "scatter": lambda: viewed.scatter(
            Tensor(CPU(2), Layout((2,))), Tensor(viewed, Layout((0,))), Layout((2,)), 0
        ),
        "a write into an array": lambda: x.__setitem__(slice(0, 2), 7.0),
        "first host read": lambda: unviewed[0],
        "mlx export": lambda: viewed.__mlx_array__(),
    }
    for name, action in checks.items():
        assert refused(action), name + " was not refused"
    if ON_GPU:  # the inherited view is memory the child cannot touch: refused
        assert refused(lambda: viewed.__setitem__(1, 5.0)), "a GPU host write"
        assert refused(lambda: viewed[0]), "a GPU host read"
    else:  # MLX's CPU build: the inherited host view is the child's own copy
        viewed[1] = 5.0
        assert viewed[0] == 1.0 and viewed[1] == 5.0
    c = CPU(3); c[2] = 4.0
    f = FileBacked(dtype=DType.Float32).new_like([1.0, 2.0]); f[0] = 3.0
    assert (c[2], f[0]) == (4.0, 3.0)
    y = xp.asarray(np.ones(3, np.float32))             # the CPU device computes
    assert float(xp.sum(y * 2)) == 6.0

status = in_child(child)
assert status == 0, f"child status {status} (14: it hung until SIGALRM)"
assert viewed[1] == 0.0 and float(xp.sum(x * 3)) == 18.0   # the parent goes on
print("ok")
"""
)


@pytest.mark.parametrize("when", ["after", "before"])
def test_metal_work_in_a_child_forked_after_mlx_started_raises_instead_of_hanging(
    tmp_path: Path, when: str
) -> None:
    done = run_script(_SCRIPT, when, tmp_path=tmp_path, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert done.stdout.split() == ["ok"]
