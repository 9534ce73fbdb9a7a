"""Infinite operands and signed zeros give the standard's answers where a backend's differ.

NumPy's ``floor_divide`` answers ``inf // 2`` with NaN and ``1 // -inf`` with -1; MLX's
``sin(-0.0)`` is +0.0 and its ``remainder`` gives a zero the dividend's sign. The
standard asks for the signed infinity, the signed zero, -0 and the divisor's sign;
each case runs through the function, its operator and its in-place operator.

The namespace gives no floating-point warnings for these operands (docs/array-api.md,
"Floating-point warnings"); the filter below leaves NumPy's own calls in the checks
free to warn.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host as _host

from .conftest import BACKEND_DEVICE_PARAMS

INF = float("inf")

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

#: One device per backend: the host one, and Metal where MLX imports.
DEVICES = BACKEND_DEVICE_PARAMS

#: (x1, x2, the standard's x1 // x2) with an infinite operand.
FLOOR_DIVIDE_CASES = [
    (INF, 2.0, INF),
    (INF, -2.0, -INF),
    (-INF, 2.0, -INF),
    (-INF, -2.0, INF),
    (1.0, -INF, -0.0),
    (-1.0, INF, -0.0),
    (1.0, INF, 0.0),
    (-1.0, -INF, 0.0),
    (INF, INF, float("nan")),
    (7.0, 2.0, 3.0),
    (-7.0, 2.0, -4.0),
]

#: (x1, x2, the standard's x1 % x2) with a zero result.
REMAINDER_CASES = [
    (-0.0, 3.0, 0.0),
    (0.0, -3.0, -0.0),
    (6.0, -3.0, -0.0),
    (-6.0, 3.0, 0.0),
    (-0.0, -3.0, -0.0),
    (5.0, -3.0, -1.0),
    (-1.0, INF, INF),
]


def _same(got: Any, expected: list[float]) -> bool:
    """Whether ``got`` holds ``expected`` value by value, signs of zeros included."""
    want = np.asarray(expected, dtype=np.float32)
    got = np.asarray(got, dtype=np.float32)
    zeros = want == 0
    return bool(
        np.array_equal(got, want, equal_nan=True)
        and np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))
    )


def _operands(cases: list[tuple[float, float, float]], device: str) -> tuple[Any, Any, list[float]]:
    x1 = xp.asarray([c[0] for c in cases], dtype=xp.float32, device=xp.Device(device))
    x2 = xp.asarray([c[1] for c in cases], dtype=xp.float32, device=xp.Device(device))
    return x1, x2, [c[2] for c in cases]


@pytest.mark.parametrize("device", DEVICES)
def test_floor_divide_with_one_infinite_operand_gives_a_signed_infinity_or_zero(
    device: str,
) -> None:
    x1, x2, expected = _operands(FLOOR_DIVIDE_CASES, device)
    assert _same(_host(xp.floor_divide(x1, x2)), expected)
    assert _same(_host(x1 // x2), expected)
    inplace = xp.asarray(x1, copy=True)
    inplace //= x2
    assert _same(_host(inplace), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_floor_divide_of_an_infinity_by_a_python_scalar_is_infinite(device: str) -> None:
    x = xp.asarray([INF, -INF, 3.0], dtype=xp.float32, device=xp.Device(device))
    assert _same(_host(x // 2.0), [INF, -INF, 1.0])
    assert _same(_host(1.0 // xp.asarray([-INF], device=xp.Device(device))), [-0.0])


@pytest.mark.parametrize("device", DEVICES)
def test_remainder_zero_takes_the_divisor_sign(device: str) -> None:
    x1, x2, expected = _operands(REMAINDER_CASES, device)
    assert _same(_host(xp.remainder(x1, x2)), expected)
    assert _same(_host(x1 % x2), expected)
    inplace = xp.asarray(x1, copy=True)
    inplace %= x2
    assert _same(_host(inplace), expected)
    assert _same(_host(x1[:2] % -3.0), [-0.0, -0.0])
    assert _same(_host(x1[:2] % 3.0), [0.0, 0.0])


@pytest.mark.parametrize("device", DEVICES)
def test_integer_floor_divide_and_remainder_are_unchanged(device: str) -> None:
    x = xp.asarray([7, -7, 6], dtype=xp.int32, device=xp.Device(device))
    assert _host(x // 2).tolist() == [3, -4, 3]
    assert _host(x % -2).tolist() == [-1, -1, 0]


@pytest.mark.parametrize("device", DEVICES)
def test_sin_of_a_signed_zero_keeps_its_sign(device: str) -> None:
    x = xp.asarray([-0.0, 0.0, 1.0], dtype=xp.float32, device=xp.Device(device))
    got = _host(xp.sin(x))
    assert _same(got[:2], [-0.0, 0.0])
    assert got[2] == pytest.approx(np.sin(np.float32(1.0)))


#: (z, the standard's expm1(z)) for complex z with an infinite or NaN part.
EXPM1_CASES = [
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(-INF, float("nan")), complex(-1.0, 0.0)),
    (complex(float("nan"), 0.0), complex(float("nan"), 0.0)),
    (complex(1e-9, 0.0), complex(1e-9, 0.0)),
]


#: complex128 too: Metal holds it in host memory and computes it in NumPy, which needs
#: the same corrections as the host device's.
COMPLEX = pytest.mark.parametrize("dtype", ["complex64", "complex128"])


@COMPLEX
@pytest.mark.parametrize("device", DEVICES)
def test_expm1_of_a_complex_infinity_is_exp_less_one(device: str, dtype: str) -> None:
    z = xp.asarray([c[0] for c in EXPM1_CASES], dtype=getattr(xp, dtype), device=xp.Device(device))
    got = _host(xp.expm1(z))
    want = np.asarray([c[1] for c in EXPM1_CASES], dtype=dtype)
    assert np.array_equal(got[:-1].real, want[:-1].real, equal_nan=True), got
    assert np.array_equal(got[:-1].imag, want[:-1].imag, equal_nan=True), got
    assert got[-1].real == pytest.approx(1e-9, rel=1e-6)  # (not exp(z) - 1, which is 0)


@pytest.mark.parametrize("device", DEVICES)
def test_sign_of_a_complex_zero_is_positive_zero(device: str) -> None:
    z = [complex(0.0, -0.0), complex(-0.0, -0.0), complex(-0.0, 0.0), 3 + 4j]
    got = _host(xp.sign(xp.asarray(z, dtype=xp.complex64, device=xp.Device(device))))
    assert not np.signbit(got[:3].real).any() and not np.signbit(got[:3].imag).any(), got
    assert got[3] == pytest.approx(0.6 + 0.8j)


@COMPLEX
@pytest.mark.parametrize("device", DEVICES)
def test_tanh_of_a_complex_infinity_is_one_with_the_imaginary_sign(device: str, dtype: str) -> None:
    # The standard: tanh(+inf + bj) is 1 + 0j for finite b > 0 (its symmetries for the
    # rest); NumPy and MLX give the zero the sign of sin(2b), which 2.0 makes negative.
    inf = INF
    z = [complex(inf, 2.0), complex(inf, -2.0), complex(-inf, 2.0), complex(inf, 0.0), 0.5 + 0.5j]
    got = _host(xp.tanh(xp.asarray(z, dtype=getattr(xp, dtype), device=xp.Device(device))))
    assert got[:4].real.tolist() == [1.0, 1.0, -1.0, 1.0]
    assert np.signbit(got[:4].imag).tolist() == [False, True, False, False]
    assert got[4] == pytest.approx(np.tanh(0.5 + 0.5j), rel=1e-6)
    scalar = xp.asarray(complex(inf, 2.0), dtype=getattr(xp, dtype), device=xp.Device(device))
    assert complex(_host(xp.tanh(scalar))) == 1 + 0j


@COMPLEX
@pytest.mark.parametrize("device", DEVICES)
def test_expm1_of_a_complex_zero_is_a_positive_zero(device: str, dtype: str) -> None:
    z = xp.asarray([complex(-0.0, 0.0)], dtype=getattr(xp, dtype), device=xp.Device(device))
    got = _host(xp.expm1(z))
    assert got[0] == 0 and not np.signbit(got.real[0]) and not np.signbit(got.imag[0])
