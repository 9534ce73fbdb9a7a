"""Metal's shims answer the dtypes beyond bool, int32 and float32 as the CPU device does.

``sign(NaN)`` is NaN in float64 too, ``mean``, ``var`` and ``std`` of float64 stay
float64, and integer division of unsigned arrays divides (no divisor is -1 there).
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host as _host
from tests.metal_scripts import requires_mlx

pytestmark = [requires_mlx, pytest.mark.needs_mlx]

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")


def _metal_has_float64() -> bool:
    return xp.float64 in xp.__array_namespace_info__().dtypes(device=METAL).values()


#: MLX's GPU devices have no float64 (its CPU device has it).
needs_float64 = pytest.mark.skipif(
    "not _metal_has_float64()", reason="this Metal device has no float64 (a GPU)"
)


@needs_float64
def test_sign_of_a_float64_nan_is_nan_on_metal() -> None:
    x = xp.asarray(np.array([np.nan, -2.0, 0.0]), device=METAL)
    assert x.dtype == xp.float64
    got = _host(xp.sign(x))
    assert np.isnan(got[0]) and got[1:].tolist() == [-1.0, 0.0], got


@needs_float64
@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_statistics_of_float64_stay_float64_on_metal(name: str) -> None:
    values = np.array([1.0, 1.0 + 2**-40, 3.0])
    got = getattr(xp, name)(xp.asarray(values, device=METAL))
    assert got.dtype == xp.float64
    assert float(got) == pytest.approx(float(getattr(np, name)(values)), rel=1e-15)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_unsigned_floor_divide_and_remainder_on_metal_match_cpu(dtype: str) -> None:
    top = int(np.iinfo(dtype).max)
    x1 = np.array([7, top, top, 0], dtype=dtype)
    x2 = np.array([2, top, 3, 5], dtype=dtype)
    for device in (METAL, CPU):
        a, b = xp.asarray(x1, device=device), xp.asarray(x2, device=device)
        assert _host(a // b).tolist() == (x1 // x2).tolist()
        assert _host(a % b).tolist() == (x1 % x2).tolist()
        assert _host(a // 2).tolist() == (x1 // 2).tolist()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64"])
def test_integer_division_by_a_python_int_keeps_the_dtype_on_metal(dtype: str) -> None:
    values = np.array([7, -7, 5, int(np.iinfo(dtype).min)], dtype=dtype)
    x = xp.asarray(values, device=METAL)
    for got, want in [
        (x // 2, values // 2),
        (x % 3, values % 3),
        (x // -1, -values),
        (x % -1, values * 0),
        (7 // x[:3], 7 // values[:3]),
    ]:
        assert got.dtype == getattr(xp, dtype), (got.dtype, dtype)
        assert _host(got).tolist() == want.tolist()


def test_indices_computed_on_the_host_are_in_the_default_indexing_dtype_on_metal() -> None:
    # searchsorted, nonzero and the unique functions run in NumPy (int64 indices);
    # Metal's default indexing dtype is MLX's int32, as argsort's and argmax's are.
    index = xp.__array_namespace_info__().default_dtypes(device=METAL)["indexing"]
    x = xp.asarray(np.array([3, 1, 3, 0], dtype=np.int64), device=METAL)
    found = xp.unique_all(x)
    assert found.values.dtype == xp.int64
    assert {a.dtype for a in found[1:]} == {index}
    assert xp.unique_inverse(x).inverse_indices.dtype == index
    assert xp.unique_counts(x).counts.dtype == index
    assert xp.nonzero(x)[0].dtype == index
    got = xp.searchsorted(xp.sort(x), x)
    assert got.dtype == index
    assert _host(got).tolist() == [2, 1, 2, 0]


@pytest.mark.parametrize("device", [METAL, CPU])
def test_vecdot_conjugates_its_first_complex_operand(device: xp.Device) -> None:
    x1 = xp.asarray([1j, 2j, 3j], dtype=xp.complex64, device=device)
    x2 = xp.asarray([1, 2j, 3], dtype=xp.complex64, device=device)
    assert complex(xp.vecdot(x1, x2)) == 4 - 10j
    assert complex(xp.linalg.vecdot(x1, x2)) == 4 - 10j
