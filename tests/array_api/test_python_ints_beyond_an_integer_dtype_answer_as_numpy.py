"""A Python int beyond an integer array's dtype: NumPy's answer, on every device.

The standard leaves the case open. NumPy 2 compares such an int with the array
exactly (``int8_array < 1000`` is all True) and refuses any other operation with
``OverflowError``; MLX instead raised ``ValueError`` for some dtypes and took a
negative int to uint64 modulo 2**64 without a word (``uint64_array < -1`` was True
for small values). Every device now gives NumPy's answer: the comparison's truth, or
``OverflowError`` that names the int, the dtype's range and the fix.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host as _host

from .conftest import BACKEND_DEVICE_PARAMS

DEVICES = BACKEND_DEVICE_PARAMS

_COMPARISONS: list[tuple[str, Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = [
    ("<", operator.lt, xp.less),
    ("<=", operator.le, xp.less_equal),
    (">", operator.gt, xp.greater),
    (">=", operator.ge, xp.greater_equal),
    ("==", operator.eq, xp.equal),
    ("!=", operator.ne, xp.not_equal),
]

_INTEGERS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _beyond(dtype: str) -> list[int]:
    info = np.iinfo(dtype)
    found = {info.max + 1, info.min - 1, 1000, -1000, -1, 2**40, -(2**40), 2**70, -(2**70)}
    return sorted(c for c in found if not info.min <= c <= info.max)


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("dtype", _INTEGERS)
@pytest.mark.parametrize(
    ("op", "function"), [c[1:] for c in _COMPARISONS], ids=[c[0] for c in _COMPARISONS]
)
def test_a_comparison_with_an_int_beyond_the_dtype_is_exact(
    kind: str, dtype: str, op: Callable[[Any, Any], Any], function: Callable[[Any, Any], Any]
) -> None:
    info = np.iinfo(dtype)
    values = np.array([info.min, 0, info.max], dtype=dtype)
    x = xp.asarray(values, device=xp.Device(kind))
    for c in _beyond(dtype):
        want = np.array([op(int(v), c) for v in values])
        want_swapped = np.array([op(c, int(v)) for v in values])
        for got, expected in (
            (op(x, c), want),
            (op(c, x), want_swapped),
            (function(x, c), want),
            (function(c, x), want_swapped),
        ):
            assert got.dtype == xp.bool and got.shape == (3,)
            np.testing.assert_array_equal(_host(got), expected, err_msg=f"{c}")


_ARITHMETIC: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("x + c", lambda x, c: x + c),
    ("c * x", lambda x, c: c * x),
    ("subtract(x, c)", lambda x, c: xp.subtract(x, c)),
    ("x & c", lambda x, c: x & c),
    ("maximum(x, c)", lambda x, c: xp.maximum(x, c)),
]


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("dtype", _INTEGERS)
@pytest.mark.parametrize("call", [c[1] for c in _ARITHMETIC], ids=[c[0] for c in _ARITHMETIC])
def test_any_other_operation_with_an_int_beyond_the_dtype_raises_overflow_error(
    kind: str, dtype: str, call: Callable[[Any, Any], Any]
) -> None:
    x = xp.asarray(np.array([1, 2], dtype=dtype), device=xp.Device(kind))
    for c in _beyond(dtype):
        with pytest.raises(OverflowError, match=str(c)):
            call(x, c)
