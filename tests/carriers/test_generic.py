"""Behaviour unique to Generic: construction from values, keyword-only dtype."""

from __future__ import annotations

import pytest

from stridewave import DType, Generic

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool


def test_construct_with_an_explicit_concrete_dtype() -> None:
    carrier = Generic([0.1, 2, 3.5], dtype=F32)
    assert carrier.dtype() is F32
    assert list(carrier) == [pytest.approx(0.1), 2.0, 3.5]
    assert carrier[0] == 0.10000000149011612  # binary32-exact Python float
    assert all(type(v) is float for v in carrier)


def test_require_the_keyword_only_dtype() -> None:
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'dtype'"):
        Generic([1.0])  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional argument"):
        Generic([1.0], F32)  # type: ignore[call-arg, arg-type]


def test_own_concrete_input_storage() -> None:
    values = [1, 2, 3]
    carrier = Generic(values, dtype=I32)
    values[0] = 100
    values.append(4)
    assert list(carrier) == [1, 2, 3]


def test_reject_category_backed_generic_storage(extension_category: DType) -> None:
    for category in (DType.Any, DType.Floating, DType.Integer, extension_category):
        with pytest.raises(ValueError, match="category"):
            Generic([], dtype=category)


def test_reject_other_encodings(compound: DType) -> None:
    with pytest.raises(ValueError, match="Generic storage accepts"):
        Generic([], dtype=DType.Float64)
    with pytest.raises(ValueError, match="multiple planes"):
        Generic([], dtype=compound)
    with pytest.raises(TypeError):
        Generic([], dtype="Float32")  # type: ignore[arg-type]


def test_values_must_be_iterable_and_valid() -> None:
    with pytest.raises(TypeError, match="iterable"):
        Generic(5, dtype=I32)
    with pytest.raises(TypeError):
        Generic([1, 1.5], dtype=I32)
    with pytest.raises(OverflowError):
        Generic([2**31], dtype=I32)
    with pytest.raises(TypeError):
        Generic([1], dtype=BOOL)


def test_generator_is_consumed_once() -> None:
    carrier = Generic((i * 2 for i in range(4)), dtype=I32)
    assert list(carrier) == [0, 2, 4, 6]


def test_generic_allocate_like_initializes_even_when_empty() -> None:
    fresh = Generic([True], dtype=BOOL).allocate_like(3, empty=True)
    assert isinstance(fresh, Generic)
    assert list(fresh) == [False, False, False]


def test_supports_table_includes_categories_but_constructors_refuse_them() -> None:
    carrier = Generic([], dtype=F32)
    assert carrier.supports_storage_dtype(DType.Any)
    assert carrier.supports_storage_dtype(DType.Floating)
    with pytest.raises(ValueError):
        carrier.new_like([], dtype=DType.Floating)
