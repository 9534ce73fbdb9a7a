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


def test_a_boolean_mask_copies_no_operand_to_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    from stridewave.array_api._mlx_backend import MLXBackend

    copied: list[tuple[int, ...]] = []
    to_numpy = MLXBackend.to_numpy

    def spied(self: MLXBackend, array: Any) -> Any:
        copied.append(tuple(array.shape))
        return to_numpy(self, array)

    values = np.arange(400, dtype=np.float32).reshape(100, 4) - 150.0
    x = xp.asarray(values, device=METAL) * 1.0
    mask = x[:, 0] > 0
    monkeypatch.setattr(MLXBackend, "to_numpy", spied)
    got = x[mask]  # a data-dependent shape: the rows found on the host, gathered on the device
    monkeypatch.undo()
    assert (100, 4) not in copied, "the masked operand was copied to the host"
    assert got.device == METAL
    np.testing.assert_array_equal(np.asarray(got), values[values[:, 0] > 0])
    x[:] = 0.0  # the result shares nothing with its operand
    np.testing.assert_array_equal(np.asarray(got), values[values[:, 0] > 0])


@pytest.mark.parametrize("operation", ["flip", "add", "conj"])
def test_a_host_held_result_shares_nothing_with_its_operand(operation: str) -> None:
    # complex128 is held in host memory for the Metal place: a host result that owns
    # its buffer is kept as it is, a view of the operand (np.flip's) is copied
    values = np.arange(6, dtype=np.complex128) * (1 + 2j)
    z = xp.asarray(values, device=METAL)
    ours: dict[str, Any] = {"flip": xp.flip, "add": lambda a: a + a, "conj": xp.conj}
    numpy: dict[str, Any] = {"flip": np.flip, "add": lambda a: a + a, "conj": np.conj}
    got = ours[operation](z)
    expected = numpy[operation](values)
    assert got.device == METAL
    assert got.dtype == xp.complex128
    z[:] = 0  # a write of the operand leaves the result alone
    np.testing.assert_array_equal(np.asarray(got), expected)
    got[0] = 9  # and a write of the result leaves the operand alone
    np.testing.assert_array_equal(np.asarray(z), np.zeros(6, np.complex128))
    assert complex(got[0]) == 9


def test_writes_of_host_held_values_share_nothing_with_their_source() -> None:
    values = np.arange(6, dtype=np.complex128) * (1 - 1j)
    z = xp.asarray(values, device=METAL)
    w = z * 2  # a fresh host-held result
    target = xp.zeros(6, dtype=xp.complex128, device=METAL)
    target[:] = w  # written from w's own buffer
    w[0] = 100  # the source stays its own
    np.testing.assert_array_equal(np.asarray(target), values * 2)
    z[:] = xp.flip(z)  # a source over the target's storage: read before written
    np.testing.assert_array_equal(np.asarray(z), values[::-1])
    z[1:] = z[:-1]  # an overlapping view of the target itself
    np.testing.assert_array_equal(np.asarray(z), np.r_[values[5], values[::-1][:-1]])


@pytest.mark.parametrize(
    ("shape", "mask_of"),
    [
        ((7,), lambda v: v > 0),
        ((6, 3), lambda v: v[:, 0] > 0),  # rows
        ((6, 3), lambda v: v > 0),  # every element
        ((4, 3, 2), lambda v: v[:, :, 0] > 0),  # two leading axes
        ((5, 2), lambda v: v[:, 0] > 1e9),  # nothing selected
        ((0, 3), lambda v: v[:, 0] > 0),  # an empty operand
    ],
)
def test_boolean_mask_indexing_matches_numpy(shape: tuple[int, ...], mask_of: Any) -> None:
    size = int(np.prod(shape))
    values = (np.arange(size, dtype=np.float32) * 7 % 11 - 5).reshape(shape)
    x = xp.asarray(values, device=METAL)
    got = x[mask_of(x)]
    expected = values[mask_of(values)]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_a_boolean_mask_of_the_wrong_shape_raises_index_error() -> None:
    x = xp.asarray(np.zeros((4, 3), np.float32), device=METAL)
    mask = xp.asarray(np.ones(3, bool), device=METAL)
    with pytest.raises(IndexError):
        x[mask]
