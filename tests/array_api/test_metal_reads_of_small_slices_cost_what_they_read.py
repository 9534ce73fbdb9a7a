"""Reads of a part of a Metal Array cost what they read, not the whole buffer.

A scalar read (``float(y[0])``, ``bool``, ``int``) or a copying export of a slice
(``numpy.array(y[10:20])``, ``y[a:b].to_device(CPU)``) of a Metal result copies the
part alone. On MLX's CUDA GPU a host view of a buffer first moves all of it to
managed memory, so there the part is copied into a buffer of its own on the device
and the host maps that one alone: the tests simulate that device on MLX's CPU device
(``Metal.moves_to_map`` answering True) and check where the host memory of the read
lies. Where the host maps the buffer in place (MLX's CPU device, Apple's unified
memory) the part is read through the carrier's host view. Either way the read sees
every write before it (host writes through an exported view, ``__setitem__``,
in-place operators), steps no version, and the device reads recorded on the carrier
still hold host writes back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")


def _address_range(mlx_array: Any) -> tuple[int, int]:
    """Return the host address range ``[start, stop)`` of an evaluated MLX array."""
    view = np.asarray(memoryview(mlx_array))
    start = int(view.__array_interface__["data"][0])
    return start, start + int(view.nbytes)


class _Spy:
    """The MLX arrays the Metal backend copied to the host, and the host views taken."""

    def __init__(self) -> None:
        self.copied: list[Any] = []
        self.views_taken = 0


@pytest.fixture
def moving_device(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Spy]:
    """Simulate a device whose host view moves the whole buffer; spy on host copies."""
    from stridewave.array_api._mlx_backend import MLXBackend
    from stridewave.carriers import Metal

    spy = _Spy()
    to_numpy = MLXBackend.to_numpy
    take_view = Metal._take_view

    def spied_to_numpy(self: MLXBackend, array: Any) -> Any:
        spy.copied.append(array)
        return to_numpy(self, array)

    def spied_take_view(self: Metal) -> Any:
        spy.views_taken += 1
        return take_view(self)

    monkeypatch.setattr(MLXBackend, "to_numpy", spied_to_numpy)
    monkeypatch.setattr(Metal, "_take_view", spied_take_view)
    monkeypatch.setattr(Metal, "moves_to_map", lambda self: True, raising=False)
    yield spy


def _fresh_result(n: int = 1000, dtype: Any = xp.float32) -> Any:
    x = xp.arange(n, dtype=dtype, device=METAL)
    return x * 2 + 1  # a fresh, scheduled result: no host view taken yet


_READS: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray[Any, Any]], Any]]] = [
    ("float(y[3])", lambda y: float(y[3]), lambda v: float(v[3])),
    ("bool(y[5])", lambda y: bool(y[5]), lambda v: bool(v[5])),
    ("int(y[7])", lambda y: int(y[7]), lambda v: int(v[7])),
    ("numpy.array(y[10:20])", lambda y: np.array(y[10:20]), lambda v: v[10:20]),
    ("numpy.asarray(y[2:40:3], dtype)", lambda y: np.asarray(y[2:40:3], dtype=np.float64),
     lambda v: v[2:40:3].astype(np.float64)),
    ("y[::-7].to_device(CPU)", lambda y: np.asarray(y[::-7].to_device(CPU)), lambda v: v[::-7]),
    ("2-D y[1:3, 4:9]", lambda y: np.array(xp.reshape(y, (10, 100))[1:3, 4:9]),
     lambda v: v.reshape(10, 100)[1:3, 4:9]),
]  # fmt: skip


#: NumPy before 2.1 calls ``__array__`` without ``copy=``, so ``numpy.array(y[a:b])``
#: asks for the export (a view of the whole buffer) rather than a copy of the part.
_COPY_PASSED = np.lib.NumpyVersion(np.__version__) >= "2.1.0"
_needs_copy_passed = pytest.mark.skipif(
    not _COPY_PASSED, reason="NumPy < 2.1 does not pass copy= to __array__"
)


@pytest.mark.parametrize(
    "read",
    [
        pytest.param(
            r[1],
            id=r[0],
            marks=[_needs_copy_passed] if "numpy.array" in r[0] or "2-D" in r[0] else [],
        )
        for r in _READS
    ],
)
def test_a_read_of_a_part_maps_only_a_buffer_of_its_own_where_a_view_moves_the_buffer(
    moving_device: _Spy, read: Callable[[Any], Any]
) -> None:
    y = _fresh_result()
    expected_read = next(r[2] for r in _READS if r[1] is read)
    version = y._carrier.version
    got = read(y)
    storage = y._carrier.mlx_array
    start, stop = _address_range(storage)  # (the test's own look, after the read)
    assert moving_device.views_taken == 0, "the read took a host view of the whole buffer"
    assert moving_device.copied, "the read copied nothing to the host"
    for array in moving_device.copied:
        low, high = _address_range(array)
        assert high <= start or low >= stop, (
            f"the host mapped {array.nbytes} bytes inside the {storage.nbytes}-byte "
            f"buffer of the Array read: on a device that moves a buffer to map it, "
            f"that moves all of it"
        )
        assert array.nbytes <= 400 * 4
    np.testing.assert_array_equal(got, expected_read(np.arange(1000, dtype=np.float32) * 2 + 1))
    assert y._carrier.version == version  # a read is no write


def test_a_read_of_a_part_sees_every_write_before_it_where_a_view_moves_the_buffer(
    moving_device: _Spy,
) -> None:
    y = _fresh_result(64)
    y[4] = 9.0  # __setitem__: a device scatter
    assert float(y[4]) == 9.0
    y += 1  # an in-place operator
    assert float(y[4]) == 10.0
    assert float(y[5]) == 12.0
    view = np.asarray(y)  # the writable export: a host view of the buffer (one version step)
    view[6] = -3.0  # a host write through it
    assert float(y[6]) == -3.0
    np.testing.assert_array_equal(np.array(y[5:8]), [12.0, -3.0, 16.0])


@_needs_copy_passed
def test_a_read_of_a_part_reads_through_the_host_view_where_the_host_maps_in_place() -> None:
    y = _fresh_result()
    carrier = y._carrier
    if carrier.moves_to_map():
        pytest.skip("this Metal device's host view moves the buffer (MLX's CUDA GPU)")
    version = carrier.version
    assert carrier.read_view() is not None  # the host maps the buffer in place here
    part = np.array(y[10:20])
    assert part.base is None and part.nbytes == 10 * 4  # a copy of the part alone
    np.testing.assert_array_equal(part, np.arange(10, 20, dtype=np.float32) * 2 + 1)
    assert float(y[999]) == 1999.0
    assert carrier.version == version


def test_a_read_of_a_part_waits_for_no_device_read_and_keeps_it_holding_host_writes() -> None:
    y = _fresh_result(256)
    carrier = y._carrier  # (made now: the read below is recorded on it)
    z = y * 3  # records a device read on y's carrier: a host write into y waits for it
    assert carrier._pending
    assert float(y[2]) == 5.0  # read through a private view: the record is kept
    assert carrier._pending and not carrier._viewed
    view = np.asarray(y)  # the writable export waits for z first
    view[2] = 100.0
    assert float(z[2]) == 15.0  # z was computed from y before the host write
    assert float(y[2]) == 100.0
