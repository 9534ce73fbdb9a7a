"""Layout: construction, immutability, index/indices agreement, bounds and overlap."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stridewave.layout import Layout
from tests.strategies import injective_layouts, layouts


def test_default_strides_are_row_major_in_elements() -> None:
    assert Layout((2, 3, 4)).strides == (12, 4, 1)
    assert Layout(()).strides == ()
    assert Layout((0, 3)).strides == (3, 1)


def test_size_and_ndim() -> None:
    assert Layout((2, 3)).size == 6
    assert Layout(()).size == 1
    assert Layout(()).ndim == 0
    assert Layout((4, 0, 2)).size == 0
    assert Layout((4, 0, 2)).ndim == 3


def test_accepts_lists_and_index_objects() -> None:
    layout = Layout([np.int64(2), 3], [np.int32(-3), 1])
    assert layout.shape == (2, 3)
    assert layout.strides == (-3, 1)
    assert all(type(v) is int for v in layout.shape + layout.strides)


@pytest.mark.parametrize("shape", [3, "23", None, (2.0, 3), (True, 3), (np.bool_(True),)])
def test_bad_shape_type_raises_type_error(shape: object) -> None:
    with pytest.raises(TypeError, match="shape"):
        Layout(shape)  # type: ignore[arg-type]


@pytest.mark.parametrize("strides", [1, (1.0,), (False,)])
def test_bad_strides_type_raises_type_error(strides: object) -> None:
    with pytest.raises(TypeError, match="strides"):
        Layout((3,), strides)  # type: ignore[arg-type]


def test_negative_extent_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"shape\[1\] must be >= 0, got -2"):
        Layout((3, -2))


def test_strides_length_mismatch_raises_value_error() -> None:
    with pytest.raises(ValueError, match="one entry per axis"):
        Layout((3, 2), (1,))


def test_offsets_beyond_int64_raise_value_error() -> None:
    with pytest.raises(ValueError, match="64-bit"):
        Layout((3,), (2**62,))


def test_is_immutable() -> None:
    layout = Layout((2, 3))
    with pytest.raises(AttributeError, match="immutable"):
        layout.shape = (3, 2)  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        layout._shape = (3, 2)
    with pytest.raises(AttributeError, match="immutable"):
        del layout._strides
    assert not hasattr(layout, "__dict__")


def test_equality_and_hash() -> None:
    assert Layout((2, 3)) == Layout((2, 3), (3, 1))
    assert hash(Layout((2, 3))) == hash(Layout([2, 3], [3, 1]))
    assert Layout((2, 3)) != Layout((2, 3), (1, 2))
    assert Layout((2, 3)) != Layout((3, 2))
    assert Layout((2,)) != (2,)
    assert len({Layout((2, 3)), Layout((2, 3)), Layout((6,))}) == 2


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_and_copy_round_trip(protocol: int) -> None:
    layout = Layout((2, 3), (-1, 4))
    assert pickle.loads(pickle.dumps(layout, protocol)) == layout
    assert copy.deepcopy(layout) == layout
    assert copy.copy(layout) == layout


def test_repr() -> None:
    assert repr(Layout((2, 3))) == "Layout(shape=(2, 3), strides=(3, 1))"


def test_index_of_transpose() -> None:
    layout = Layout((2, 3), (1, 2))
    assert [layout.index(i) for i in range(6)] == [0, 2, 4, 1, 3, 5]
    assert layout.index(np.int64(4)) == 3


def test_index_of_zero_d_layout() -> None:
    assert Layout(()).index(0) == 0
    with pytest.raises(IndexError):
        Layout(()).index(1)


@pytest.mark.parametrize("i", [1.0, "1", None, True])
def test_index_with_non_index_raises_type_error(i: object) -> None:
    with pytest.raises(TypeError, match="logical index"):
        Layout((3,)).index(i)  # type: ignore[arg-type]


@pytest.mark.parametrize("i", [-1, 3, 100])
def test_index_out_of_range_raises_index_error_with_both_numbers(i: int) -> None:
    with pytest.raises(IndexError, match=rf"logical index {i} .* 3 elements"):
        Layout((3,)).index(i)


def test_indices_dtype_and_shape() -> None:
    out = Layout((2, 3), (1, 2)).indices()
    assert out.dtype == np.int64
    assert out.shape == (6,)
    assert Layout((0, 4)).indices().shape == (0,)
    assert Layout(()).indices().tolist() == [0]


@given(layouts())
def test_indices_agree_with_index(layout: Layout) -> None:
    assert layout.indices().tolist() == [layout.index(i) for i in range(layout.size)]


@given(layouts())
def test_min_and_max_index_bound_indices_exactly(layout: Layout) -> None:
    offsets = layout.indices()
    if layout.size == 0:
        assert (layout.min_index, layout.max_index) == (0, -1)
    else:
        assert layout.min_index == offsets.min()
        assert layout.max_index == offsets.max()


@given(layouts())
def test_is_injective_matches_exact_check(layout: Layout) -> None:
    offsets = layout.indices()
    assert layout.is_injective() == (np.unique(offsets).size == offsets.size)
    assert layout.is_injective() == layout.is_injective()  # cached answer


@given(injective_layouts())
def test_permuted_layouts_are_injective_without_enumeration(layout: Layout) -> None:
    # the cheap stride test must decide these without building the offsets
    assert layout._compute_injective_cheap() is True


@pytest.mark.parametrize(
    ("shape", "strides", "expected"),
    [
        ((3,), (0,), False),
        ((1,), (0,), True),
        ((3, 3), (2, 1), False),
        ((2, 3), (3, 2), True),  # inconclusive cheap test, exact check says injective
        ((2, 2), (1, -1), False),
        ((4, 5), (-1, 4), True),
        ((0, 3), (0, 0), True),
    ],
)
def test_is_injective_examples(
    shape: tuple[int, ...], strides: tuple[int, ...], expected: bool
) -> None:
    assert Layout(shape, strides).is_injective() is expected


@given(st.integers(0, 4), st.integers(0, 4))
def test_transpose_layout_matches_numpy(rows: int, cols: int) -> None:
    layout = Layout((rows, cols), (1, rows))
    expected = np.arange(rows * cols).reshape(cols, rows).T.ravel()
    assert layout.indices().tolist() == expected.tolist()


def test_a_stride_beyond_an_int64_byte_offset_is_refused_even_on_an_axis_of_one() -> None:
    import pytest

    from stridewave import Layout

    for stride in (2**61, -(2**61), 2**70):
        with pytest.raises(ValueError, match="64-bit"):
            Layout((1,), (stride,))
    assert Layout((1,), (2**59,)).indices().tolist() == [0]


# -- the int64 limits, at their exact edges ----------------------------------

#: the largest stride NumPy can multiply by an 8-byte item size within int64
STRIDE_LIMIT = (2**63 - 1) // 8  # == 2**60 - 1


def test_the_int64_guard_checks_the_negative_side() -> None:
    # Every single stride is within the limit, but 15 steps of -(2**60 - 1) reach
    # below -2**63: the smallest offset does not fit a signed 64-bit integer.
    with pytest.raises(ValueError, match="64-bit"):
        Layout((16,), (-STRIDE_LIMIT,))
    with pytest.raises(ValueError, match="64-bit"):
        Layout((2, 16), (1, -STRIDE_LIMIT))
    # 7 such steps still fit, and the bound is reported exactly.
    fits = Layout((8,), (-STRIDE_LIMIT,))
    assert fits.min_index == -7 * STRIDE_LIMIT
    assert fits.max_index == 0


def test_the_int64_guard_checks_the_positive_side() -> None:
    with pytest.raises(ValueError, match="64-bit"):
        Layout((16,), (STRIDE_LIMIT,))
    fits = Layout((8,), (STRIDE_LIMIT,))
    assert (fits.min_index, fits.max_index) == (0, 7 * STRIDE_LIMIT)


def test_the_stride_limit_is_exact() -> None:
    for stride in (STRIDE_LIMIT, -STRIDE_LIMIT):
        layout = Layout((1,), (stride,))
        assert layout.strides == (stride,)
        assert layout.indices().tolist() == [0]
    for stride in (STRIDE_LIMIT + 1, -(STRIDE_LIMIT + 1)):
        with pytest.raises(ValueError, match="64-bit"):
            Layout((1,), (stride,))
        with pytest.raises(ValueError, match="64-bit"):
            Layout((2,), (stride,))


def test_the_size_limit_is_exact() -> None:
    # Zero strides address one slot however many elements there are; only the
    # element count itself must fit int64.
    largest = Layout((2**63 - 1,), (0,))
    assert largest.size == 2**63 - 1
    assert (largest.min_index, largest.max_index) == (0, 0)
    with pytest.raises(ValueError, match="64-bit"):
        Layout((2**62, 2), (0, 0))


# -- tests that catch slips: mutation survivors of layout.py -------------------
# Each test names the slips it catches; docs/testing.md lists the mutants.


def test_row_major_strides_step_over_an_axis_of_one_and_of_zero() -> None:
    # an axis of extent 1 multiplies the step by 1, an axis of extent 0 too (as NumPy)
    assert Layout((3, 1, 2)).strides == (2, 2, 1)
    assert Layout((2, 0, 3)).strides == (3, 3, 1)
    assert Layout((3, 1, 2)).strides == tuple(s // 8 for s in np.zeros((3, 1, 2), np.int64).strides)


@pytest.mark.parametrize(
    ("shape", "strides", "words"),
    [
        ("ab", None, r"^shape must be a tuple of integers, got str 'ab'; pass for example shape="),
        (
            (2, 2.5),
            None,
            r"^shape\[1\] must be an integer \(an object with __index__\), got float 2.5",
        ),
        ((2,), 3, r"^strides must be a tuple of integers, got int 3; pass for example strides="),
        ((2,), (1.5,), r"^strides\[0\] must be an integer \(an object with __index__\), got float"),
        (
            (2,),
            (True,),
            r"^strides\[0\] must be an integer, got the boolean True; pass an int such as 1",
        ),
    ],
)
def test_refused_shapes_and_strides_are_named_exactly(
    shape: object, strides: object, words: str
) -> None:
    # the argument's own name, the value given and its type (not None's)
    with pytest.raises(TypeError, match=words):
        Layout(shape, strides)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("i", "words"),
    [
        (1.5, r"^logical index must be an integer \(an object with __index__\), got float 1.5"),
        ("1", r"^logical index must be an integer \(an object with __index__\), got str '1'"),
    ],
)
def test_a_non_integer_logical_index_is_named_exactly(i: object, words: str) -> None:
    with pytest.raises(TypeError, match=words):
        Layout((3,)).index(i)  # type: ignore[arg-type]


def test_the_refusal_messages_say_how_to_fix_the_layout() -> None:
    with pytest.raises(ValueError, match=r"; extents count elements and cannot be negative\.$"):
        Layout((3, -2))
    with pytest.raises(
        ValueError,
        match=r"beyond what a signed 64-bit byte offset holds; use smaller extents or strides\.$",
    ):
        Layout((16,), (STRIDE_LIMIT,))


def test_the_offset_limits_are_exact_on_both_sides() -> None:
    # 8 steps of the largest stride plus 7 steps of one reach exactly 2**63 - 1:
    # the extreme offset still fits a signed 64-bit integer, one more does not.
    high = Layout((9, 8), (STRIDE_LIMIT, 1))
    assert high.max_index == 2**63 - 1
    low = Layout((9, 8), (-STRIDE_LIMIT, -1))
    assert low.min_index == -(2**63 - 1)
    for strides in ((STRIDE_LIMIT, 1), (-STRIDE_LIMIT, -1)):
        with pytest.raises(ValueError, match="64-bit"):
            Layout((9, 9), strides)


def test_distinct_layouts_hash_apart() -> None:
    # Layouts key dictionaries and sets (scatter plans, views): equal ones hash
    # equal, and distinct ones must not all collide.
    layouts_ = {Layout((n, m), (m, s)) for n in range(1, 9) for m in range(1, 9) for s in (1, 2)}
    assert len({hash(x) for x in layouts_}) > len(layouts_) // 2


@pytest.mark.parametrize(
    ("shape", "strides", "expected"),
    [
        ((2,), (0,), False),  # two elements on one slot: the smallest non-injective layout
        ((2,), (5,), True),
        ((2, 2, 2), (1, 2, 3), False),  # 0+0+3 == 1+2+0: the span of all smaller axes counts
        ((2, 2, 2), (1, 2, 4), True),
    ],
)
def test_injectivity_at_the_edges_of_the_stride_test(
    shape: tuple[int, ...], strides: tuple[int, ...], expected: bool
) -> None:
    assert Layout(shape, strides).is_injective() is expected


def test_injectivity_of_a_huge_layout_is_decided_without_enumerating() -> None:
    # 2**50 offsets would take 8 PiB to enumerate: the stride test alone must answer.
    assert Layout((2**50,), (1,)).is_injective() is True
    assert Layout((2**25, 2**25), (2**25, 1)).is_injective() is True
