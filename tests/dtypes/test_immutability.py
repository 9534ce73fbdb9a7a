"""Spec: "Published descriptors are immutable"."""

from __future__ import annotations

import copy

import pytest

from stridewave import CompoundDType, DType, DTypeCategory, ScaledDType, SimpleDType

from .conftest import BUILTINS


@pytest.mark.parametrize("attr", ["name", "value", "bits", "supertype", "_sw_name", "extra"])
def test_assigning_or_deleting_descriptor_attributes_fails(attr: str) -> None:
    dt = DType.Float32
    with pytest.raises(AttributeError):
        setattr(dt, attr, "x")
    with pytest.raises(AttributeError):
        delattr(dt, attr)
    assert dt.name == "Float32"
    assert dt.bits == 32
    assert dt.supertype is DType.Floating


def test_extension_instances_are_immutable(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32)
    for attr in ("block", "planes", "element", "_sw_block", "_sw_planes", "new"):
        with pytest.raises(AttributeError):
            setattr(mx, attr, 1)
    assert mx.block == 32


def test_reinitializing_a_descriptor_fails() -> None:
    with pytest.raises(AttributeError, match="immutable"):
        DType.Float32.__init__("Other", bits=8, supertype=DType.Integer)  # type: ignore[misc]
    assert DType.Float32.name == "Float32"
    assert DType.Float32.bits == 32


@pytest.mark.parametrize("name", list(BUILTINS))
def test_preserve_identity_through_copying(name: str) -> None:
    dt = DType.from_name(name)
    assert copy.copy(dt) is dt
    assert copy.deepcopy(dt) is dt
    assert copy.deepcopy({"k": [dt]})["k"][0] is dt


def test_preserve_identity_through_copying_extensions(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32)
    assert copy.copy(mx) is mx
    assert copy.deepcopy(mx) is mx


def test_published_descriptors_are_immutable_and_repr_names_kind_and_name(make_name) -> None:  # type: ignore[no-untyped-def]
    # built-ins too (spec: repr SHALL identify the descriptor kind and registered name)
    assert repr(DType.Float32) == "SimpleDType('Float32')"
    assert repr(DType.Any) == "DTypeCategory('Any')"
    assert repr(DType.E4M3) == "SimpleDType('E4M3')"
    cat = DTypeCategory(make_name())
    simple = SimpleDType(make_name(), bits=16, supertype=DType.Floating)
    mx = ScaledDType(make_name(), element=DType.E4M3, scale=DType.E8M0, block=32)
    assert repr(cat) == f"DTypeCategory({cat.name!r})"
    assert repr(simple) == f"SimpleDType({simple.name!r})"
    assert repr(mx) == f"ScaledDType({mx.name!r})"


@pytest.mark.parametrize(
    "member", ["name", "bits", "simple_types", "structure", "planes", "supertype", "value"]
)
def test_refuse_an_extension_that_shadows_descriptor_identity(member: str) -> None:
    with pytest.raises(TypeError, match=member):
        type("Shadow", (SimpleDType,), {member: property(lambda self: 1)}, abstract=False)
    with pytest.raises(TypeError, match=member):
        type("ShadowAbstract", (DTypeCategory,), {member: 1})


@pytest.mark.parametrize(
    "member",
    [
        "__eq__",
        "__hash__",
        "__repr__",
        "__reduce__",
        "__reduce_ex__",
        "__setattr__",
        "__copy__",
        "__deepcopy__",
        "__new__",
        "is_subtype_of",
        "supertypes",
        "is_simple",
        "registered",
        "from_name",
        "is_opaque_storage",
        "_sw_name",
        "_sw_contract",
        "Float32",
    ],
)
def test_shadowing_other_model_members_fails(member: str) -> None:
    with pytest.raises(TypeError, match="model owns"):
        type("Shadow", (SimpleDType,), {member: lambda self: 1}, abstract=False)


def test_shadowing_through_a_base_class_fails() -> None:
    class Mixin:
        @property
        def bits(self) -> int:
            return 99

    with pytest.raises(TypeError, match=r"through base class \S*Mixin"):

        class Bad(Mixin, SimpleDType, abstract=False):
            pass

    with pytest.raises(TypeError, match="through base class"):

        class Bad2(SimpleDType, Mixin, abstract=False):
            pass


def test_shadowing_compound_accessors_fails() -> None:
    with pytest.raises(TypeError, match="block"):

        class Bad(ScaledDType, abstract=False):
            block = 3

    with pytest.raises(TypeError, match="planes"):

        class Bad2(CompoundDType):
            planes = ()


def test_shadowing_slots_fails() -> None:
    with pytest.raises(TypeError, match="_sw_bits"):

        class Bad(SimpleDType, abstract=False):
            __slots__ = ("_sw_bits",)


def test_allowed_overrides_are_accepted() -> None:
    class Fine(SimpleDType, abstract=False):
        """Docstrings, __init__ and structure_extension belong to the subclass."""

        __slots__ = ("extra",)

        def __init__(self, name: str) -> None:
            super().__init__(name, bits=8, supertype=DType.Any)

        def structure_extension(self) -> tuple[object, ...]:
            return ("fine",)

        def helper(self) -> int:
            return 1

    fine = Fine(f"Fine_{id(Fine)}")
    assert fine.structure()[-1] == ("fine",)
    assert fine.helper() == 1
    assert repr(fine) == f"Fine({fine.name!r})"


@pytest.mark.parametrize("cls", [SimpleDType, DTypeCategory, CompoundDType, ScaledDType])
@pytest.mark.parametrize("member", ["name", "bits", "structure", "registered", "__repr__"])
def test_assigning_or_deleting_model_owned_class_members_fails(cls: type, member: str) -> None:
    original = cls.__dict__.get(member)
    with pytest.raises(AttributeError):
        setattr(cls, member, None)
    with pytest.raises(AttributeError):
        delattr(cls, member)
    assert cls.__dict__.get(member) is original


def test_user_subclass_owned_members_are_protected_later() -> None:
    class Mine(SimpleDType, abstract=False):
        pass

    for member in ("name", "bits", "structure", "simple_types", "is_opaque_storage", "_sw_x"):
        with pytest.raises(AttributeError):
            setattr(Mine, member, property(lambda self: 1))
        with pytest.raises(AttributeError):
            delattr(Mine, member)
    Mine.note = "a user attribute of a user class is fine"
    assert Mine.note == "a user attribute of a user class is fine"  # type: ignore[attr-defined]
    del Mine.note  # type: ignore[attr-defined]


def test_model_classes_are_frozen_entirely() -> None:
    for cls in (DType, DTypeCategory, SimpleDType, CompoundDType, ScaledDType):
        with pytest.raises(AttributeError):
            cls.anything = 1
        assert "anything" not in vars(cls)
