"""A NumPy ufunc called on Arrays and scalars gives Arrays of their device (NEP 13).

``np.sin(x)`` and SciPy's Cython ufuncs (``scipy.special.erf(x)``) answer an Array as
CuPy's and Dask's arrays do (array-api-extra's own tests read it); another library's
array among the operands, ``out=`` and the ufunc methods stay NumPy's.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp

_VALUES = [0.5, 1.0, 6.0]


def _on(device: xp.Device, dtype: object = None) -> xp.Array:
    return xp.asarray(_VALUES, dtype=dtype or xp.float32, device=device)


@pytest.mark.parametrize("ufunc", [np.sin, np.exp, np.isfinite, np.signbit, np.negative])
def test_a_numpy_ufunc_of_an_array_is_an_array_of_its_device_and_numpys_values(
    device: xp.Device, ufunc: np.ufunc
) -> None:
    x = _on(device)
    result = ufunc(x)
    expected = ufunc(np.asarray(_VALUES, dtype=np.float32))
    assert type(result) is xp.Array
    assert result.device == device
    assert np.asarray(result).dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-6)


def test_a_scipy_cython_ufunc_of_an_array_is_an_array(device: xp.Device) -> None:
    special = pytest.importorskip("scipy.special")
    x = _on(device, xp.float64) if xp.float64 in _stored(device) else _on(device)
    result = special.erf(x)
    assert type(result) is xp.Array
    assert result.device == device and result.dtype == x.dtype
    np.testing.assert_allclose(np.asarray(result), special.erf(np.asarray(x)), rtol=1e-6)


def test_a_ufunc_of_two_outputs_gives_a_tuple_of_arrays(device: xp.Device) -> None:
    fractional, integral = np.modf(_on(device))
    assert (type(fractional), type(integral)) == (xp.Array, xp.Array)
    np.testing.assert_array_equal(np.asarray(fractional), [0.5, 0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(integral), [0.0, 1.0, 6.0])


def test_a_numpy_scalar_operator_gives_the_namespaces_result(device: xp.Device) -> None:
    result = np.float32(2) * _on(device)
    assert type(result) is xp.Array and result.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(result), [1.0, 2.0, 12.0])


def test_another_librarys_array_out_and_ufunc_methods_stay_numpys(device: xp.Device) -> None:
    x = _on(device)
    mixed = np.add(x, np.ones(3, dtype=np.float32))
    assert type(mixed) is np.ndarray
    np.testing.assert_array_equal(mixed, [1.5, 2.0, 7.0])
    total = np.add.reduce(x)
    assert not isinstance(total, xp.Array) and total == 7.5
    out = np.empty(3, dtype=np.float32)
    assert np.sin(x, out=out) is out


def test_arrays_of_two_devices_in_one_ufunc_raise_value_error() -> None:
    devices = xp.__array_namespace_info__().devices()
    if len(devices) < 2:
        pytest.skip("one device here")
    with pytest.raises(ValueError, match="different devices"):
        np.arctan2(_on(devices[0]), _on(devices[1]))


def _stored(device: xp.Device) -> set[object]:
    return set(xp.__array_namespace_info__().dtypes(device=device).values())
