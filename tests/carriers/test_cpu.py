"""Behaviour unique to CPU: construction arguments, owned and wrapped memory, pointer()."""

from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest

from stridewave import CPU, DType

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool


def test_defaults() -> None:
    carrier = CPU(2)
    assert carrier.dtype() is F32
    assert carrier.is_mutable()
    assert list(carrier) == [0.0, 0.0]
    assert not carrier.is_wrapping()


@pytest.mark.parametrize(("dtype", "zero"), [(F32, 0.0), (I32, 0), (BOOL, False)])
def test_create_initialized_owned_cpu_storage(dtype: DType, zero: object) -> None:
    carrier = CPU(5, dtype=dtype, empty=False)
    assert [carrier[i] for i in range(5)] == [zero] * 5
    assert all(type(v) is type(zero) for v in carrier)


def test_empty_owned_allocation_is_writable() -> None:
    carrier = CPU(3, dtype=I32, empty=True)
    for i in range(3):
        carrier[i] = i
    assert list(carrier) == [0, 1, 2]


@pytest.mark.parametrize(
    ("dtype", "np_dtype", "values"),
    [
        (F32, np.float32, [1.5, 2.5]),
        (I32, np.int32, [-1, 7]),
        (BOOL, np.bool_, [True, False]),
    ],
)
def test_wrap_external_memory(
    dtype: DType, np_dtype: type[np.generic], values: list[object]
) -> None:
    external = np.array(values, dtype=np_dtype)
    for empty in (False, True):
        carrier = CPU(2, external.ctypes.data, dtype=dtype, empty=empty)
        assert carrier.pointer() == external.ctypes.data
        assert list(carrier) == values  # not initialized, not changed
        assert carrier.is_wrapping()
    carrier[0] = values[1]
    assert external[0] == values[1]  # writes land in the external memory
    carrier.release()
    assert external.tolist() == [values[1], values[1]]  # release frees nothing


def test_wrap_ctypes_buffer_via_pointer() -> None:
    buffer = (ctypes.c_int32 * 3)(1, 2, 3)
    carrier = CPU(3, ctypes.addressof(buffer), dtype=I32)
    assert list(carrier) == [1, 2, 3]
    carrier[1] = 20
    assert buffer[1] == 20


@pytest.mark.parametrize("pointer", [1.5, "0x10", True, [1]])
def test_pointer_of_wrong_type_raises_type_error(pointer: object) -> None:
    with pytest.raises(TypeError, match="pointer"):
        CPU(1, pointer)  # type: ignore[arg-type]


@pytest.mark.parametrize("pointer", [0, -8])
def test_non_positive_pointer_raises_value_error(pointer: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        CPU(1, pointer)


@pytest.mark.parametrize(
    ("size", "error"), [(1.5, TypeError), ("3", TypeError), (None, TypeError), (-1, ValueError)]
)
def test_bad_size(size: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="size"):
        CPU(size)  # type: ignore[arg-type]


def test_numpy_integer_size() -> None:
    assert CPU(np.int64(3)).size() == 3


def test_reject_an_unsupported_simple_encoding() -> None:
    for dtype in (DType.Float64, DType.Int8, DType.E4M3):
        with pytest.raises(ValueError, match="CPU storage accepts"):
            CPU(4, dtype=dtype)
        with pytest.raises(ValueError):
            CPU(1).allocate_like(4, dtype=dtype)
        with pytest.raises(ValueError):
            CPU(1).new_like([1.0], dtype=dtype)


def test_reject_compound_and_categories(compound: DType) -> None:
    with pytest.raises(ValueError, match="multiple planes"):
        CPU(2, dtype=compound)
    for category in (DType.Any, DType.Floating, DType.Integer):
        with pytest.raises(ValueError, match="category"):
            CPU(2, dtype=category)


def test_dtype_not_a_dtype_raises_type_error() -> None:
    with pytest.raises(TypeError):
        CPU(2, dtype=np.float32)  # type: ignore[arg-type]


@pytest.mark.parametrize("flag", ["mutable", "empty"])
def test_flags_must_be_bool(flag: str) -> None:
    with pytest.raises(TypeError, match=flag):
        CPU(1, **{flag: "yes"})  # type: ignore[arg-type]


def test_pointer_is_positive_and_fails_after_release() -> None:
    carrier = CPU(0)
    assert carrier.pointer() > 0
    carrier.release()
    with pytest.raises(RuntimeError, match="released"):
        carrier.pointer()


def test_request_an_empty_cpu_allocation() -> None:
    fresh = CPU(1, dtype=I32).allocate_like(3, empty=True)
    assert isinstance(fresh, CPU)
    assert fresh.size() == 3 and fresh.dtype() is I32
    assert fresh.is_mutable()
    fresh[0], fresh[1], fresh[2] = 7, -8, 9  # writable: every slot written before it is read
    assert [fresh[0], fresh[1], fresh[2]] == [7, -8, 9]
    assert fresh.version == 3


def test_from_numpy_keeps_the_array_alive() -> None:
    array = np.array([1.0, 2.0], dtype=np.float32)
    ref = weakref.ref(array)
    carrier = CPU.from_numpy(array)
    assert carrier.pointer() == array.ctypes.data
    del array
    gc.collect()
    assert ref() is not None
    assert list(carrier) == [1.0, 2.0]
    view = np.asarray(carrier)
    del carrier
    gc.collect()
    assert ref() is not None  # the exported view keeps it alive as well
    assert view.tolist() == [1.0, 2.0]
    del view
    gc.collect()
    assert ref() is None


def test_from_numpy_shares_memory() -> None:
    array = np.zeros(2, dtype=np.int32)
    carrier = CPU.from_numpy(array)
    carrier[1] = 5
    assert array[1] == 5
    assert carrier.version == 1


def test_from_numpy_refuses_bad_arrays() -> None:
    with pytest.raises(TypeError):
        CPU.from_numpy([1.0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1-D C-contiguous"):
        CPU.from_numpy(np.zeros(2, np.float64))
    with pytest.raises(ValueError):
        CPU.from_numpy(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError):
        CPU.from_numpy(np.zeros(4, np.float32)[::2])
    frozen = np.zeros(2, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        CPU.from_numpy(frozen)
    assert not CPU.from_numpy(frozen, mutable=False).is_mutable()


def test_new_like_ndarray_float32_is_one_copy() -> None:
    source = np.arange(4, dtype=np.float32)
    fresh = CPU(0).new_like(source)
    assert not np.shares_memory(np.asarray(fresh), source)
    assert list(fresh) == [0.0, 1.0, 2.0, 3.0]
    strided = np.arange(8, dtype=np.float32)[::2]
    assert list(CPU(0).new_like(strided)) == [0.0, 2.0, 4.0, 6.0]
