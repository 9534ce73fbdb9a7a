"""Public storage helpers: validate_storage_dtype, accepts_storage_dtype, storage_zero."""

from __future__ import annotations

import pytest

import stridewave
from stridewave import DType, accepts_storage_dtype, storage_zero, validate_storage_dtype

from .conftest import builtin_dtypes

ACCEPTED = (DType.Float32, DType.Int32, DType.Bool)


def test_validate_an_exact_accepted_identity() -> None:
    for dtype in ACCEPTED:
        assert validate_storage_dtype(dtype, carrier="CPU", accepted=ACCEPTED) is dtype


def test_validate_refuses_non_dtype_with_type_error() -> None:
    for junk in (None, "Float32", 1, object()):
        with pytest.raises(TypeError, match="CPU"):
            validate_storage_dtype(junk, carrier="CPU", accepted=ACCEPTED)


def test_validate_refuses_unsupported_simple_with_value_error() -> None:
    with pytest.raises(ValueError, match=r"CPU storage accepts .*Float32.*got DType.Float64"):
        validate_storage_dtype(DType.Float64, carrier="CPU", accepted=ACCEPTED)


def test_validate_refuses_category_with_value_error(extension_category: DType) -> None:
    for category in (DType.Any, DType.Floating, DType.Integer, extension_category):
        with pytest.raises(ValueError, match="category with no storage encoding"):
            validate_storage_dtype(category, carrier="Generic", accepted=ACCEPTED)


def test_validate_compound_identifies_multi_plane_requirement(compound: DType) -> None:
    with pytest.raises(ValueError, match="cannot hold multiple planes") as info:
        validate_storage_dtype(compound, carrier="CPU", accepted=ACCEPTED)
    assert "compound" in str(info.value)
    assert "deferred" in str(info.value)


def test_validate_accepts_a_compound_listed_explicitly(compound: DType) -> None:
    assert validate_storage_dtype(compound, carrier="X", accepted=(compound,)) is compound


def test_accepts_storage_dtype_is_identity_based() -> None:
    class Equalish:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    assert accepts_storage_dtype(DType.Float32, ACCEPTED) is True
    assert accepts_storage_dtype(DType.Float64, ACCEPTED) is False
    assert accepts_storage_dtype(Equalish(), ACCEPTED) is False
    assert accepts_storage_dtype(DType.Float32, ()) is False
    assert accepts_storage_dtype("Float32", ACCEPTED) is False


def test_obtain_a_concrete_storage_zero() -> None:
    assert storage_zero(DType.Bool) is False
    zero_f = storage_zero(DType.Float32)
    assert zero_f == 0.0 and type(zero_f) is float
    zero_i = storage_zero(DType.Int32)
    assert zero_i == 0 and type(zero_i) is int


def test_storage_zero_is_none_without_a_stored_zero(compound: DType) -> None:
    for dtype in builtin_dtypes():
        if dtype not in (DType.Float32, DType.Int32, DType.Bool):
            assert storage_zero(dtype) is None, dtype
    assert storage_zero(compound) is None


def test_storage_zero_refuses_non_dtype() -> None:
    with pytest.raises(TypeError):
        storage_zero("Float32")  # type: ignore[arg-type]


def test_helpers_are_public() -> None:
    for name in (
        "Carrier",
        "Generic",
        "CPU",
        "FileBacked",
        "validate_storage_dtype",
        "accepts_storage_dtype",
        "storage_zero",
    ):
        assert name in stridewave.__all__
        assert getattr(stridewave, name) is getattr(stridewave.carriers, name)


def test_accepted_must_be_a_tuple_so_an_endless_iterable_cannot_hang() -> None:
    import itertools

    import pytest

    from stridewave import DType, accepts_storage_dtype, validate_storage_dtype

    endless = itertools.repeat(DType.Int32)
    with pytest.raises(TypeError, match="accepted must be a tuple"):
        accepts_storage_dtype(DType.Float32, endless)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="accepted must be a tuple"):
        validate_storage_dtype(DType.Float32, carrier="X", accepted=[DType.Float32])  # type: ignore[arg-type]
    assert accepts_storage_dtype(DType.Float32, (DType.Int32, DType.Float32))


def test_the_accepted_check_comes_first_and_names_the_list() -> None:
    # A list instead of a tuple is the caller's mistake to name, whatever dtype is.
    for dtype in ("junk", None, DType.Float32, DType.Float64):
        with pytest.raises(TypeError, match="accepted must be a tuple") as info:
            validate_storage_dtype(dtype, carrier="X", accepted=[DType.Float32])  # type: ignore[arg-type]
        assert "got list" in str(info.value)
        assert "tuple(" in str(info.value)
    with pytest.raises(TypeError, match="accepted must be a tuple") as info:
        accepts_storage_dtype("junk", {DType.Float32})  # type: ignore[arg-type]
    assert "got set" in str(info.value)


# -- each refusal names what was given and where (kills the mutants of docs/testing.md) --


def test_a_non_dtype_is_named_with_its_type_and_the_carrier() -> None:
    with pytest.raises(TypeError) as info:
        validate_storage_dtype("Float32", carrier="CPU", accepted=ACCEPTED)
    message = str(info.value)
    assert "CPU storage" in message and "'Float32'" in message and "str" in message
    with pytest.raises(TypeError) as info:
        storage_zero("Float32")  # type: ignore[arg-type]
    message = str(info.value)
    assert "storage_zero" in message and "'Float32'" in message and "str" in message
    # the function is named as it is spelled (kills storage_zero 8, "XXstorage_zeroXX")
    assert message.startswith("storage_zero expects dtype to be a stridewave DType"), message


def test_a_category_or_compound_refusal_names_the_dtype_and_the_carrier(
    compound: DType, extension_category: DType
) -> None:
    for dtype, carrier in ((compound, "CPU"), (extension_category, "Generic")):
        with pytest.raises(ValueError) as info:
            validate_storage_dtype(dtype, carrier=carrier, accepted=ACCEPTED)
        message = str(info.value)
        assert f"{carrier} storage" in message, message
        assert repr(dtype) in message, message
        assert "None" not in message, message
