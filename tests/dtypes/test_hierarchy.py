"""Spec: "Descriptor kinds and hierarchy are explicit", "The built-in descriptor graph is
stable", "Categories describe hierarchy relationships"."""

from __future__ import annotations

import pytest

from stridewave import CompoundDType, DType, DTypeCategory, SimpleDType

from .conftest import BUILTINS


def test_query_a_hierarchy() -> None:
    f32 = DType.Float32
    assert f32.is_simple()
    assert not f32.is_category()
    assert not f32.is_compound()
    assert f32.supertype is DType.Floating
    assert f32.supertypes() == (DType.Floating, DType.Any)
    assert f32.is_subtype_of(DType.Floating)
    assert f32.is_subtype_of(DType.Any)
    assert f32.is_subtype_of(f32)
    assert not f32.is_subtype_of(DType.Integer)
    assert not f32.is_subtype_of(DType.Float64)


@pytest.mark.parametrize("other", [None, "Floating", 3, DTypeCategory, object()])
def test_reject_a_non_descriptor_subtype_query(other: object) -> None:
    with pytest.raises(TypeError, match="takes a DType"):
        DType.Float32.is_subtype_of(other)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(BUILTINS))
def test_observe_removal_of_the_opaque_storage_query(name: str) -> None:
    dt = DType.from_name(name)
    with pytest.raises(AttributeError, match="removed"):
        dt.is_opaque_storage  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        dt.is_opaque_storage()  # type: ignore[attr-defined]
    assert not hasattr(dt, "is_opaque_storage")
    assert not hasattr(type(dt), "is_opaque_storage")
    assert not hasattr(DType, "is_opaque_storage")


def test_opaque_storage_query_absent_on_extensions(unique_name: str) -> None:
    cat = DTypeCategory(unique_name, supertype=DType.Any)
    assert not hasattr(cat, "is_opaque_storage")


@pytest.mark.parametrize(("name", "spec"), list(BUILTINS.items()))
def test_builtin_graph_is_exact(
    name: str, spec: tuple[type[DType], int | None, str | None]
) -> None:
    kind, bits, supertype = spec
    dt = getattr(DType, name)
    assert type(dt) is kind
    assert dt.name == name
    if bits is None:
        assert dt.is_category()
        assert not hasattr(dt, "bits")
    else:
        assert dt.is_simple()
        assert isinstance(dt, SimpleDType)
        assert dt.bits == bits
        assert type(dt.bits) is int
    assert dt.supertype is (None if supertype is None else getattr(DType, supertype))


def test_builtin_set_is_exact() -> None:
    builtins = {n for n in vars(DType) if isinstance(vars(DType)[n], DType)}
    assert builtins == set(BUILTINS)
    assert [d.name for d in DType.registered()[: len(BUILTINS)]] == list(BUILTINS)
    assert not any(isinstance(v, CompoundDType) for v in vars(DType).values())


def test_any_is_the_root() -> None:
    assert DType.Any.supertype is None
    assert DType.Any.supertypes() == ()
    assert DType.Floating.supertypes() == (DType.Any,)
    assert DType.Integer.supertypes() == (DType.Any,)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_resolve_a_built_in_through_both_surfaces(name: str) -> None:
    assert getattr(DType, name) is DType.from_name(name)


def test_resolve_float32_through_both_surfaces() -> None:
    assert DType.Float32 is DType.from_name("Float32")


def test_retain_categories_as_extension_supertypes(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    assert dt.supertypes() == (DType.Floating, DType.Any)
    assert dt.is_subtype_of(DType.Floating)
    assert dt.is_subtype_of(DType.Any)


def test_construct_a_category_extension(make_name) -> None:  # type: ignore[no-untyped-def]
    parent = DTypeCategory(make_name(), supertype=DType.Floating)
    child = DTypeCategory(make_name(), supertype=parent)
    assert child.is_category()
    assert not child.is_simple()
    assert not child.is_compound()
    assert DType.from_name(child.name) is child
    assert child.supertypes() == (parent, DType.Floating, DType.Any)
    assert child.is_subtype_of(DType.Floating)
    root = DTypeCategory(make_name())
    assert root.supertype is None
    assert not root.is_subtype_of(DType.Any)


def test_reject_the_removed_storage_disposition(unique_name: str) -> None:
    before = DType.registered()
    for flag in (True, False):
        with pytest.raises(TypeError, match="unexpected keyword argument 'opaque_storage'"):
            DTypeCategory(unique_name, supertype=DType.Any, opaque_storage=flag)  # type: ignore[call-arg]
    assert DType.registered() == before
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


@pytest.mark.parametrize("supertype", [DType.Float32, "Any", 3, object(), DTypeCategory, True])
def test_reject_a_non_category_supertype(unique_name: str, supertype: object) -> None:
    before = DType.registered()
    with pytest.raises(TypeError, match="DTypeCategory"):
        DTypeCategory(unique_name, supertype=supertype)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="DTypeCategory"):
        SimpleDType(unique_name, bits=8, supertype=supertype)  # type: ignore[arg-type]
    assert DType.registered() == before


def test_category_supertype_is_keyword_only(unique_name: str) -> None:
    with pytest.raises(TypeError):
        DTypeCategory(unique_name, DType.Any)  # type: ignore[call-arg]
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


@pytest.mark.parametrize("cls", [DType, CompoundDType])
def test_abstract_classes_refuse_instantiation(cls: type, unique_name: str) -> None:
    before = DType.registered()
    with pytest.raises(TypeError, match="abstract"):
        cls(unique_name)
    assert DType.registered() == before


def test_subclass_is_abstract_unless_declared_concrete(make_name) -> None:  # type: ignore[no-untyped-def]
    class StillAbstract(SimpleDType):
        pass

    class Concrete(SimpleDType, abstract=False):
        pass

    class AbstractAgain(Concrete, abstract=True):
        pass

    with pytest.raises(TypeError, match="abstract"):
        StillAbstract(make_name(), bits=8, supertype=DType.Any)
    with pytest.raises(TypeError, match="abstract"):
        AbstractAgain(make_name(), bits=8, supertype=DType.Any)
    dt = Concrete(make_name(), bits=8, supertype=DType.Any)
    assert dt.is_simple()
    assert dt in SimpleDType.registered()
    assert dt in Concrete.registered()
    assert Concrete.from_name(dt.name) is dt


def test_concrete_subclass_must_be_one_kind() -> None:
    with pytest.raises(TypeError, match="exactly one of"):

        class Bare(DType, abstract=False):
            pass

    with pytest.raises(TypeError, match="exactly one of"):

        class Both(SimpleDType, DTypeCategory, abstract=False):
            pass


def test_abstract_keyword_must_be_bool() -> None:
    with pytest.raises(TypeError, match="True or False"):

        class Odd(SimpleDType, abstract=0):
            pass
