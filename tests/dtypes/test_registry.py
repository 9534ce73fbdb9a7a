"""Spec: "Every dtype has one registered descriptor identity", "Registry discovery is
class-narrowed", "The DType class namespace contains only built-ins"."""

from __future__ import annotations

import subprocess
import sys

import pytest

from stridewave import DType, DTypeCategory, SimpleDType


def test_register_a_descriptor(unique_name: str) -> None:
    before = DType.registered()
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    assert DType.from_name(unique_name) is dt
    assert [d for d in DType.registered() if d.name == unique_name] == [dt]
    assert DType.registered() == (*before, dt)
    assert dt.name == unique_name
    assert dt.value == unique_name
    assert type(dt.name) is str


def test_reject_a_duplicate_name_atomically(unique_name: str) -> None:
    original = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    before = DType.registered()
    with pytest.raises(ValueError, match="already registered"):
        SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    with pytest.raises(ValueError, match="already registered"):
        DTypeCategory(unique_name)
    assert DType.from_name(unique_name) is original
    assert DType.registered() == before


def test_duplicate_of_a_builtin_name_is_refused() -> None:
    before = DType.registered()
    with pytest.raises(ValueError, match="Float32"):
        SimpleDType("Float32", bits=32, supertype=DType.Floating)
    assert DType.registered() == before


@pytest.mark.parametrize("name", ["", None, 3, b"Float16", ("a",)])
def test_empty_or_non_string_name_is_refused(name: object) -> None:
    before = DType.registered()
    with pytest.raises(ValueError, match="non-empty str"):
        SimpleDType(name, bits=16, supertype=DType.Floating)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty str"):
        DTypeCategory(name)  # type: ignore[arg-type]
    assert DType.registered() == before


def test_descriptors_compare_and_hash_by_identity(unique_name: str) -> None:
    a = DTypeCategory(unique_name)
    assert a == DType.from_name(unique_name)
    assert a != DType.Any
    assert a != unique_name
    assert hash(a) == object.__hash__(a)
    assert {a: 1, DType.Any: 2}[a] == 1


def test_discover_extension_dtypes(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=12, supertype=DType.Integer)
    assert dt in DType.registered()
    assert dt in SimpleDType.registered()
    assert dt not in DTypeCategory.registered()
    assert DType.from_name(unique_name) is dt
    assert SimpleDType.from_name(unique_name) is dt


def test_registered_is_an_immutable_snapshot(unique_name: str) -> None:
    snap = DType.registered()
    assert type(snap) is tuple
    SimpleDType(unique_name, bits=8, supertype=DType.Any)
    assert all(d.name != unique_name for d in snap)


def test_registered_is_narrowed_by_class() -> None:
    assert all(type(d) is DTypeCategory or d.is_category() for d in DTypeCategory.registered())
    assert {DType.Any, DType.Floating, DType.Integer} <= set(DTypeCategory.registered())
    assert all(isinstance(d, SimpleDType) for d in SimpleDType.registered())
    assert DType.Float32 in SimpleDType.registered()
    assert DType.Any not in SimpleDType.registered()


def test_reject_a_class_mismatched_lookup() -> None:
    with pytest.raises(LookupError, match="DTypeCategory"):
        SimpleDType.from_name("Floating")
    with pytest.raises(LookupError):
        DTypeCategory.from_name("Float32")


def test_from_name_of_unknown_name_raises_lookup_error(unique_name: str) -> None:
    with pytest.raises(LookupError, match="no dtype named"):
        DType.from_name(unique_name)


@pytest.mark.parametrize("name", [None, 32, b"Float32", DType.Float32])
def test_from_name_of_non_string_raises_type_error(name: object) -> None:
    with pytest.raises(TypeError, match="takes a str"):
        DType.from_name(name)  # type: ignore[arg-type]


def test_from_name_requires_the_exact_name() -> None:
    with pytest.raises(LookupError):
        DType.from_name("float32")
    with pytest.raises(LookupError):
        DType.from_name(" Float32")


def test_register_without_extending_the_class_namespace() -> None:
    # The literal name "Float16" runs in a child process, so that it stays free for
    # other tests of this process.
    code = """
from stridewave import DType, SimpleDType
before = dict(vars(DType))
f16 = SimpleDType("Float16", bits=16, supertype=DType.Floating)
assert DType.from_name("Float16") is f16
assert dict(vars(DType)) == before
try:
    DType.Float16
except AttributeError:
    print("ok")
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok"]


def test_register_extension_leaves_dtype_attributes_unchanged(unique_name: str) -> None:
    before = dict(vars(DType))
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    assert DType.from_name(unique_name) is dt
    assert dict(vars(DType)) == before
    with pytest.raises(AttributeError):
        getattr(DType, unique_name)


def test_assigning_an_extension_as_a_dtype_attribute_fails(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    with pytest.raises(AttributeError):
        DType.Float16 = dt
    with pytest.raises(AttributeError):
        setattr(DType, unique_name, dt)
    assert unique_name not in vars(DType)


@pytest.mark.parametrize("name", ["Float32", "Any", "E2M1"])
def test_reassigning_or_deleting_a_builtin_binding_fails(name: str) -> None:
    original = vars(DType)[name]
    with pytest.raises(AttributeError):
        setattr(DType, name, DType.Int8)
    with pytest.raises(AttributeError):
        delattr(DType, name)
    assert getattr(DType, name) is original


@pytest.mark.parametrize("attr", ["registered", "from_name", "anything_new", "__doc__"])
def test_dtype_class_namespace_is_frozen_entirely(attr: str) -> None:
    with pytest.raises(AttributeError):
        setattr(DType, attr, None)
    with pytest.raises(AttributeError):
        delattr(DType, attr)
