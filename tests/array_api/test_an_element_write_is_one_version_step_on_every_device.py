"""``x[i, j] = v`` writes one slot, as NumPy's assignment casts it, in one version step.

The carrier spec's version rule (one step per successful write) and CONTRACT section 9,
version 3 (writes on every listed device; the reference's leniency: a float into an
integer array truncates). An element of host storage is written by the carrier's own
element write; every other write is one scatter: both keep these rules.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp


@pytest.mark.parametrize(
    ("dtype", "value", "stored"),
    [
        ("int32", 2.7, 2),
        ("int64", -(2**40), -(2**40)),
        ("uint8", np.uint8(200), 200),
        ("float32", 0.1, float(np.float32(0.1))),
        ("float64", -0.0, -0.0),
        ("complex128", 1 - 2j, 1 - 2j),
        ("bool", True, True),
    ],
)
def test_an_element_write_stores_the_cast_value_in_one_version_step(
    device: xp.Device, dtype: str, value: object, stored: object
) -> None:
    x = xp.zeros((3, 4), dtype=getattr(xp, dtype), device=device)
    carrier = x.carrier
    before = carrier.version
    x[1, 2] = value
    assert carrier.version == before + 1
    host = np.asarray(x.to_device(xp.Device("CPU")))
    assert host[1, 2] == stored
    assert np.signbit(host[1, 2].real) == np.signbit(np.asarray(stored).real)
    host[1, 2] = 0
    assert not host.any()  # (no other slot was touched)


def test_an_element_write_through_a_strided_view_lands_in_its_slot(device: xp.Device) -> None:
    x = xp.zeros((3, 4), dtype=xp.float32, device=device)
    view = x[::2, ::-1]
    view[1, 0] = 5.0  # row 2, column 3 of the whole
    host = np.asarray(x.to_device(xp.Device("CPU")))
    assert host.reshape(-1).tolist() == [0.0] * 11 + [5.0]


def test_a_refused_element_write_changes_nothing(device: xp.Device) -> None:
    x = xp.zeros((2, 2), dtype=xp.int8, device=device)
    before = x.carrier.version
    with pytest.raises(OverflowError):
        x[0, 1] = 300
    with pytest.raises(TypeError):
        x[0, 1] = 1j
    assert x.carrier.version == before
    assert not np.asarray(x.to_device(xp.Device("CPU"))).any()


@pytest.mark.parametrize(
    ("dtype", "value_dtype", "value", "stored"),
    [
        ("float32", "float32", 0.0, 0.0),
        ("float32", "float64", 0.1, float(np.float32(0.1))),  # a wider float rounds
        ("int16", "int64", -7, -7),
        ("uint64", "uint64", 2**64 - 1, 2**64 - 1),
        ("bool", "bool", True, True),
    ],
)
def test_a_zero_dimensional_array_written_into_an_element_is_cast_once(
    device: xp.Device, dtype: str, value_dtype: str, value: object, stored: object
) -> None:
    # scikit-learn's diagonal fill: ``a[i, i] = value`` with ``value = xp.asarray(0)``
    x = xp.ones((3, 3), dtype=getattr(xp, dtype), device=device)
    pending = x * 1  # a result computed from x before the writes, possibly still running
    expected = np.asarray(pending.to_device(xp.Device("CPU"))).copy()
    v = xp.asarray(value, dtype=getattr(xp, value_dtype), device=device)
    carrier = x.carrier
    before = carrier.version
    for i in range(3):
        x[i, i] = v
    assert carrier.version == before + 3
    host = np.asarray(x.to_device(xp.Device("CPU")))
    assert [host[i, i].item() for i in range(3)] == [stored] * 3
    assert host[0, 1] == 1  # no other slot was touched
    np.testing.assert_array_equal(np.asarray(pending.to_device(xp.Device("CPU"))), expected)


def test_an_element_write_from_another_device_is_refused(device: xp.Device) -> None:
    other = xp.Device("Metal") if device != xp.Device("Metal") else xp.Device("CPU")
    if other not in xp.__array_namespace_info__().devices():
        pytest.skip(f"{other} is not available here")
    x = xp.zeros((2, 2), dtype=xp.float32, device=device)
    before = x.carrier.version
    with pytest.raises(ValueError, match="device"):
        x[0, 0] = xp.asarray(1.0, dtype=xp.float32, device=other)
    assert x.carrier.version == before
