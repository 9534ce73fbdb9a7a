"""Integer indices outside their axis raise ``IndexError`` on Metal, as on the CPU device.

MLX gathers without a bounds check: index 1000 of a 3-element array read another
allocation, and index 10**9 killed the interpreter. ``x[idx]``, ``take`` and
``take_along_axis`` check their indices first (CONTRACT section 7: never a crash
inside a backend). The crashing index runs in a subprocess with a private ``TMPDIR``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host, requires_mlx, run_script

pytestmark = requires_mlx

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")

_GATHERS: dict[str, Callable[[Any, Any], Any]] = {
    "x[idx]": lambda x, i: x[i],
    "take": lambda x, i: xp.take(x, i),
    "take(axis=0)": lambda x, i: xp.take(x, i, axis=0),
    "take_along_axis": lambda x, i: xp.take_along_axis(x, i, axis=0),
}

_BAD = [
    ("int32", [1000]),
    ("int32", [0, 3]),
    ("int32", [-4]),
    ("int64", [2**40]),
    ("int8", [1, 100]),
    ("uint32", [2**32 - 1]),
    ("uint8", [3]),
]


@pytest.mark.parametrize("gather", list(_GATHERS.values()), ids=list(_GATHERS))
@pytest.mark.parametrize(("dtype", "indices"), _BAD, ids=[f"{d}-{i}" for d, i in _BAD])
def test_an_index_past_the_axis_raises_index_error_on_both_devices(
    gather: Callable[[Any, Any], Any], dtype: str, indices: list[int]
) -> None:
    for device in (CPU, METAL):
        x = xp.asarray([1, 2, 3], dtype=xp.int32, device=device)
        idx = xp.asarray(indices, dtype=getattr(xp, dtype), device=device)
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
            gather(x, idx)


@pytest.mark.parametrize("gather", list(_GATHERS.values()), ids=list(_GATHERS))
def test_indices_inside_the_axis_still_gather_on_metal(gather: Callable[[Any, Any], Any]) -> None:
    for dtype in (xp.int8, xp.int32, xp.int64, xp.uint8, xp.uint64):
        values = [0, 2, 1] if dtype in (xp.uint8, xp.uint64) else [0, -1, 2, -3]
        expected = np.array([1, 2, 3], dtype=np.int32)[values]
        x = xp.asarray([1, 2, 3], dtype=xp.int32, device=METAL)
        got = gather(x, xp.asarray(values, dtype=dtype, device=METAL))
        np.testing.assert_array_equal(host(got), expected)


def test_take_along_another_axis_checks_that_axis() -> None:
    x = xp.reshape(xp.arange(6, dtype=xp.int32, device=METAL), (2, 3))
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        xp.take(x, xp.asarray([3], device=METAL), axis=1)
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        xp.take_along_axis(x, xp.asarray([[0], [5]], device=METAL), axis=-1)
    got = xp.take_along_axis(x, xp.asarray([[2], [0]], device=METAL), axis=-1)
    np.testing.assert_array_equal(host(got), [[2], [3]])


def test_an_index_far_past_the_buffer_raises_instead_of_crashing(tmp_path: Path) -> None:
    # Index 10**9 of a 3-element array made MLX read unmapped memory (SIGSEGV).
    script = """
import stridewave.array_api as xp
m = xp.Device("Metal")
x = xp.asarray([1, 2, 3], device=m)
idx = xp.asarray([10**9], device=m)
for call in (lambda: x[idx], lambda: xp.take(x, idx),
             lambda: xp.take_along_axis(x, idx, axis=0)):
    try:
        call()
    except IndexError:
        print("IndexError")
"""
    done = run_script(script, tmp_path=tmp_path, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["IndexError"] * 3
