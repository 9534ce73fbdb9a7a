"""Hypothesis strategies shared by the layout, tensor and scatter tests."""

from __future__ import annotations

from hypothesis import strategies as st

from stridewave.layout import Layout


@st.composite
def layouts(
    draw: st.DrawFn, max_ndim: int = 4, max_extent: int = 5, max_stride: int = 6, min_ndim: int = 0
) -> Layout:
    """Any layout: extents 0..max_extent, strides positive, negative or zero."""
    ndim = draw(st.integers(min_ndim, max_ndim))
    shape = tuple(draw(st.integers(0, max_extent)) for _ in range(ndim))
    strides = tuple(draw(st.integers(-max_stride, max_stride)) for _ in range(ndim))
    return Layout(shape, strides)


@st.composite
def injective_layouts(draw: st.DrawFn, max_ndim: int = 3, max_extent: int = 5) -> Layout:
    """Permuted, possibly reversed and padded row-major layouts: never overlapping."""
    ndim = draw(st.integers(0, max_ndim))
    shape = tuple(draw(st.integers(1, max_extent)) for _ in range(ndim))
    order = draw(st.permutations(range(ndim)))
    strides = [0] * ndim
    step = 1
    for axis in reversed(order):
        strides[axis] = step * draw(st.sampled_from([1, -1]))
        step *= shape[axis] + draw(st.integers(0, 2))
    return Layout(shape, tuple(strides))
