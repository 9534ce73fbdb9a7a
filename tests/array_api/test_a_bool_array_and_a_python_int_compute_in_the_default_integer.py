"""A bool array and a Python int compute in the default integer, int64, on every device.

NumPy's rule (NEP 50: the int is weak, bool takes the default integer): the reference
refuses the mix, and the standard leaves it open, so the namespace answers as NumPy
does on every device. MLX alone would compute ``mask + 1`` in int32 and ``mask +
2**40`` in int32 too, silently wrapping the int.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp

OPERATIONS: dict[str, Callable[[Any, int], Any]] = {
    "x + v": lambda x, v: x + v,
    "v * x": lambda x, v: v * x,
    "xp.add(x, v)": lambda x, v: xp.add(x, v),
    "xp.subtract(v, x)": lambda x, v: xp.subtract(v, x),
    "x & v": lambda x, v: x & v,
}

NUMPY: dict[str, Callable[[Any, int], Any]] = {
    "x + v": lambda x, v: x + v,
    "v * x": lambda x, v: v * x,
    "xp.add(x, v)": np.add,
    "xp.subtract(v, x)": lambda x, v: np.subtract(v, x),
    "x & v": lambda x, v: x & v,
}


@pytest.mark.parametrize("value", [1, -3, 2**31, 2**40, 2**63 - 1], ids=repr)
@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_a_bool_array_and_a_python_int_give_numpys_int64_values(
    device: xp.Device, operation: str, value: int
) -> None:
    mask = np.array([True, False, True])
    x = xp.asarray(mask, device=device)
    got = OPERATIONS[operation](x, value)
    expected = NUMPY[operation](mask, value)
    assert got.dtype == xp.int64
    assert expected.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(got.to_device(xp.Device("CPU"))), expected)


def test_a_python_int_beyond_int64_beside_a_bool_array_is_refused(device: xp.Device) -> None:
    x = xp.asarray([True, False], device=device)
    with pytest.raises(OverflowError, match="int64"):
        x + 2**64
