"""Python ints that MLX cannot convert are refused or held exactly on Metal, as on CPU.

MLX computes an integer ``arange`` in doubles: ints beyond int32 (Metal's default)
came back as ``-2**31``, and ints beyond 2**53 lost digits. MLX converts a Python int
through int64: one in ``[2**63, 2**64)`` beside a uint64 Array raised
``RuntimeError: std::bad_cast`` (operators, comparisons, ``x[i] = v``, ``full``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host, requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")
CPU = xp.Device("CPU")


@pytest.mark.parametrize(
    ("args", "dtype"),
    [
        ((2**31 - 2, 2**31 + 1), xp.int32),
        ((-(2**31) - 1, 0, 2**30), xp.int32),
        ((1, -2, -1), xp.uint8),
        ((0, 301, 100), xp.uint8),
    ],
)
def test_arange_beyond_its_dtype_raises_overflow_error_on_metal(
    args: tuple[int, ...], dtype: Any
) -> None:
    with pytest.raises(OverflowError, match="range"):
        xp.arange(*args, dtype=dtype, device=METAL)
    # asarray refuses the same values (one rule for Python ints on Metal)
    with pytest.raises(OverflowError):
        xp.asarray(list(range(*args)), dtype=dtype, device=METAL)


@pytest.mark.parametrize(
    "args",
    [(2**40, 2**40 + 3), (2**53 + 1, 2**53 + 4), (2**62, 2**62 + 5, 2), (2**62, 0, -(2**60))],
)
def test_arange_of_int64_values_is_exact_on_metal(args: tuple[int, ...]) -> None:
    got = xp.arange(*args, dtype=xp.int64, device=METAL)
    np.testing.assert_array_equal(host(got), np.arange(*args, dtype=np.int64))


@pytest.mark.parametrize("args", [(2**63 - 2, 2**63 + 1), (-(2**63) - 1, 0, 2**62)])
def test_arange_beyond_the_default_int64_raises_overflow_error_on_metal(
    args: tuple[int, ...],
) -> None:
    with pytest.raises(OverflowError, match="range"):
        xp.arange(*args, device=METAL)


def test_arange_inside_int32_still_runs_on_metal() -> None:
    got = xp.arange(2**31 - 3, 2**31, dtype=xp.int32, device=METAL)
    assert got.dtype == xp.int32
    np.testing.assert_array_equal(host(got), [2**31 - 3, 2**31 - 2, 2**31 - 1])


_WIDE = 2**63 + 5
_CALLS: dict[str, Callable[[Any], Any]] = {
    "x + v": lambda x: x + _WIDE,
    "v + x": lambda x: _WIDE + x,
    "x - v": lambda x: x - _WIDE,
    "x // v": lambda x: x // _WIDE,
    "x == max": lambda x: x == 2**64 - 1,
    "x < v": lambda x: x < _WIDE,
    "x >= v": lambda x: x >= _WIDE,
    "maximum": lambda x: xp.maximum(x, _WIDE),
    "full": lambda x: xp.full(x.shape, _WIDE, dtype=xp.uint64, device=x.device),
    "full_like": lambda x: xp.full_like(x, 2**64 - 1),
}


def _set(x: Any) -> Any:
    x[0] = _WIDE
    x[1:] = 2**64 - 1
    return x


_CALLS["x[i] = v"] = _set


@pytest.mark.parametrize("call", list(_CALLS.values()), ids=list(_CALLS))
def test_a_uint64_array_takes_python_ints_beyond_int64_on_metal(
    call: Callable[[Any], Any],
) -> None:
    values = np.array([1, 2**63, 2**64 - 1], dtype=np.uint64)
    on_cpu = call(xp.asarray(values, device=CPU))
    on_metal = call(xp.asarray(values, device=METAL))
    assert on_metal.dtype == on_cpu.dtype
    np.testing.assert_array_equal(host(on_metal), host(on_cpu))
