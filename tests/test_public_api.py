"""The top-level surface is exactly CONTRACT section 1, typed, and documented."""

from __future__ import annotations

import inspect
from pathlib import Path

import stridewave

ROOT = Path(__file__).resolve().parents[1]

CONTRACT_NAMES = {
    # dtype-descriptors
    "DType", "DTypeCategory", "SimpleDType", "CompoundDType", "ScaledDType", "Whole",
    # carrier-storage
    "Carrier", "Generic", "CPU", "Metal", "FileBacked", "Evictable",
    "validate_storage_dtype", "accepts_storage_dtype", "storage_zero",
    # views
    "Layout", "Tensor",
    # interop
    "to_numpy_dtype", "from_numpy_dtype",
}  # fmt: skip


def test_all_is_exactly_the_contract_surface() -> None:
    assert set(stridewave.__all__) - {"__version__"} == CONTRACT_NAMES
    assert len(stridewave.__all__) == len(set(stridewave.__all__))
    for name in stridewave.__all__:
        assert hasattr(stridewave, name), name


def test_package_is_typed() -> None:
    assert (ROOT / "stridewave" / "py.typed").is_file()


def test_every_public_name_has_a_numpydoc_docstring() -> None:
    for name in CONTRACT_NAMES - {"Whole"}:
        doc = inspect.getdoc(getattr(stridewave, name)) or ""
        assert len(doc.splitlines()) > 3, f"{name} has no real docstring"
        if inspect.isfunction(getattr(stridewave, name)):
            assert "Parameters\n----------" in doc, name
            assert "Returns\n-------" in doc, name


def test_every_public_name_is_in_the_api_reference() -> None:
    page = (ROOT / "docs" / "api.md").read_text()
    for name in CONTRACT_NAMES:
        assert f"stridewave.{name}" in page, f"docs/api.md does not document {name}"
