"""A Python float past float32's range beside a float64 array: NumPy's float64 answer.

On a device whose default float dtype is float32 (Metal, CONTRACT section 9),
``xp.asarray`` of such a float alone refuses it (the carriers' Float32 rule: no
silent infinity); as an operand beside a float64 array the scalar takes the array's
dtype and every device computes NumPy's float64 answer. The conformance suite's
``test_binary_with_scalars_real`` fails on Metal only through the first (its own
``xp.asarray`` of the scalar, tests/array_api/xfails-metal.txt); this pins both.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp
from tests.metal_scripts import host as _host

from .conftest import BACKEND_DEVICE_PARAMS

#: Just past float32's largest finite value (it rounds to float32's infinity).
PAST_FLOAT32 = 3.4028235677973366e38
#: The namespace's functions taken, each with NumPy's name for it.
NUMPY_NAMES = {
    "atan2": "arctan2",
    "maximum": "maximum",
    "divide": "divide",
    "multiply": "multiply",
    "equal": "equal",
    "greater_equal": "greater_equal",
}


@pytest.mark.parametrize("kind", BACKEND_DEVICE_PARAMS)
@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_the_scalar_beside_a_float64_array_gives_numpys_float64_answer(
    kind: str, name: str
) -> None:
    ours, numpys = getattr(xp, name), getattr(np, NUMPY_NAMES[name])
    device = xp.Device(kind)  # (every device stores float64: CONTRACT section 9)
    values = np.array([1.0, -2.5, 3.0e38], dtype=np.float64)
    x = xp.asarray(values, device=device)
    for got, expected in (
        (ours(x, PAST_FLOAT32), numpys(values, PAST_FLOAT32)),
        (ours(PAST_FLOAT32, x), numpys(PAST_FLOAT32, values)),
    ):
        assert np.asarray(expected).dtype == _host(got).dtype
        np.testing.assert_array_equal(_host(got), expected)


@pytest.mark.parametrize("kind", BACKEND_DEVICE_PARAMS)
def test_the_scalar_alone_takes_the_default_float_dtype(kind: str) -> None:
    device = xp.Device(kind)
    default = xp.__array_namespace_info__().default_dtypes(device=device)["real floating"]
    if default == xp.float64:
        assert float(xp.asarray(PAST_FLOAT32, device=device)) == PAST_FLOAT32
    else:
        with pytest.raises(OverflowError, match="no finite float32 value"):
            xp.asarray(PAST_FLOAT32, device=device)
