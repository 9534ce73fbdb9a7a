"""Spec: "Descriptor structure is canonical and extensible"."""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
import pytest

from stridewave import DType, DTypeCategory, ScaledDType, SimpleDType, Whole

from .conftest import BUILTINS

SCALARS = (str, int, float, type(None))


def assert_canonical(value: object) -> None:
    if type(value) is tuple:
        for item in value:
            assert_canonical(item)
    else:
        assert value is Whole or type(value) in SCALARS, value
        if type(value) is float:
            assert not math.isnan(value)


def contains_word(value: object, word: str) -> bool:
    if type(value) is tuple:
        return any(contains_word(v, word) for v in value)
    return type(value) is str and word in value


@pytest.mark.parametrize("name", list(BUILTINS))
def test_builtin_structures_are_canonical(name: str) -> None:
    s = DType.from_name(name).structure()
    assert type(s) is tuple
    assert_canonical(s)
    assert hash(s) == hash(DType.from_name(name).structure())
    assert s is DType.from_name(name).structure()  # recorded once


def test_structure_includes_referenced_structures() -> None:
    assert DType.Any.structure() == ("category", "Any", None, ())
    assert DType.Floating.structure() == ("category", "Floating", DType.Any.structure(), ())
    assert DType.Float32.structure() == ("simple", "Float32", 32, DType.Floating.structure(), ())


@pytest.mark.parametrize("name", ["Any", "Floating", "Integer"])
def test_record_a_category_without_storage_disposition(name: str) -> None:
    s = DType.from_name(name).structure()
    assert not contains_word(s, "opaque")
    assert not contains_word(s, "storage")
    assert True not in s
    assert False not in s
    assert s[0] == "category"


def test_extension_category_has_no_storage_disposition(unique_name: str) -> None:
    cat = DTypeCategory(unique_name, supertype=DType.Floating)
    s = cat.structure()
    assert s == ("category", unique_name, DType.Floating.structure(), ())
    assert not contains_word(s, "opaque")


def make_ext_class(extension: object) -> type[SimpleDType]:
    class Ext(SimpleDType, abstract=False):
        def structure_extension(self) -> tuple[object, ...]:
            return extension  # type: ignore[return-value]

    return Ext


def test_distinguish_extension_representations(make_name) -> None:  # type: ignore[no-untyped-def]
    a = make_ext_class(("rounding", "nearest"))(make_name(), bits=16, supertype=DType.Floating)
    b = make_ext_class(("rounding", "zero"))(make_name(), bits=16, supertype=DType.Floating)
    assert a.structure()[-1] == ("rounding", "nearest")
    assert b.structure()[-1] == ("rounding", "zero")
    assert a.structure()[2:-1] == b.structure()[2:-1]
    assert a.structure() != b.structure()


def test_default_structure_extension_is_empty(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=8, supertype=DType.Any)
    assert dt.structure_extension() == ()
    assert dt.structure()[-1] == ()


def test_permitted_extension_values_are_recorded(unique_name: str) -> None:
    ext = ("s", 1, -2.5, None, Whole, (("nested", (0, float("inf"))),), ())
    dt = make_ext_class(ext)(unique_name, bits=8, supertype=DType.Any)
    assert dt.structure()[-1] == ext
    assert_canonical(dt.structure())


Point = namedtuple("Point", "x y")


@pytest.mark.parametrize(
    "extension",
    [
        ["list"],
        "str",
        None,
        42,
        Point(1, 2),
        (True,),
        (False,),
        (np.int64(1),),
        (np.float64(1.0),),
        ([1],),
        ({"a": 1},),
        (b"bytes",),
        (1j,),
        ((object(),),),
        (DType.Float32,),
        (Point(1, 2),),
        (float("nan"),),
        (("deep", (float("nan"),)),),
    ],
)
def test_invalid_structure_extension_registers_nothing(unique_name: str, extension: object) -> None:
    cls = make_ext_class(extension)
    before = DType.registered()
    with pytest.raises(TypeError, match="structure_extension"):
        cls(unique_name, bits=8, supertype=DType.Any)
    assert DType.registered() == before
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


def test_nan_extension_is_refused_with_type_error(unique_name: str) -> None:
    cls = make_ext_class((float("nan"),))
    with pytest.raises(TypeError, match="NaN"):
        cls(unique_name, bits=8, supertype=DType.Any)


def test_raising_structure_extension_registers_nothing(unique_name: str) -> None:
    class Boom(SimpleDType, abstract=False):
        def structure_extension(self) -> tuple[object, ...]:
            raise RuntimeError("boom")

    before = DType.registered()
    with pytest.raises(RuntimeError, match="boom"):
        Boom(unique_name, bits=8, supertype=DType.Any)
    assert DType.registered() == before


captured: list[DType] = []


class Capturing(DTypeCategory, abstract=False):
    """Stashes itself during construction so that tests can reach the half-built object."""

    def __init__(self, name: str, *, supertype: DTypeCategory | None = None, fail: bool) -> None:
        super().__init__(name, supertype=supertype)
        captured.append(self)
        if fail:
            raise RuntimeError("construction fails after __init__ stored its fields")


def test_reject_an_unregistered_reference_rejected(make_name) -> None:  # type: ignore[no-untyped-def]
    captured.clear()
    with pytest.raises(RuntimeError):
        Capturing(make_name(), supertype=DType.Any, fail=True)
    rejected = captured.pop()
    assert "rejected" in repr(rejected)
    before = DType.registered()
    name = make_name()
    with pytest.raises(ValueError, match="rejected"):
        DTypeCategory(name, supertype=rejected)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rejected"):
        SimpleDType(name, bits=8, supertype=rejected)  # type: ignore[arg-type]
    assert DType.registered() == before
    with pytest.raises(ValueError):
        rejected.structure()
    with pytest.raises(TypeError):
        __import__("pickle").dumps(rejected)


def test_reject_an_unregistered_reference_unfinished(make_name) -> None:  # type: ignore[no-untyped-def]
    inner = make_name()
    errors: list[BaseException] = []

    class UsesSelf(DTypeCategory, abstract=False):
        def __init__(self, name: str) -> None:
            super().__init__(name, supertype=DType.Any)
            try:
                DTypeCategory(inner, supertype=self)
            except ValueError as exc:
                errors.append(exc)

    outer = UsesSelf(make_name())
    assert len(errors) == 1
    assert "unfinished" in str(errors[0])
    with pytest.raises(LookupError):
        DType.from_name(inner)
    assert outer.is_category()


def test_reject_an_unregistered_reference_unfinished_plane(make_name) -> None:  # type: ignore[no-untyped-def]
    half = SimpleDType.__new__(SimpleDType)
    name = make_name()
    before = DType.registered()
    with pytest.raises(ValueError, match="unfinished"):
        ScaledDType(name, element=half, scale=DType.E8M0, block=32)
    with pytest.raises(ValueError, match="unfinished"):
        ScaledDType(name, element=DType.E4M3, scale=half, block=32)
    assert DType.registered() == before


def test_reject_a_noncanonical_category_supertype(make_name) -> None:  # type: ignore[no-untyped-def]
    forged = DTypeCategory.__new__(DTypeCategory)
    for attr, value in [
        ("_sw_state", "canonical"),
        ("_sw_name", "Floating"),
        ("_sw_supertype", DType.Any),
        ("_sw_structure", DType.Floating.structure()),
    ]:
        object.__setattr__(forged, attr, value)
    from stridewave.dtypes import _model

    object.__setattr__(forged, "_sw_state", _model._CANONICAL)
    assert forged is not DType.Floating
    before = DType.registered()
    name = make_name()
    with pytest.raises(ValueError, match="noncanonical"):
        DTypeCategory(name, supertype=forged)
    with pytest.raises(ValueError, match="noncanonical"):
        SimpleDType(name, bits=8, supertype=forged)
    bare = object.__new__(DTypeCategory)
    with pytest.raises(ValueError):
        DTypeCategory(name, supertype=bare)
    assert DType.registered() == before


def test_subclass_init_must_call_the_model_init(unique_name: str) -> None:
    class Lazy(DTypeCategory, abstract=False):
        def __init__(self, name: str) -> None:
            pass

    before = DType.registered()
    with pytest.raises(TypeError, match=r"super\(\).__init__"):
        Lazy(unique_name)
    assert DType.registered() == before


def test_subclass_fields_feed_the_extension(make_name) -> None:  # type: ignore[no-untyped-def]
    class Posit(SimpleDType, abstract=False):
        def __init__(self, name: str, *, bits: int, es: int) -> None:
            super().__init__(name, bits=bits, supertype=DType.Floating)
            self.es = es

        def structure_extension(self) -> tuple[object, ...]:
            return (("es", self.es),)

    p = Posit(make_name(), bits=16, es=1)
    assert p.es == 1
    assert p.structure()[-1] == (("es", 1),)
    with pytest.raises(AttributeError):
        p.es = 2
    assert p.es == 1


class FailingSimple(SimpleDType, abstract=False):
    """Stashes itself, then fails after the model stored its fields."""

    def __init__(self, name: str) -> None:
        super().__init__(name, bits=8, supertype=DType.Floating)
        captured.append(self)
        raise RuntimeError("late failure")


def test_reject_an_unregistered_reference_rejected_plane(make_name) -> None:  # type: ignore[no-untyped-def]
    captured.clear()
    with pytest.raises(RuntimeError):
        FailingSimple(make_name())
    rejected = captured.pop()
    assert isinstance(rejected, SimpleDType)
    name = make_name()
    before = DType.registered()
    with pytest.raises(ValueError, match="rejected"):
        ScaledDType(name, element=rejected, scale=DType.E8M0, block=32)
    with pytest.raises(ValueError, match="rejected"):
        ScaledDType(name, element=DType.E4M3, scale=rejected, block=32)
    assert DType.registered() == before
    with pytest.raises(LookupError):
        DType.from_name(rejected.name)


def test_duplicate_name_rejects_the_half_built_object(unique_name: str) -> None:
    original = DTypeCategory(unique_name)
    captured.clear()
    with pytest.raises(ValueError, match="already registered"):
        Capturing(unique_name, fail=False)
    assert captured == []  # refused before __init__ finished: the name check runs first
    assert DType.from_name(unique_name) is original
