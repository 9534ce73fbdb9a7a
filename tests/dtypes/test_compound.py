"""CONTRACT section 2, "Compound dtypes" and "Whole": CompoundDType, ScaledDType, Whole."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from stridewave import CompoundDType, DType, DTypeCategory, ScaledDType, SimpleDType, Whole
from stridewave.dtypes import WholeType


class Pair(CompoundDType, abstract=False):
    """A user compound kind: a concrete CompoundDType with plain planes."""


def test_compound_dtype_is_abstract(unique_name: str) -> None:
    before = DType.registered()
    with pytest.raises(TypeError, match="abstract"):
        CompoundDType(unique_name, planes=(DType.E4M3, DType.E8M0), supertype=DType.Floating)
    assert DType.registered() == before


def test_no_compound_dtype_is_registered_at_import() -> None:
    import subprocess
    import sys

    code = "import stridewave as sw; print(len(sw.CompoundDType.registered()))"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"


def test_scaled_dtype_models_mxfp8(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32)
    assert mx.is_compound()
    assert not mx.is_simple()
    assert not mx.is_category()
    assert mx.planes == (DType.E4M3, DType.E8M0)
    assert mx.simple_types == (DType.E4M3, DType.E8M0)
    assert mx.element is DType.E4M3
    assert mx.scale is DType.E8M0
    assert mx.block == 32
    assert mx.supertype is DType.Floating
    assert mx.supertypes() == (DType.Floating, DType.Any)
    assert mx in CompoundDType.registered()
    assert mx in ScaledDType.registered()
    assert mx not in SimpleDType.registered()
    assert ScaledDType.from_name(unique_name) is mx
    assert not hasattr(mx, "bits")


def test_scaled_dtype_structure_records_element_scale_and_block(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32)
    s = mx.structure()
    planes = s[4]
    assert isinstance(planes, tuple)
    assert s[0] == "compound"
    assert s[1] == unique_name
    assert ("element", DType.E4M3.structure()) in planes
    assert ("scale", DType.E8M0.structure()) in planes
    assert ("block", 32) in planes
    assert s[3] == DType.Floating.structure()


def test_scaled_dtype_with_whole_block(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.E2M1, scale=DType.Float32, block=Whole)
    assert mx.block is Whole
    planes = mx.structure()[4]
    assert isinstance(planes, tuple)
    assert ("block", Whole) in planes
    assert pickle.loads(pickle.dumps(mx)) is mx


def test_scaled_dtype_with_the_same_plane_twice(unique_name: str) -> None:
    mx = ScaledDType(unique_name, element=DType.Float32, scale=DType.Float32, block=4)
    assert mx.planes == (DType.Float32, DType.Float32)
    assert mx.simple_types == (DType.Float32,)


def test_scaled_dtype_with_custom_supertype(make_name) -> None:  # type: ignore[no-untyped-def]
    cat = DTypeCategory(make_name(), supertype=DType.Floating)
    mx = ScaledDType(make_name(), element=DType.E5M2, scale=DType.E8M0, block=16, supertype=cat)
    assert mx.supertypes() == (cat, DType.Floating, DType.Any)


@pytest.mark.parametrize("block", [0, -32, True, False, 32.0, "32", None, np.True_])
def test_scaled_dtype_refuses_invalid_block(unique_name: str, block: object) -> None:
    before = DType.registered()
    with pytest.raises(ValueError, match="block"):
        ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=block)  # type: ignore[arg-type]
    assert DType.registered() == before


@pytest.mark.parametrize("bad", [DType.Floating, "E4M3", None, np.float32])
def test_scaled_dtype_refuses_non_simple_planes(unique_name: str, bad: object) -> None:
    before = DType.registered()
    with pytest.raises(TypeError, match="element"):
        ScaledDType(unique_name, element=bad, scale=DType.E8M0, block=32)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scale"):
        ScaledDType(unique_name, element=DType.E4M3, scale=bad, block=32)  # type: ignore[arg-type]
    assert DType.registered() == before


@pytest.mark.parametrize("bad", [DType.Float32, "Floating", None])
def test_scaled_dtype_refuses_non_category_supertype(unique_name: str, bad: object) -> None:
    before = DType.registered()
    with pytest.raises(TypeError, match="DTypeCategory"):
        ScaledDType(unique_name, element=DType.E4M3, scale=DType.E8M0, block=32, supertype=bad)  # type: ignore[arg-type]
    assert DType.registered() == before


def test_user_compound_kind(unique_name: str) -> None:
    pair = Pair(
        unique_name, planes=(DType.Float32, DType.Int32, DType.Float32), supertype=DType.Any
    )
    assert pair.is_compound()
    assert pair.planes == (DType.Float32, DType.Int32, DType.Float32)
    assert pair.simple_types == (DType.Float32, DType.Int32)
    assert pair.structure()[4] == ()


@pytest.mark.parametrize(
    ("planes", "error"),
    [
        ((DType.Float32,), ValueError),
        ((), ValueError),
        ([DType.Float32, DType.Int32], TypeError),
        ((DType.Float32, DType.Floating), TypeError),
        ((DType.Float32, "Int32"), TypeError),
        (None, TypeError),
    ],
)
def test_compound_planes_are_validated(unique_name: str, planes: object, error: type) -> None:
    before = DType.registered()
    with pytest.raises(error):
        Pair(unique_name, planes=planes, supertype=DType.Any)  # type: ignore[arg-type]
    assert DType.registered() == before


def test_whole_is_a_singleton_sentinel() -> None:
    assert repr(Whole) == "Whole"
    assert WholeType() is Whole
    assert copy.copy(Whole) is Whole
    assert copy.deepcopy(Whole) is Whole
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(Whole, protocol=protocol)) is Whole
    with pytest.raises(TypeError):

        class MoreWhole(WholeType):
            pass
