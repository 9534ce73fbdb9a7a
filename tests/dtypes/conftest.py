"""Fixtures for the dtype-descriptor tests.

Nothing can be unregistered, so every test registers under fresh uuid-based names, and
an autouse guard checks after each test that the built-in graph is intact.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from stridewave import DType, DTypeCategory, SimpleDType

# name -> (kind class, bits or None, supertype name or None)
BUILTINS: dict[str, tuple[type[DType], int | None, str | None]] = {
    "Any": (DTypeCategory, None, None),
    "Floating": (DTypeCategory, None, "Any"),
    "Integer": (DTypeCategory, None, "Any"),
    "Bool": (SimpleDType, 8, "Any"),
    "Int32": (SimpleDType, 32, "Integer"),
    "Int8": (SimpleDType, 8, "Integer"),
    "Float32": (SimpleDType, 32, "Floating"),
    "Float64": (SimpleDType, 64, "Floating"),
    "E8M0": (SimpleDType, 8, "Floating"),
    "E5M2": (SimpleDType, 8, "Floating"),
    "E4M3": (SimpleDType, 8, "Floating"),
    "E3M2": (SimpleDType, 6, "Floating"),
    "E2M3": (SimpleDType, 6, "Floating"),
    "E2M1": (SimpleDType, 4, "Floating"),
}


def fresh_name(prefix: str = "T") -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


@pytest.fixture
def unique_name() -> str:
    """A name never registered before in this process."""
    return fresh_name()


@pytest.fixture
def make_name() -> Callable[[], str]:
    """A factory of names never registered before, for tests that need several."""
    return fresh_name


def check_builtin_graph() -> None:
    public = {n for n in vars(DType) if not n.startswith("_")}
    for name, (kind, bits, supertype) in BUILTINS.items():
        obj = vars(DType)[name]
        assert type(obj) is kind, name
        assert DType.from_name(name) is obj
        assert obj.name == name
        if bits is not None:
            assert isinstance(obj, SimpleDType)
            assert obj.bits == bits
        expected = None if supertype is None else vars(DType)[supertype]
        assert obj.supertype is expected
    assert set(BUILTINS) <= public
    # Only the built-ins and the model's own methods live in the DType namespace.
    extra = public - set(BUILTINS) - _MODEL_PUBLIC
    assert not extra, extra


_MODEL_PUBLIC = {n for n in vars(DType) if not n.startswith("_")} - set(BUILTINS)


@pytest.fixture(autouse=True)
def _builtin_graph_guard() -> Iterator[None]:
    snapshot = dict(vars(DType))
    yield
    check_builtin_graph()
    assert dict(vars(DType)) == snapshot
