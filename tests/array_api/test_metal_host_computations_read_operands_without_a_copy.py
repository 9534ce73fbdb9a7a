"""A Metal operation that runs on the host reads its Metal operands through a view.

CONTRACT section 9, version 3: an operation MLX lacks runs on the host "over the
same memory (NumPy on a host view, no copy where the memory is shared)". The
operands are read-only views of the MLX buffers (no NumPy function writes into the
device's memory), the result is a fresh Metal Array sharing nothing with them, and
the operands stay writable Arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")


def test_a_host_computation_copies_no_metal_operand(monkeypatch: pytest.MonkeyPatch) -> None:
    from stridewave.array_api._mlx_backend import MLXBackend

    copied: list[Any] = []
    to_numpy = MLXBackend.to_numpy

    def spied(self: MLXBackend, array: Any) -> Any:
        copied.append(array)
        return to_numpy(self, array)

    values = np.linspace(-2.0, 2.0, 1001, dtype=np.float32)
    x = xp.asarray(values, device=METAL) * 1.0  # a fresh result
    y = xp.asarray(values[::-1].copy(), device=METAL) * 1.0
    monkeypatch.setattr(MLXBackend, "to_numpy", spied)
    got = xp.signbit(x)  # delegated to NumPy (MLX has no signbit)
    distance = xp.hypot(x, y)  # two operands
    assert not copied, f"{len(copied)} operand(s) copied to the host"
    monkeypatch.undo()
    np.testing.assert_array_equal(np.asarray(got), np.signbit(values))
    np.testing.assert_allclose(np.asarray(distance), np.hypot(values, values[::-1]), rtol=1e-6)


def test_the_operands_of_a_host_computation_stay_writable_and_share_nothing_with_it() -> None:
    values = np.arange(8, dtype=np.float32) - 3.5
    x = xp.asarray(values, device=METAL) * 1.0
    got = xp.copysign(x, -1.0)
    x[0] = 100.0  # the operand is still a writable Array
    np.testing.assert_array_equal(np.asarray(got), -np.abs(values))  # the result is its own
    assert float(x[0]) == 100.0
