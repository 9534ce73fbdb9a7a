"""Hypothesis strategies for carrier values and strided layouts.

``values(dtype)`` draws what a carrier of ``dtype`` must accept and store exactly;
``refused_values(dtype)`` draws what it must refuse (wrong type or out of range);
``layouts()`` and ``injective_layouts()`` draw scatter mappings.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from hypothesis import strategies as st

from stridewave.dtypes import DType
from stridewave.dtypes._standard import is_half, is_standard
from stridewave.layout import Layout

__all__ = ["injective_layouts", "layouts", "refused_values", "values"]

_VALUES: dict[DType, st.SearchStrategy[Any]] = {
    DType.Float32: st.floats(width=32, allow_nan=False),
    DType.Int32: st.integers(-(2**31), 2**31 - 1),
    DType.Bool: st.booleans(),
}
_REFUSED: dict[DType, st.SearchStrategy[Any]] = {
    DType.Float32: st.sampled_from([True, "1.0", None, 1j, 1e39, -3.5e38]),
    DType.Int32: st.sampled_from([1.0, True, "1", None, 2**31, -(2**31) - 1]),
    DType.Bool: st.sampled_from([0, 1, 1.0, "True", None]),
}


#: Integer ranges of the array API standard's other integer dtypes, by name.
_INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "Int8": (-(2**7), 2**7 - 1),
    "Int16": (-(2**15), 2**15 - 1),
    "Int64": (-(2**63), 2**63 - 1),
    "UInt8": (0, 2**8 - 1),
    "UInt16": (0, 2**16 - 1),
    "UInt32": (0, 2**32 - 1),
    "UInt64": (0, 2**64 - 1),
}


def _bfloat16(bits: int) -> float:
    """Return the bfloat16 whose 16 bits are ``bits`` (the top half of a binary32)."""
    value: float = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return value


def _half(dtype: DType) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """Return ``(values, refused)`` of Float16 or BFloat16 (beyond the standard)."""
    if dtype.name == "Float16":
        return (
            st.floats(width=16, allow_nan=False),
            st.sampled_from([True, "1.0", None, 1j, 65520.0, -1e5]),
        )
    return (
        st.integers(0, 2**16 - 1).map(_bfloat16).filter(lambda f: not math.isnan(f)),
        st.sampled_from([True, "1.0", None, 1j, 1e39, -(2**128)]),
    )


def _standard(dtype: DType) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]] | None:
    """Return ``(values, refused)`` of a registered standard extension dtype, or ``None``.

    The registered half-precision dtypes beyond the standard (Float16, BFloat16) too.
    """
    if is_half(dtype):
        return _half(dtype)
    if not is_standard(dtype):
        return None
    name = dtype.name
    if name in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[name]
        return st.integers(low, high), st.sampled_from([1.0, True, "1", None, high + 1, low - 1])
    if name == "Float64":
        return st.floats(allow_nan=False), st.sampled_from([True, "1.0", None, 1j, 2**1024])
    if name == "Complex64":
        return (
            st.complex_numbers(width=64, allow_nan=False),
            st.sampled_from([True, "1", None, 1e39, complex(0, -1e39)]),
        )
    if name == "Complex128":
        return st.complex_numbers(allow_nan=False), st.sampled_from([True, "1", None, 2**1024])
    return None


def values(dtype: DType) -> st.SearchStrategy[Any]:
    """Draw Python scalars that a carrier of ``dtype`` stores and reads back exactly.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32``, ``DType.Bool``, or another of the array API
        standard's dtypes once registered (``stridewave.dtypes.register_standard_dtypes``),
        or Float16 and BFloat16 once the array API namespace registered them.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Binary32-exact floats (no NaN), int32 integers, or bools; for the others,
        integers of the dtype's range, floats, or complex numbers of the dtype's width
        (float16- and bfloat16-exact floats for the two half dtypes).

    Raises
    ------
    KeyError
        If ``dtype`` is none of the storage dtypes above.
    """
    found = _VALUES.get(dtype)
    if found is None:
        standard = _standard(dtype)
        if standard is None:
            raise KeyError(dtype)
        found = standard[0]
    return found


def refused_values(dtype: DType) -> st.SearchStrategy[Any]:
    """Draw values that a write to a carrier of ``dtype`` must refuse.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32``, ``DType.Bool``, or another registered
        standard dtype (or Float16, BFloat16).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Values of a refused type (``TypeError``) or out of range (``OverflowError``).

    Raises
    ------
    KeyError
        If ``dtype`` is none of the storage dtypes above.
    """
    found = _REFUSED.get(dtype)
    if found is None:
        standard = _standard(dtype)
        if standard is None:
            raise KeyError(dtype)
        found = standard[1]
    return found


@st.composite
def layouts(
    draw: st.DrawFn, max_ndim: int = 4, max_extent: int = 5, max_stride: int = 6, min_ndim: int = 0
) -> Layout:
    """Draw any layout: extents 0..max_extent, strides positive, negative or zero.

    Call it without ``draw`` (``layouts(max_ndim=2)``): ``st.composite`` supplies it.

    Parameters
    ----------
    max_ndim : int, default 4
        Most axes.
    max_extent : int, default 5
        Largest extent of an axis, in elements.
    max_stride : int, default 6
        Largest absolute stride, in elements.
    min_ndim : int, default 0
        Fewest axes.

    Returns
    -------
    Layout
        A layout that may overlap itself (zero or repeated strides).
    """
    ndim = draw(st.integers(min_ndim, max_ndim))
    shape = tuple(draw(st.integers(0, max_extent)) for _ in range(ndim))
    strides = tuple(draw(st.integers(-max_stride, max_stride)) for _ in range(ndim))
    return Layout(shape, strides)


@st.composite
def injective_layouts(draw: st.DrawFn, max_ndim: int = 3, max_extent: int = 5) -> Layout:
    """Draw permuted, possibly reversed and padded row-major layouts: never overlapping.

    Parameters
    ----------
    max_ndim : int, default 3
        Most axes.
    max_extent : int, default 5
        Largest extent of an axis, in elements (at least 1).

    Returns
    -------
    Layout
        A layout whose elements address distinct slots.
    """
    ndim = draw(st.integers(0, max_ndim))
    shape = tuple(draw(st.integers(1, max_extent)) for _ in range(ndim))
    order = draw(st.permutations(range(ndim)))
    strides = [0] * ndim
    step = 1
    for axis in reversed(order):
        strides[axis] = step * draw(st.sampled_from([1, -1]))
        step *= shape[axis] + draw(st.integers(0, 2))
    return Layout(shape, tuple(strides))
