"""Extension carriers: value normalization of the standard's other dtypes, and the spec
carriers' storage sets left exactly as the spec gives them (which device each class
belongs to is the array API's table of places: tests/array_api)."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pytest

from stridewave import CPU, DType, FileBacked, Generic, Metal, storage_zero
from stridewave.array_api._places import PLACES
from stridewave.carriers._extension import (
    CPUExtension,
    FileBackedExtension,
    GenericExtension,
    MetalExtension,
    metal_storage_dtypes,
)
from stridewave.dtypes import standard_dtypes

STD = standard_dtypes()
#: The extension carriers of the places whose storage is host memory (the array API's
#: table of places).
HOST_KINDS = [row.extension_carrier for row in PLACES if row.host_addressable]


def make(kind: type[Any], dtype: DType, values: list[object]) -> Any:
    """A carrier of ``kind`` holding ``values`` (through new_like: the bulk path)."""
    if kind is GenericExtension:
        return GenericExtension(values, dtype=dtype)
    if kind is FileBackedExtension:
        return FileBackedExtension(dtype=dtype).new_like(values)
    return kind(0, dtype=dtype).new_like(values)


# -- the spec carriers keep their sets ---------------------------------------------------


@pytest.mark.parametrize("spec", [CPU, Generic, FileBacked, Metal])
@pytest.mark.parametrize("api", ["int64", "uint8", "float64", "complex64", "int8"])
def test_spec_carriers_still_refuse_the_standards_other_dtypes(spec: type[Any], api: str) -> None:
    dtype = STD[api]
    bare = cast(Any, spec).__new__(spec)  # supports_storage_dtype reads no state
    assert bare.supports_storage_dtype(dtype) is False
    with pytest.raises(ValueError, match=r"accepts|storage"):
        if spec is Generic:
            Generic([], dtype=dtype)
        elif spec is FileBacked:
            FileBacked(dtype=dtype)
        else:
            spec(1, dtype=dtype)


def test_storage_zero_still_names_only_the_spec_rows() -> None:
    assert storage_zero(STD["float32"]) == 0.0
    assert storage_zero(STD["float64"]) is None and storage_zero(STD["complex64"]) is None


def test_cpu_from_numpy_still_refuses_an_int64_array_which_the_extension_wraps() -> None:
    array = np.arange(3, dtype=np.int64)
    with pytest.raises(ValueError):
        CPU.from_numpy(array)
    wrapped = CPUExtension.from_numpy(array)
    assert wrapped.dtype() is STD["int64"] and list(wrapped) == [0, 1, 2]
    wrapped[1] = 2**62
    assert array[1] == 2**62  # zero-copy, as CPU.from_numpy


# -- integers: range-checked like Int32 ----------------------------------------------------


@pytest.mark.parametrize("kind", HOST_KINDS)
@pytest.mark.parametrize(
    ("api", "low", "high"),
    [
        ("int8", -(2**7), 2**7 - 1),
        ("int16", -(2**15), 2**15 - 1),
        ("int64", -(2**63), 2**63 - 1),
        ("uint8", 0, 2**8 - 1),
        ("uint16", 0, 2**16 - 1),
        ("uint32", 0, 2**32 - 1),
        ("uint64", 0, 2**64 - 1),
    ],
)
def test_integers_store_their_whole_range_and_refuse_beyond_it(
    kind: type[Any], api: str, low: int, high: int
) -> None:
    dtype = STD[api]
    carrier = make(kind, dtype, [low, high, np.int8(-1) if low else np.uint8(7)])
    assert list(carrier) == [low, high, -1 if low else 7]
    assert all(type(v) is int for v in carrier)
    for bad in (low - 1, high + 1):
        with pytest.raises(OverflowError, match=str(high)):
            carrier[0] = bad
        with pytest.raises(OverflowError):
            make(kind, dtype, [bad])
    for wrong in (1.0, True, np.bool_(True), "1", 1j):
        with pytest.raises(TypeError):
            carrier[0] = wrong
    assert list(carrier) == [low, high, -1 if low else 7] and carrier.version == 0


@pytest.mark.parametrize(
    ("api", "array"),
    [
        ("uint8", np.array([-1, 3], dtype=np.int8)),
        ("int64", np.array([2**63], dtype=np.uint64)),
        ("uint32", np.array([2**32], dtype=np.int64)),
        ("int8", np.array([128], dtype=np.int16)),
    ],
)
def test_integer_arrays_are_range_checked_on_the_vectorized_path(
    api: str, array: np.ndarray[Any, Any]
) -> None:
    with pytest.raises(OverflowError):
        CPUExtension(0, dtype=STD[api]).new_like(array)


def test_integer_arrays_of_a_narrower_dtype_need_no_range_check_and_bools_are_refused() -> None:
    carrier = CPUExtension(0, dtype=STD["int64"]).new_like(np.array([-5, 250], dtype=np.int16))
    assert list(carrier) == [-5, 250]
    with pytest.raises(TypeError, match="integer"):
        CPUExtension(0, dtype=STD["uint8"]).new_like(np.array([True]))
    with pytest.raises(TypeError, match="integer"):
        CPUExtension(0, dtype=STD["int16"]).new_like(np.array([1.0]))


# -- Float64 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_float64_keeps_binary64_and_rounds_a_big_int_once(kind: type[Any]) -> None:
    big = 2**54 + 3  # not exact in binary64: half to even gives 2**54 + 4
    carrier = make(kind, STD["float64"], [0.1, big, np.float32(0.5), math.inf])
    assert list(carrier) == [0.1, float(2**54 + 4), 0.5, math.inf]
    with pytest.raises(OverflowError, match=r"1\.7976931e308"):
        carrier[0] = 2**1024
    with pytest.raises(OverflowError):
        carrier[0] = np.longdouble(1e308) * 10 if np.finfo(np.longdouble).max > 1e309 else 2**1024
    for wrong in (True, 1j, "1.0", None, np.timedelta64(1, "s")):
        with pytest.raises(TypeError):
            carrier[0] = wrong
    assert carrier.version == 0


def test_float64_arrays_take_one_cast_and_refuse_complex() -> None:
    values = np.array([1, 2**60 + 1], dtype=np.int64)
    carrier = CPUExtension(0, dtype=STD["float64"]).new_like(values)
    assert list(carrier) == [1.0, float(2**60)]
    with pytest.raises(TypeError, match="real"):
        CPUExtension(0, dtype=STD["float64"]).new_like(np.array([1j]))


# -- complex -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", HOST_KINDS)
def test_complex_accepts_python_complex_and_reals_and_rounds_each_part_once(
    kind: type[Any],
) -> None:
    c64 = make(kind, STD["complex64"], [0.1 + 0.2j, 3, 1.5, np.complex128(-1j)])
    stored = [complex(np.complex64(0.1 + 0.2j)), 3 + 0j, 1.5 + 0j, -1j]
    assert list(c64) == stored and all(type(v) is complex for v in c64)
    c128 = make(kind, STD["complex128"], [0.1 + 0.2j, 2**60 + 1])
    assert list(c128) == [0.1 + 0.2j, complex(2**60)]
    with pytest.raises(OverflowError, match="complex numbers whose parts"):
        c64[0] = complex(1.0, 1e39)
    with pytest.raises(OverflowError):
        c64[0] = 2**200
    with pytest.raises(OverflowError):
        c128[0] = 2**1024
    for wrong in (True, "1j", None, np.bool_(False)):
        with pytest.raises(TypeError, match="complex"):
            c64[0] = wrong
    assert c64.version == 0 and list(c64) == stored


def test_complex_arrays_take_one_cast_and_a_part_that_overflows_raises() -> None:
    carrier = CPUExtension(0, dtype=STD["complex64"]).new_like(np.array([1 + 1j, 2], np.complex128))
    assert list(carrier) == [1 + 1j, 2 + 0j]
    with pytest.raises(OverflowError):
        CPUExtension(0, dtype=STD["complex64"]).new_like(np.array([1e39j]))
    with pytest.raises(TypeError):
        CPUExtension(0, dtype=STD["complex128"]).new_like(np.array([True]))


def test_scatter_sends_int_values_into_a_complex_receiver() -> None:
    from stridewave import Layout, Tensor

    receiver = CPUExtension(0, dtype=STD["complex128"]).new_like([0j, 0j, 0j])
    source = CPUExtension(0, dtype=STD["int64"]).new_like([7, 8])
    receiver.scatter(
        Tensor(source, Layout((2,))), Tensor(receiver, Layout((3,))), Layout((2,), (2,))
    )
    assert list(receiver) == [7 + 0j, 0j, 8 + 0j] and receiver.version == 1


# -- Metal ---------------------------------------------------------------------------------------


@pytest.mark.needs_mlx
def test_metal_extension_stores_what_mlx_has_on_its_cpu_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STRIDEWAVE_METAL_DEVICE", "cpu")
    stored = metal_storage_dtypes()
    assert STD["complex128"] not in stored and STD["float64"] in stored
    carrier = MetalExtension(2, dtype=STD["float64"])
    carrier[0] = 0.1
    assert list(carrier) == [0.1, 0.0]  # binary64 kept, not narrowed by MLX
    with pytest.raises(ValueError, match="Complex128"):
        MetalExtension(1, dtype=STD["complex128"])
    assert carrier.supports_storage_dtype(STD["complex128"]) is False
