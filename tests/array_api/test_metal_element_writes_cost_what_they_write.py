"""Array API writes into a Metal Array cost what they write, not a copy of the buffer.

MLX's slice update copies the whole buffer it updates (the carrier's own reference
keeps MLX from reusing it), so a loop of element writes (scikit-learn's fill of a
diagonal, ``a[i, i] = v``) would copy the whole array per element. Where the host
maps the buffer in place (MLX's CPU device, Apple's unified memory) a small write
goes through the carrier's host view instead: the buffer stays, one version step per
write, the device reads recorded before it still see the old values. On a device
whose host view moves the buffer (MLX's CUDA GPU, simulated here) the write stays
MLX's. A write of a whole array through a row-major N-d mapping (an in-place
operator on a 2-D result) is one run, with no index array built.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")


def _address(mlx_array: Any) -> int:
    """Return the host address of an evaluated MLX array's first element."""
    return int(np.asarray(memoryview(mlx_array)).__array_interface__["data"][0])


def _fresh_matrix(n: int = 64) -> Any:
    return xp.reshape(xp.arange(n * n, dtype=xp.float32, device=METAL), (n, n)) * 1.0


def test_element_writes_land_in_the_buffer_where_the_host_maps_it_in_place() -> None:
    a = _fresh_matrix()
    carrier = a._carrier
    if carrier.moves_to_map():
        pytest.skip("this Metal device's host view moves the buffer (MLX's CUDA GPU)")
    np.asarray(a[:1])  # (the writable export: the host view, taken once)
    buffer = carrier.mlx_array
    address = _address(buffer)
    version = carrier.version
    zero = xp.asarray(0.0, dtype=xp.float32, device=METAL)
    for i in range(64):
        a[i, i] = zero
    a[0, 1:4] = 5.0
    assert carrier.mlx_array is buffer and _address(carrier.mlx_array) == address, (
        "an element write replaced the storage: MLX copied the whole buffer"
    )
    assert carrier.version == version + 65  # one step per write
    expected = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    np.fill_diagonal(expected, 0.0)
    expected[0, 1:4] = 5.0
    np.testing.assert_array_equal(np.array(a), expected)


def test_an_element_write_leaves_the_operations_issued_before_it_unchanged() -> None:
    a = _fresh_matrix(16)
    b = a * 3  # a device read recorded on a's storage: the host write waits for it
    a[2, 2] = -1.0
    assert float(b[2, 2]) == 34.0 * 3
    assert float(a[2, 2]) == -1.0
    c = a + 0  # issued after the write: sees it
    assert float(c[2, 2]) == -1.0


def test_element_writes_of_a_large_buffer_stay_mlx_writes_where_a_host_view_moves_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stridewave.carriers import Metal, _metal

    monkeypatch.setattr(Metal, "moves_to_map", lambda self: True)
    monkeypatch.setattr(_metal, "_ELEMENT_WRITE_MOVE_MAX", 16 * 16 * 4 - 1)  # a byte short
    a = _fresh_matrix(16)
    a[3, 3] = 7.0
    assert not a._carrier._viewed  # no host view taken: it would move the whole buffer
    assert float(a[3, 3]) == 7.0 and float(a[3, 4]) == 52.0


def test_a_run_of_element_writes_of_a_large_buffer_takes_the_host_view_after_a_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stridewave.carriers import Metal, _metal

    monkeypatch.setattr(Metal, "moves_to_map", lambda self: True)
    monkeypatch.setattr(_metal, "_ELEMENT_WRITE_MOVE_MAX", 16 * 16 * 4 - 1)  # a byte short
    monkeypatch.setattr(_metal, "_DEVICE_ELEMENT_WRITES_MAX", 3)
    a = _fresh_matrix(16)
    b = a * 2  # a device read of the storage, issued before the writes
    version = a.carrier.version
    for i in range(3):
        a[i, i] = -1.0  # on the device: a run may be short
    assert not a._carrier._viewed
    for i in range(3, 16):
        a[i, i] = -1.0  # the fourth write moves the buffer once; the rest are host writes
    assert a._carrier._viewed
    assert a.carrier.version == version + 16
    expected = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    np.testing.assert_array_equal(np.asarray(b), expected * 2)
    np.fill_diagonal(expected, -1.0)
    np.testing.assert_array_equal(np.asarray(a), expected)


def test_element_writes_of_a_small_buffer_take_the_host_view_where_it_moves_the_buffer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stridewave.carriers import Metal, _metal

    monkeypatch.setattr(Metal, "moves_to_map", lambda self: True)
    monkeypatch.setattr(_metal, "_ELEMENT_WRITE_MOVE_MAX", 16 * 16 * 4)
    a = _fresh_matrix(16)
    b = a * 2  # a device read of the storage, issued before the writes
    version = a.carrier.version
    for i in range(16):
        a[i, i] = -1.0  # moved once, then written as NumPy writes
    assert a._carrier._viewed
    assert a.carrier.version == version + 16
    expected = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    np.testing.assert_array_equal(np.asarray(b), expected * 2)
    np.fill_diagonal(expected, -1.0)
    np.testing.assert_array_equal(np.asarray(a), expected)


def test_a_whole_array_write_through_a_row_major_mapping_builds_no_index_array(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stridewave.carriers import Metal

    def no_index(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a row-major block was written through an index array")

    monkeypatch.setattr(Metal, "_write_indexed", no_index)
    a = _fresh_matrix(32)
    a *= -2.0  # an in-place operator: the whole 2-D array written back
    a += 1.0
    expected = np.arange(32 * 32, dtype=np.float32).reshape(32, 32) * -2.0 + 1.0
    np.testing.assert_array_equal(np.array(a), expected)
