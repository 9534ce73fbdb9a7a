"""The shared carrier contract, run against every entry of the KINDS table.

Test names follow the spec's Scenarios where one applies.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

from stridewave import DType, Layout, Tensor, storage_zero
from stridewave.carriers._capabilities import ScatterSupport

from .conftest import KIND_DTYPES, KINDS, SAMPLE, ZERO, Kind, builtin_dtypes

F32 = DType.Float32


# -- Carrier exposes one homogeneous storage sequence -------------------------------


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_read_and_write_one_slot(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, b, a], dtype, True)
    assert carrier.size() == 3
    assert carrier.dtype() is dtype
    assert [carrier.get_value(i) for i in range(3)] == [a, b, a]
    assert [carrier[i] for i in range(3)] == [a, b, a]
    assert carrier.set_value(1, a) is None
    carrier[2] = b
    assert kind.raw_values(carrier) == [a, a, b]
    assert type(carrier[0]) is type(a)


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
@pytest.mark.parametrize("index", [-1, -3, 3, 4, 2**70])
def test_reject_an_invalid_physical_index(kind: Kind, dtype: DType, index: int) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, a, a], dtype, True)
    with pytest.raises(IndexError, match="valid indices are"):
        carrier.get_value(index)
    with pytest.raises(IndexError):
        carrier[index]
    with pytest.raises(IndexError):
        carrier.set_value(index, b)
    with pytest.raises(IndexError):
        carrier[index] = b
    assert carrier.version == 0
    assert kind.raw_values(carrier) == [a, a, a]


@pytest.mark.parametrize("index", [1.0, "1", None, slice(0, 1), [0]])
def test_index_without_index_protocol_raises_type_error(kind: Kind, index: object) -> None:
    carrier = kind.make([SAMPLE[F32][0]] * 2, F32, True)
    with pytest.raises(TypeError, match="integer-index protocol"):
        carrier.get_value(index)
    with pytest.raises(TypeError):
        carrier[index] = 1.0  # type: ignore[index]
    assert carrier.version == 0


def test_numpy_integer_index_is_accepted(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0], F32, True)
    assert carrier[np.int64(1)] == 2.0
    carrier[np.uint8(0)] = 3.0
    assert carrier.get_value(np.intp(0)) == 3.0


# -- Storage support is exact, structural and allocation-free -------------------------


def test_query_support_independently_of_current_storage(
    kind: Kind, compound: DType, extension_category: DType
) -> None:
    for held in kind.dtypes:
        carrier = kind.make([SAMPLE[held][0]], held, True)
        before = (carrier.size(), carrier.version, kind.raw_values(carrier))
        for candidate in [*builtin_dtypes(), compound, extension_category]:
            expected = any(candidate is s for s in kind.supported)
            assert carrier.supports_storage_dtype(candidate) is expected, candidate
        assert (carrier.size(), carrier.version, kind.raw_values(carrier)) == before
        carrier.release()
        for candidate in builtin_dtypes():
            expected = any(candidate is s for s in kind.supported)
            assert carrier.supports_storage_dtype(candidate) is expected


def test_query_a_valid_unsupported_descriptor(kind: Kind, compound: DType) -> None:
    carrier = kind.make([], kind.dtypes[0], False)
    assert carrier.supports_storage_dtype(compound) is False
    assert carrier.supports_storage_dtype(DType.Integer) is False
    assert carrier.supports_storage_dtype(DType.Float64) is False


@pytest.mark.parametrize("junk", [None, "Float32", np.float32, np.dtype("f4"), 32])
def test_supports_storage_dtype_refuses_non_dtype(kind: Kind, junk: object) -> None:
    carrier = kind.make([], kind.dtypes[0], True)
    with pytest.raises(TypeError, match="stridewave DType"):
        carrier.supports_storage_dtype(junk)  # type: ignore[arg-type]


# -- Unsupported construction fails before storage is exposed --------------------------


def test_reject_compound_homogeneous_storage(kind: Kind, compound: DType) -> None:
    carrier = kind.make([], kind.dtypes[0], True)
    with pytest.raises(ValueError, match="cannot hold multiple planes"):
        carrier.new_like([], dtype=compound)
    with pytest.raises(ValueError, match="multi-plane storage is deferred"):
        carrier.allocate_like(2, dtype=compound)


@pytest.mark.parametrize("junk", ["Float32", np.float32, 1])
def test_factory_refuses_non_dtype_with_type_error(kind: Kind, junk: object) -> None:
    carrier = kind.make([], kind.dtypes[0], True)
    with pytest.raises(TypeError):
        carrier.new_like([], dtype=junk)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        carrier.allocate_like(1, dtype=junk)  # type: ignore[arg-type]


# -- new_like ------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_preserve_dtype_by_default(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a], dtype, True)
    fresh = carrier.new_like([b, a, b])
    assert type(fresh) is type(carrier)
    assert fresh.dtype() is dtype
    assert list(fresh) == [b, a, b]
    assert fresh.version == 0
    assert fresh.is_mutable()


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_override_factory_dtype(kind: Kind) -> None:
    carrier = kind.make([1.5], F32, True)
    fresh = carrier.new_like([1, 2, 3], dtype=DType.Int32)
    assert fresh.dtype() is DType.Int32
    assert list(fresh) == [1, 2, 3]
    assert all(type(v) is int for v in fresh)
    back = fresh.new_like([1, 2], dtype=F32)
    assert list(back) == [1.0, 2.0]
    assert all(type(v) is float for v in back)


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_new_like_none_hole_reads_as_zero(kind: Kind, dtype: DType) -> None:
    a, _ = SAMPLE[dtype]
    fresh = kind.make([a], dtype, True).new_like([None, a, None])
    assert list(fresh) == [ZERO[dtype], a, ZERO[dtype]]


def test_new_like_is_independent_of_receiver_and_input(kind: Kind) -> None:
    source = [1.0, 2.0]
    carrier = kind.make([5.0], F32, True)
    fresh = carrier.new_like(source)
    source[0] = 9.0
    carrier[0] = 6.0
    assert list(fresh) == [1.0, 2.0]
    array = np.array([1.0, 2.0], dtype=np.float32)
    from_array = carrier.new_like(array)
    array[0] = 7.0
    assert list(from_array) == [1.0, 2.0]


def test_new_like_immutable_result(kind: Kind) -> None:
    fresh = kind.make([1.0], F32, True).new_like([1.0, 2.0], mutable=False)
    assert not fresh.is_mutable()
    with pytest.raises(RuntimeError, match="mutable=False"):
        fresh[0] = 3.0


def test_new_like_refuses_non_iterable_and_bad_values(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, True)
    with pytest.raises(TypeError, match="iterable"):
        carrier.new_like(3.0)
    with pytest.raises(TypeError):
        carrier.new_like([1.0, "x"])
    with pytest.raises(OverflowError):
        carrier.new_like([1.0, 1e39])
    with pytest.raises(TypeError, match="mutable"):
        carrier.new_like([1.0], mutable=1)  # type: ignore[arg-type]


# -- allocate_like -------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_allocate_initialized_storage(kind: Kind, dtype: DType) -> None:
    a, _ = SAMPLE[dtype]
    carrier = kind.make([a, a], dtype, True)
    fresh = carrier.allocate_like(3)
    assert type(fresh) is type(carrier)
    assert fresh.dtype() is dtype
    assert fresh.size() == 3
    assert list(fresh) == [storage_zero(dtype)] * 3
    assert kind.raw_values(fresh) == [ZERO[dtype]] * 3
    fresh[0] = a
    assert list(carrier) == [a, a]


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_request_an_empty_allocation(kind: Kind, dtype: DType) -> None:
    fresh = kind.make([], dtype, True).allocate_like(4, empty=True)
    assert fresh.size() == 4
    assert fresh.is_mutable()
    if kind.initializes_empty:
        assert list(fresh) == [ZERO[dtype]] * 4
    a, _ = SAMPLE[dtype]
    for i in range(4):
        fresh[i] = a
    assert list(fresh) == [a] * 4


def test_allocate_like_dtype_override_and_immutable(kind: Kind) -> None:
    fresh = kind.make([], F32, True).allocate_like(2, dtype=DType.Int32, mutable=False)
    assert fresh.dtype() is DType.Int32
    assert list(fresh) == [0, 0]
    assert not fresh.is_mutable()


@pytest.mark.parametrize(("size", "error"), [(1.0, TypeError), ("2", TypeError), (-1, ValueError)])
def test_allocate_like_refuses_bad_size(kind: Kind, size: object, error: type) -> None:
    with pytest.raises(error, match="size"):
        kind.make([], F32, True).allocate_like(size)  # type: ignore[arg-type]


def test_reject_a_category_override(kind: Kind, extension_category: DType) -> None:
    carrier = kind.make([], F32, True)
    for category in (DType.Any, DType.Floating, DType.Integer, extension_category):
        with pytest.raises(ValueError, match="category with no storage encoding"):
            carrier.new_like([], dtype=category)
        with pytest.raises(ValueError, match="category"):
            carrier.allocate_like(1, dtype=category)


# -- mutability, version ----------------------------------------------------------------


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_query_an_immutable_carrier(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, a], dtype, False)
    assert carrier.is_mutable() is False
    assert carrier.is_owned() is False
    with pytest.raises(RuntimeError, match="mutable=False"):
        carrier.set_value(0, b)
    with pytest.raises(RuntimeError, match="mutable=False"):
        carrier[1] = b
    assert carrier.version == 0
    assert kind.raw_values(carrier) == [a, a]


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_version_an_indexed_write(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, a], dtype, True)
    before = carrier.version
    carrier[0] = b
    assert carrier.version == before + 1
    carrier.set_value(1, b)
    assert carrier.version == before + 2
    carrier[1] = b  # same value: still a successful mutation
    assert carrier.version == before + 3


def test_version_is_a_read_only_property(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, True)
    assert isinstance(carrier.version, int)
    with pytest.raises(AttributeError):
        carrier.version = 5  # type: ignore[misc]


def test_failed_writes_leave_value_and_version(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0], F32, True)
    for index, value, error in [
        (0, "x", TypeError),
        (0, True, TypeError),
        (0, 1e39, OverflowError),
        (5, 1.0, IndexError),
        ("a", 1.0, TypeError),
    ]:
        with pytest.raises(error):
            carrier[index] = value  # type: ignore[index]
        with pytest.raises(error):
            carrier.set_value(index, value)
    assert carrier.version == 0
    assert kind.raw_values(carrier) == [1.0, 2.0]


def test_allocation_and_construction_do_not_count_as_mutation(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0], F32, True)
    assert carrier.version == 0
    assert carrier.allocate_like(3).version == 0
    assert carrier.new_like([1.0]).version == 0
    carrier.release()
    assert carrier.version == 0


# -- release -------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_release_a_carrier_twice(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, b], dtype, True)
    assert carrier.is_released() is False
    assert carrier.release() is None
    assert carrier.is_released() is True
    assert carrier.release() is None
    assert carrier.is_released() is True
    assert carrier.size() == 0
    assert len(carrier) == 0
    assert carrier.dtype() is dtype
    assert carrier.is_mutable() is False
    for action in (
        lambda: carrier.get_value(0),
        lambda: carrier[0],
        lambda: carrier.set_value(0, a),
        lambda: carrier.__setitem__(0, a),
        lambda: iter(carrier),
        lambda: np.asarray(carrier),
    ):
        with pytest.raises(RuntimeError, match="released"):
            action()
    assert "released" in repr(carrier)


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_create_fresh_storage_from_a_released_prototype(kind: Kind, dtype: DType) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a], dtype, True)
    carrier.release()
    fresh = carrier.new_like([b, a])
    assert list(fresh) == [b, a]
    assert fresh.is_mutable() and not fresh.is_released()
    allocated = carrier.allocate_like(2)
    assert list(allocated) == [ZERO[dtype]] * 2


def test_release_of_an_immutable_carrier_is_allowed(kind: Kind) -> None:
    carrier = kind.make([1.0], F32, False)
    carrier.release()
    assert carrier.is_released()


# -- extras: len, iter, repr, NumPy interop ----------------------------------------------


def test_len_iter_repr(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0, 3.0], F32, True)
    assert len(carrier) == 3
    assert list(carrier) == [1.0, 2.0, 3.0]
    text = repr(carrier)
    assert kind.cls.__name__ in text
    assert "DType.Float32" in text and "size=3" in text and "live" in text
    assert "immutable" in repr(kind.make([], F32, False))


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
def test_numpy_asarray_is_read_only_and_a_view_where_the_kind_exports_views(
    kind: Kind, dtype: DType
) -> None:
    a, b = SAMPLE[dtype]
    carrier = kind.make([a, b], dtype, True)
    view = np.asarray(carrier)
    assert view.shape == (2,)
    assert view.tolist() == [a, b]
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = b
    carrier[0] = b
    if kind.exports_views:
        with pytest.raises(ValueError):
            view.setflags(write=True)  # a read-only buffer: cannot be turned back on
        assert view[0] == b  # zero-copy: the view sees the carrier's writes
        assert np.asarray(carrier, copy=False).tolist() == [b, b]
    else:
        assert view[0] == a  # a snapshot of the values at export time
        with pytest.raises(ValueError, match="never exports a view"):
            np.asarray(carrier, copy=False)
        assert np.asarray(carrier).tolist() == [b, b]


def test_numpy_copy_is_writable_and_independent(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0], F32, True)
    copied = np.array(carrier, copy=True)
    assert copied.flags.writeable
    copied[0] = 9.0
    assert carrier[0] == 1.0
    assert carrier.version == 0


def test_numpy_dtype_conversion(kind: Kind) -> None:
    carrier = kind.make([1.5, 2.0], F32, True)
    assert np.asarray(carrier, dtype=np.float64).tolist() == [1.5, 2.0]
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(carrier, dtype=np.float64, copy=False)
    assert carrier.__array__(np.float64, copy=True).dtype == np.float64


@pytest.mark.parametrize("junk", [",", "(", "not-a-dtype", object()])
def test_numpy_export_refuses_an_unreadable_dtype_with_type_error(kind: Kind, junk: object) -> None:
    # NumPy parses "," as a field list and raises SyntaxError; the export says TypeError.
    carrier = kind.make([1.5, 2.0], F32, True)
    with pytest.raises(TypeError, match=r"cannot read .* as a dtype"):
        carrier.__array__(junk)
    with pytest.raises(TypeError, match=r"cannot read .* as a dtype"):
        Tensor(carrier, Layout((2,))).__array__(junk)


def test_view_exported_before_release_stays_valid(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0, 3.0], F32, True)
    view = np.asarray(carrier)
    carrier.release()
    gc.collect()
    assert view.tolist() == [1.0, 2.0, 3.0]


def test_release_drops_every_reference_to_the_buffer(kind: Kind) -> None:
    import weakref

    carrier = kind.make([1.0, 2.0], F32, True)
    raw = carrier._raw_array()  # type: ignore[attr-defined]
    ref = weakref.ref(raw)
    del raw
    carrier.release()
    gc.collect()
    assert ref() is None


def test_new_like_from_another_carrier_is_vectorized(kind: Kind) -> None:
    source = kind.make([1.0, 2.0], F32, True)
    for other in KINDS:
        target = other.make([], F32, True)
        assert list(target.new_like(source)) == [1.0, 2.0]
    source.release()
    with pytest.raises(RuntimeError, match="released"):
        kind.make([], F32, True).new_like(source)


def test_copy_and_pickle_give_independent_carriers(kind: Kind) -> None:
    import copy
    import pickle

    carrier = kind.make([1.0, -2.5], F32, True)
    carrier[0] = 3.0
    for clone in (
        copy.copy(carrier),
        copy.deepcopy(carrier),
        pickle.loads(pickle.dumps(carrier)),
    ):
        assert type(clone) is type(carrier) and clone.dtype() is F32
        assert list(clone) == [3.0, -2.5] and clone.version == 0 and clone.is_mutable()
        clone[1] = 9.0
        assert list(carrier) == [3.0, -2.5]  # independent storage
        clone.release()
    carrier.release()
    for action in (
        lambda: copy.copy(carrier),
        lambda: copy.deepcopy(carrier),
        lambda: pickle.dumps(carrier),
    ):
        with pytest.raises(RuntimeError, match="released"):
            action()


def test_scatter_capability_flag_matches_the_kind_table(kind: Kind) -> None:
    assert (kind.cls.capabilities.scatter is not ScatterSupport.NONE) is kind.scatters
    carrier = kind.make([1.0, 2.0], F32, True)
    if not kind.scatters:
        with pytest.raises(NotImplementedError):
            carrier._raw_scatter(0, Layout((1,)), np.array([5.0], np.float32))
        whole = Tensor(carrier, Layout((2,)))
        with pytest.raises(NotImplementedError, match="does not implement scatter"):
            carrier.scatter(whole, whole, Layout((2,)))


def test_a_bool_is_neither_a_size_nor_a_slot_index(kind: Kind) -> None:
    carrier = kind.make([1.0, 2.0], F32, True)
    with pytest.raises(TypeError, match="bool"):
        carrier[True]
    with pytest.raises(TypeError, match="bool"):
        carrier.set_value(False, 3.0)
    with pytest.raises(TypeError, match="bool"):
        carrier.allocate_like(True)
    assert carrier.version == 0 and list(carrier) == [1.0, 2.0]
