"""Spec: "Simple dtypes declare one exact positive width"."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from stridewave import DType, DTypeCategory, SimpleDType


def test_construct_a_simple_extension() -> None:
    # The literal name "Float16" runs in a child process to keep it free here.
    code = """
from stridewave import DType, SimpleDType
f16 = SimpleDType("Float16", bits=16, supertype=DType.Floating)
assert DType.from_name("Float16") is f16 and SimpleDType.from_name("Float16") is f16
assert f16.is_simple() and f16.bits == 16
assert f16.supertypes() == (DType.Floating, DType.Any)
assert f16.is_subtype_of(DType.Floating) and f16.is_subtype_of(DType.Any)
print("ok")
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok"]


def test_construct_a_simple_extension_in_process(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=16, supertype=DType.Floating)
    assert DType.from_name(unique_name) is dt
    assert dt.is_simple()
    assert dt.bits == 16
    assert dt.supertypes() == (DType.Floating, DType.Any)


@pytest.mark.parametrize("bits", [True, False, 0, -1, -64, 8.0, 16.5, "16", None, np.True_])
def test_reject_an_invalid_width(unique_name: str, bits: object) -> None:
    before = DType.registered()
    with pytest.raises(ValueError, match="positive int"):
        SimpleDType(unique_name, bits=bits, supertype=DType.Floating)  # type: ignore[arg-type]
    assert DType.registered() == before
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


def test_numpy_integer_width_is_accepted_as_exact_int(unique_name: str) -> None:
    dt = SimpleDType(unique_name, bits=np.int64(16), supertype=DType.Floating)
    assert dt.bits == 16
    assert type(dt.bits) is int


def test_invalid_width_is_checked_before_supertype(unique_name: str) -> None:
    with pytest.raises(ValueError):
        SimpleDType(unique_name, bits=0, supertype=None)  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


def test_supertype_is_required(unique_name: str) -> None:
    with pytest.raises(TypeError):
        SimpleDType(unique_name, bits=8)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        SimpleDType(unique_name, bits=8, supertype=None)  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        DType.from_name(unique_name)


def test_simple_stays_simple_without_carrier_support(unique_name: str) -> None:
    odd = SimpleDType(unique_name, bits=3, supertype=DType.Integer)
    assert odd.is_simple()
    assert odd.bits == 3


def test_simple_under_extension_category(make_name) -> None:  # type: ignore[no-untyped-def]
    cat = DTypeCategory(make_name(), supertype=DType.Floating)
    dt = SimpleDType(make_name(), bits=16, supertype=cat)
    assert dt.supertypes() == (cat, DType.Floating, DType.Any)
