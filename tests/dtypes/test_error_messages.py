"""Errors say what was given, what was expected, and how to fix it."""

from __future__ import annotations

import pytest

from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType


def test_bad_bits_message_names_value_expectation_and_fix(unique_name: str) -> None:
    with pytest.raises(ValueError) as info:
        SimpleDType(unique_name, bits=True, supertype=DType.Floating)
    text = str(info.value)
    assert "True (bool)" in text
    assert "positive int" in text
    assert "bits=16" in text
    assert unique_name in text


def test_non_category_supertype_message(unique_name: str) -> None:
    with pytest.raises(TypeError) as info:
        SimpleDType(unique_name, bits=8, supertype=DType.Float32)  # type: ignore[arg-type]
    text = str(info.value)
    assert "SimpleDType('Float32')" in text
    assert "DTypeCategory" in text
    assert "DType.Floating" in text


def test_duplicate_message_names_existing_and_fix() -> None:
    with pytest.raises(ValueError) as info:
        DTypeCategory("Floating")
    text = str(info.value)
    assert "DTypeCategory('Floating')" in text
    assert "from_name('Floating')" in text


def test_block_message(unique_name: str) -> None:
    with pytest.raises(ValueError) as info:
        ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=0)
    text = str(info.value)
    assert "got 0 (int)" in text
    assert "Whole" in text


def test_class_mismatch_message() -> None:
    with pytest.raises(LookupError) as info:
        SimpleDType.from_name("Floating")
    assert "DType.from_name('Floating')" in str(info.value)


def test_abstract_message_says_how_to_fix() -> None:
    class Mine(SimpleDType):
        pass

    with pytest.raises(TypeError) as info:
        Mine("x", bits=8, supertype=DType.Any)
    assert "abstract=False" in str(info.value)


def test_unknown_name_suggests_the_registered_spelling_and_numpy_mapping() -> None:
    import pytest

    from stridewave import DType

    with pytest.raises(LookupError, match=r"did you mean 'Float32'\?.*from_numpy_dtype"):
        DType.from_name("float32")
