"""A write through a wrapper never changes a lazy result already computed.

``y = f(x); x.carrier[0] = v`` leaves ``y`` as it was, whichever operand of the call
the write goes to (docs/threads-and-processes.md), also when the carrier written is an
Evictable over a Metal primary whose host view the wrapper's scalar path had cached:
the primary drops that view when the array API records the device read, and the
wrapper follows it instead of writing into the buffer the pending operation reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..metal_scripts import last_line, requires_mlx  # noqa: TID252

pytestmark = requires_mlx

_SCRIPT = """
import sys
import numpy as np
import stridewave.array_api as xp
from stridewave import CPU, Evictable, FileBacked, DType, Layout, Metal, Tensor

n = 4_000_000  # large enough that the device is still computing when the write comes
spelling = sys.argv[1]
wrong = []
for trial in range(3):
    primary = Metal(n)
    primary[0] = 1.0                          # takes the host view: the fast path caches it
    ev = Evictable(primary, CPU(0) if trial % 2 == 0 else FileBacked(dtype=DType.Float32))
    assert ev[0] == 1.0
    x = xp.asarray(Tensor(ev, Layout((n,))))
    y = xp.sin(xp.exp(xp.cos(x) * 1.5 + 2)) + x
    if spelling == "setitem":
        ev[0] = 1000.0
    else:
        ev.set_value(0, 1000.0)
    first = float(np.asarray(y)[0])
    if abs(first - 0.2108) > 1e-3:
        wrong.append(first)
    assert ev[0] == 1000.0
print("wrong" if wrong else "ok", wrong)
"""


@pytest.mark.parametrize("spelling", ["setitem", "set_value"])
@pytest.mark.parametrize("speedups", [True, False], ids=["C", "pure Python"])
def test_a_write_through_an_evictable_leaves_a_computed_result_alone(
    tmp_path: Path, spelling: str, speedups: bool
) -> None:
    line = last_line(_SCRIPT, spelling, tmp_path=tmp_path, speedups=speedups)
    assert line.startswith("ok"), line
