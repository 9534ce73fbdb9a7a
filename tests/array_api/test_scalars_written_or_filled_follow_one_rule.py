"""A Python scalar written (``x[k] = v``) or filled (``full``) follows one rule everywhere.

The rule of ``asarray`` (``_dtypes.check_scalar``), on every device: an int outside
the integer dtype's range and a finite float beyond float32's (a complex value with
such a part, for complex64) raise ``OverflowError``; a NaN or an infinity into an integer dtype raises ``ValueError``; a
finite float into an integer array truncates, as NumPy's assignment does (the
reference's leniency, CONTRACT section 9 version 3). A refused write changes neither
values nor version.
"""

from __future__ import annotations

import numpy as np
import pytest

import stridewave.array_api as xp


@pytest.mark.parametrize(
    ("dtype", "value", "error"),
    [
        ("int8", 300, OverflowError),
        ("int8", -129, OverflowError),
        ("uint8", -1, OverflowError),
        ("int32", 2**31, OverflowError),
        ("int16", 1e10, OverflowError),
        ("int32", float("nan"), ValueError),
        ("int64", float("inf"), ValueError),
        ("float32", 1e39, OverflowError),
        ("float32", -3.5e38, OverflowError),
        ("float32", float(2**128 - 2**103), OverflowError),  # (the limit itself rounds up)
        ("complex64", complex(1e39, 0.0), OverflowError),
        ("complex64", complex(1.0, -1e39), OverflowError),
        ("complex64", 1e39, OverflowError),
    ],
)
def test_a_scalar_the_dtype_cannot_hold_is_refused_and_changes_nothing(
    device: xp.Device, dtype: str, value: object, error: type[Exception]
) -> None:
    x = xp.asarray([1, 2, 3], dtype=getattr(xp, dtype), device=device)
    version = x.carrier.version
    with pytest.raises(error):
        x[0] = value
    assert x.carrier.version == version
    np.testing.assert_array_equal(np.asarray(x.carrier), [1, 2, 3])
    with pytest.raises(error):
        xp.full(2, value, dtype=getattr(xp, dtype), device=device)


@pytest.mark.parametrize(("dtype", "value"), [("float32", float("inf")), ("float32", 3.4e38)])
def test_an_infinity_or_the_largest_float32_is_written_as_it_is(
    device: xp.Device, dtype: str, value: float
) -> None:
    x = xp.zeros(2, dtype=getattr(xp, dtype), device=device)
    x[0] = value
    assert float(x[0]) == float(np.float32(value))
    assert float(xp.full(1, value, dtype=getattr(xp, dtype), device=device)[0]) == float(
        np.float32(value)
    )


def test_a_float_written_into_an_integer_array_truncates_as_numpy_does(
    device: xp.Device,
) -> None:
    x = xp.asarray([1, 2, 3], dtype=xp.int32, device=device)
    x[0] = 1.9
    x[1] = -2.7
    x[2:] = xp.asarray([7.5], device=device)
    expected = np.array([1, 2, 3], dtype=np.int32)
    expected[0], expected[1], expected[2:] = 1.9, -2.7, np.array([7.5])
    assert x.dtype == xp.int32
    np.testing.assert_array_equal(np.asarray(x.carrier), expected)
    filled = xp.full(2, 2.5, dtype=xp.int32, device=device)
    assert filled.dtype == xp.int32
    np.testing.assert_array_equal(np.asarray(filled.carrier), [2, 2])


def test_complex_into_real_and_numbers_into_bool_are_still_refused(device: xp.Device) -> None:
    x = xp.asarray([1.0, 2.0], dtype=xp.float32, device=device)
    with pytest.raises(TypeError):
        x[0] = 1j
    b = xp.asarray([True, False], device=device)
    with pytest.raises(TypeError):
        b[0] = 2
    with pytest.raises(TypeError):
        b[0] = 1.5


def test_python_ints_past_int64_are_converted_exactly_to_the_dtype_asked_for(
    device: xp.Device,
) -> None:
    # NumPy reads [2**63 + 1, 5] as float64 (53 bits): the namespace converts the
    # Python ints to uint64 itself, and refuses ints the dtype cannot hold.
    x = xp.asarray([2**63 + 1, 5], dtype=xp.uint64, device=device)
    assert [int(v) for v in np.array(x, copy=True)] == [2**63 + 1, 5]
    with pytest.raises(OverflowError):
        xp.asarray([2**64, 5], dtype=xp.uint64, device=device)
    with pytest.raises(OverflowError):
        xp.asarray([-1, 2**63], dtype=xp.uint64, device=device)


@pytest.mark.parametrize(
    "values",
    [[complex(1e39, 0.0)], [1.0, complex(0.0, -1e39)], [1e39]],
    ids=["real", "imag", "float"],
)
def test_asarray_refuses_a_complex64_part_beyond_float32_as_it_refuses_float32(
    device: xp.Device, values: list[complex]
) -> None:
    with pytest.raises(OverflowError, match="complex64"):
        xp.asarray(values, dtype=xp.complex64, device=device)
    kept = xp.asarray(
        [complex(3e38, 1.0), complex(float("inf"), 0.0)], dtype=xp.complex64, device=device
    )
    assert np.asarray(kept.to_device(xp.Device("CPU"))).tolist() == [
        complex(np.float32(3e38), 1.0),
        complex(float("inf"), 0.0),
    ]
