"""CONTRACT section 2, "NumPy mapping": to_numpy_dtype / from_numpy_dtype."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from stridewave import (
    DType,
    DTypeCategory,
    ScaledDType,
    SimpleDType,
    from_numpy_dtype,
    to_numpy_dtype,
)

MAPPING = {
    "Bool": np.bool_,
    "Int8": np.int8,
    "Int32": np.int32,
    "Float32": np.float32,
    "Float64": np.float64,
    "E8M0": ml_dtypes.float8_e8m0fnu,
    "E5M2": ml_dtypes.float8_e5m2,
    "E4M3": ml_dtypes.float8_e4m3fn,
    "E3M2": ml_dtypes.float6_e3m2fn,
    "E2M3": ml_dtypes.float6_e2m3fn,
    "E2M1": ml_dtypes.float4_e2m1fn,
}
MICROSCALING = {"E8M0", "E5M2", "E4M3", "E3M2", "E2M3", "E2M1"}


@pytest.mark.parametrize(("name", "np_type"), list(MAPPING.items()))
def test_to_numpy_dtype_maps_each_builtin_simple(name: str, np_type: type) -> None:
    result = to_numpy_dtype(DType.from_name(name))
    assert isinstance(result, np.dtype)
    assert result == np.dtype(np_type)
    assert result.type is np_type


@pytest.mark.parametrize(("name", "np_type"), list(MAPPING.items()))
def test_from_numpy_dtype_is_the_inverse(name: str, np_type: type) -> None:
    assert from_numpy_dtype(np_type) is DType.from_name(name)
    assert from_numpy_dtype(np.dtype(np_type)) is DType.from_name(name)


@pytest.mark.parametrize(("name", "np_type"), list(MAPPING.items()))
def test_bits_equal_the_mapped_width(name: str, np_type: type) -> None:
    dt = DType.from_name(name)
    assert isinstance(dt, SimpleDType)
    if name in MICROSCALING:
        assert dt.bits == ml_dtypes.finfo(np_type).bits  # type: ignore[no-untyped-call]
    else:
        assert dt.bits == np.dtype(np_type).itemsize * 8


def test_every_builtin_simple_is_mapped() -> None:
    builtins = [d for d in SimpleDType.registered() if vars(DType).get(d.name) is d]
    assert {d.name for d in builtins} == set(MAPPING)


@pytest.mark.parametrize("name", ["Any", "Floating", "Integer"])
def test_categories_have_no_numpy_dtype(name: str) -> None:
    with pytest.raises(ValueError, match="category"):
        to_numpy_dtype(DType.from_name(name))


def test_extension_category_has_no_numpy_dtype(unique_name: str) -> None:
    with pytest.raises(ValueError, match="category"):
        to_numpy_dtype(DTypeCategory(unique_name))


def test_compound_has_no_numpy_dtype(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32)
    with pytest.raises(ValueError, match="compound"):
        to_numpy_dtype(mx)


def test_simple_extension_has_no_numpy_dtype(unique_name: str) -> None:
    with pytest.raises(ValueError, match="extension"):
        to_numpy_dtype(SimpleDType(unique_name, bits=16, supertype=DType.Floating))


@pytest.mark.parametrize("value", [None, "Float32", np.float32, 3])
def test_to_numpy_dtype_of_non_dtype_raises_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="takes a DType"):
        to_numpy_dtype(value)  # type: ignore[arg-type]


# NumPy dtypes that no descriptor maps, whatever is registered (the standard's int64,
# complex64 or int16 map once registered: tests/dtypes/test_standard_dtypes.py; float16
# and bfloat16 once the array API namespace registered its half-precision dtypes:
# tests/array_api/test_half_precision_dtypes_beyond_the_standard.py).
@pytest.mark.parametrize("value", [np.longdouble, "U3", ">f4", ">i2", "M8[s]", "S4"])
def test_from_numpy_dtype_of_unmapped_dtype_raises_value_error(value: object) -> None:
    with pytest.raises(ValueError, match="has no StrideWeave dtype"):
        from_numpy_dtype(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, object(), DType.Any, 3.5])
def test_from_numpy_dtype_of_non_dtype_like_raises_type_error(value: object) -> None:
    with pytest.raises(TypeError, match=r"dtype-like|no NumPy dtype"):
        from_numpy_dtype(value)  # type: ignore[arg-type]


def test_a_mapped_descriptor_is_dtype_like_and_maps_back_to_itself() -> None:
    # CONTRACT section 8: a simple descriptor with a NumPy mapping is a NumPy dtype-like.
    assert from_numpy_dtype(DType.Float32) is DType.Float32
    assert from_numpy_dtype(DType.E4M3) is DType.E4M3


def test_from_numpy_dtype_accepts_strings() -> None:
    assert from_numpy_dtype("float32") is DType.Float32
    assert from_numpy_dtype("int8") is DType.Int8
    assert from_numpy_dtype("bool") is DType.Bool


def test_from_numpy_dtype_refuses_an_arbitrary_class_with_type_error() -> None:
    import pytest

    import stridewave as sw

    for cls in (dict, sw.CPU, sw.Layout):
        with pytest.raises(TypeError, match="not one"):
            sw.from_numpy_dtype(cls)
    with pytest.raises(ValueError, match="no StrideWeave dtype"):
        sw.from_numpy_dtype(object)
    assert sw.from_numpy_dtype(float) is sw.DType.Float64
