"""Hypothesis strategies for carrier values and strided layouts.

``values(dtype)`` draws what a carrier of ``dtype`` must accept and store exactly;
``refused_values(dtype)`` draws what it must refuse (wrong type or out of range);
``layouts()`` and ``injective_layouts()`` draw scatter mappings.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from stridewave.dtypes import DType
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


def values(dtype: DType) -> st.SearchStrategy[Any]:
    """Draw Python scalars that a carrier of ``dtype`` stores and reads back exactly.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Binary32-exact floats (no NaN), int32 integers, or bools.

    Raises
    ------
    KeyError
        If ``dtype`` is none of the three storage dtypes above.
    """
    return _VALUES[dtype]


def refused_values(dtype: DType) -> st.SearchStrategy[Any]:
    """Draw values that a write to a carrier of ``dtype`` must refuse.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Values of a refused type (``TypeError``) or out of range (``OverflowError``).

    Raises
    ------
    KeyError
        If ``dtype`` is none of the three storage dtypes above.
    """
    return _REFUSED[dtype]


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
