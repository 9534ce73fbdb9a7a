"""Hypothesis strategies shared by the layout, tensor and scatter tests."""

from __future__ import annotations

from hypothesis import strategies as st

from stridewave.layout import Layout


@st.composite
def layouts(draw, max_ndim=4, max_extent=5, max_stride=6, min_ndim=0):  # type: ignore[no-untyped-def]
    """Any layout: extents 0..max_extent, strides positive, negative or zero."""
    ndim = draw(st.integers(min_ndim, max_ndim))
    shape = tuple(draw(st.integers(0, max_extent)) for _ in range(ndim))
    strides = tuple(draw(st.integers(-max_stride, max_stride)) for _ in range(ndim))
    return Layout(shape, strides)


@st.composite
def injective_layouts(draw, max_ndim=3, max_extent=5):  # type: ignore[no-untyped-def]
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
