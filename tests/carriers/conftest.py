"""The carrier-kind table: one entry per kind, read by the shared contract suite.

Adding a kind (Evictable, Metal) is one more ``Kind`` entry in ``ALL_KINDS``: how to make
one from values, how to read its raw values without the carrier API, and its
capability flags. Tests read the flags instead of skipping.
"""

from __future__ import annotations

import ctypes
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from stridewave import (
    CPU,
    Carrier,
    DType,
    DTypeCategory,
    Evictable,
    FileBacked,
    Generic,
    Metal,
    ScaledDType,
)

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool

_NP: dict[DType, type[np.generic]] = {F32: np.float32, I32: np.int32, BOOL: np.bool_}


@dataclass(frozen=True)
class Kind:
    """How the contract suite builds and inspects one carrier kind."""

    name: str
    cls: type[Carrier]
    #: make(values, dtype, mutable) -> a live carrier holding exactly ``values``
    make: Callable[[Sequence[object], DType, bool], Carrier]
    #: raw_values(carrier) -> the stored values, read around the carrier API
    raw_values: Callable[[Carrier], list[object]]
    #: the concrete storage dtypes constructors accept
    dtypes: tuple[DType, ...]
    #: the spec's supports_storage_dtype row
    supported: tuple[DType, ...]
    #: allocate_like(empty=True) still zero-initializes
    initializes_empty: bool = True
    #: the kind implements the scatter mutation (FileBacked raises NotImplementedError)
    scatters: bool = True
    #: numpy.asarray gives a zero-copy view that sees later writes (Metal: a snapshot)
    exports_views: bool = True
    #: pytest marks for every test of this kind (Metal: needs_mlx, skipped without mlx)
    marks: tuple[pytest.MarkDecorator, ...] = ()

    def __repr__(self) -> str:
        return self.name


def _raw_via_pointer(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, CPU)
    dtype = np.dtype(_NP[carrier.dtype()])
    n = carrier.size()
    buffer = (ctypes.c_char * (n * dtype.itemsize)).from_address(carrier.pointer())
    values: list[object] = np.frombuffer(buffer, dtype=dtype, count=n).tolist()  # type: ignore[call-overload]
    return values


def _raw_generic(carrier: Carrier) -> list[object]:
    values: list[object] = carrier._array.tolist()  # type: ignore[attr-defined]
    return values


def _raw_file(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, FileBacked)
    codes: dict[DType, str] = {F32: "<f4", I32: "<i4"}
    code = codes[carrier.dtype()]
    values: list[object] = np.fromfile(carrier.path, dtype=code).tolist()
    return values


def _make_cpu(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    if mutable:  # through the constructor and public writes
        carrier = CPU(len(values), dtype=dtype)
        for i, v in enumerate(values):
            carrier[i] = v
        carrier._version = 0  # a fresh carrier: the setup writes are not the test's
        return carrier
    return CPU(0, dtype=dtype).new_like(values, mutable=False, dtype=dtype)


def _make_wrapped(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    array: np.ndarray[Any, Any] = (
        np.array(values, dtype=_NP[dtype]) if values else np.zeros(0, _NP[dtype])
    )
    return CPU.from_numpy(array, mutable=mutable)


def _make_file(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    return FileBacked(dtype=dtype).new_like(values, mutable=mutable)


def _make_evictable_file(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    """CPU over FileBacked, promoted: the primary holds the values."""
    return Evictable(_make_cpu(values, dtype, mutable), FileBacked(dtype=dtype))


def _make_evictable_generic(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    """Generic over CPU, promoted."""
    return Evictable(Generic(values, dtype=dtype, mutable=mutable), CPU(0, dtype=dtype))


def _evicted(
    make: Callable[[Sequence[object], DType, bool], Carrier],
) -> Callable[[Sequence[object], DType, bool], Carrier]:
    """Wrap a maker so that the Evictable starts evicted (values in the secondary)."""

    def make_evicted(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        carrier = make(values, dtype, mutable)
        assert isinstance(carrier, Evictable)
        carrier.evict()
        return carrier

    return make_evicted


def _raw_evictable(carrier: Carrier) -> list[object]:
    """Read the values around the API, from the tier where they live now."""
    assert isinstance(carrier, Evictable)
    tier = carrier.secondary if carrier.is_evicted() else carrier.primary
    if isinstance(tier, FileBacked):
        return _raw_file(tier)
    if isinstance(tier, CPU):
        return _raw_via_pointer(tier)
    if isinstance(tier, Metal):
        return _raw_mlx(tier)
    return _raw_generic(tier)


#: Metal runs wherever mlx imports: on the GPU when MLX has one, else on MLX's CPU
#: device (tests/conftest.py sets STRIDEWAVE_METAL_DEVICE=cpu on GPU-less machines).
def _have_mlx() -> bool:
    try:
        import mlx.core  # noqa: F401
    except ImportError:
        return False
    return True


HAVE_MLX = _have_mlx()
NO_MLX_REASON = 'mlx is not importable here: install "stridewave[mlx]" to test Metal'
needs_mlx = [
    pytest.mark.needs_mlx,
    pytest.mark.skipif(not HAVE_MLX, reason=NO_MLX_REASON),
]


def _raw_mlx(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, Metal)
    values: list[object] = carrier._mx_array.tolist()  # MLX's own read, not the view
    return values


def _make_metal(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    if not HAVE_MLX:  # a safety net for parametrizations that do not read Kind.marks
        pytest.skip(NO_MLX_REASON)
    if mutable:  # through the constructor and public writes
        carrier = Metal(len(values), dtype=dtype)
        for i, v in enumerate(values):
            carrier[i] = v
        carrier._version = 0  # a fresh carrier: the setup writes are not the test's
        return carrier
    return Metal(0, dtype=dtype).new_like(values, mutable=False, dtype=dtype)


def _make_evictable_metal(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    """Metal over CPU, promoted."""
    return Evictable(_make_metal(values, dtype, mutable), CPU(0, dtype=dtype))


def _make_evictable_metal_file(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    """Metal over FileBacked, promoted."""
    return Evictable(_make_metal(values, dtype, mutable), FileBacked(dtype=dtype))


#: every kind, Metal included even where mlx is absent (its tests then skip, with the
#: reason, through ``Kind.marks``)
ALL_KINDS: tuple[Kind, ...] = (
    Kind(
        name="Generic",
        cls=Generic,
        make=lambda values, dtype, mutable: Generic(values, dtype=dtype, mutable=mutable),
        raw_values=_raw_generic,
        dtypes=(F32, I32, BOOL),
        supported=(DType.Any, DType.Floating, F32, I32, BOOL),
    ),
    Kind(
        name="CPU",
        cls=CPU,
        make=_make_cpu,
        raw_values=_raw_via_pointer,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
        initializes_empty=False,
    ),
    Kind(
        name="CPU.from_numpy",
        cls=CPU,
        make=_make_wrapped,
        raw_values=_raw_via_pointer,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
        initializes_empty=False,
    ),
    Kind(
        name="FileBacked",
        cls=FileBacked,
        make=_make_file,
        raw_values=_raw_file,
        dtypes=(F32, I32),
        supported=(DType.Floating, F32, I32),
        scatters=False,
    ),
    Kind(
        name="Evictable(CPU/FileBacked)",
        cls=Evictable,
        make=_make_evictable_file,
        raw_values=_raw_evictable,
        dtypes=(F32, I32),
        supported=(F32, I32),
        initializes_empty=False,
    ),
    Kind(
        name="Evictable(CPU/FileBacked)-evicted",
        cls=Evictable,
        make=_evicted(_make_evictable_file),
        raw_values=_raw_evictable,
        dtypes=(F32, I32),
        supported=(F32, I32),
        initializes_empty=False,
    ),
    Kind(
        name="Evictable(Generic/CPU)",
        cls=Evictable,
        make=_make_evictable_generic,
        raw_values=_raw_evictable,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
    ),
    Kind(
        name="Evictable(Generic/CPU)-evicted",
        cls=Evictable,
        make=_evicted(_make_evictable_generic),
        raw_values=_raw_evictable,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
    ),
    Kind(
        name="Metal",
        cls=Metal,
        make=_make_metal,
        raw_values=_raw_mlx,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
        marks=tuple(needs_mlx),
        exports_views=False,
    ),
    Kind(
        name="Evictable(Metal/CPU)",
        cls=Evictable,
        make=_make_evictable_metal,
        raw_values=_raw_evictable,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
        marks=tuple(needs_mlx),
        exports_views=False,
    ),
    Kind(
        name="Evictable(Metal/CPU)-evicted",
        cls=Evictable,
        make=_evicted(_make_evictable_metal),
        raw_values=_raw_evictable,
        dtypes=(F32, I32, BOOL),
        supported=(F32, I32, BOOL),
        marks=tuple(needs_mlx),
        exports_views=False,
    ),
    Kind(
        name="Evictable(Metal/FileBacked)-evicted",
        cls=Evictable,
        make=_evicted(_make_evictable_metal_file),
        raw_values=_raw_evictable,
        dtypes=(F32, I32),
        supported=(F32, I32),
        marks=tuple(needs_mlx),
        exports_views=False,
    ),
)

#: the kinds that can run here: without mlx, Metal is left out, so that tests which
#: iterate or sample KINDS (scatter properties, cross-kind loops) still run the others
KINDS: tuple[Kind, ...] = tuple(k for k in ALL_KINDS if HAVE_MLX or not k.marks)

#: (kind, dtype) pairs every kind can hold
KIND_DTYPES = [
    pytest.param(k, d, id=f"{k.name}-{d.name}", marks=k.marks) for k in ALL_KINDS for d in k.dtypes
]

#: a sample non-zero value per dtype, and a second distinct one
SAMPLE: dict[DType, tuple[object, object]] = {
    F32: (1.5, -2.25),
    I32: (7, -3),
    BOOL: (True, False),
}
ZERO: dict[DType, object] = {F32: 0.0, I32: 0, BOOL: False}


def fresh_name(prefix: str = "T") -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


@pytest.fixture(params=[pytest.param(k, id=k.name, marks=k.marks) for k in ALL_KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    k: Kind = request.param
    return k


@pytest.fixture(scope="session")
def compound() -> DType:
    """One registered compound dtype (MXFP8-like) for the whole run."""
    return ScaledDType(fresh_name("MX"), element=DType.E4M3, scale=DType.E8M0, block=32)


@pytest.fixture(scope="session")
def extension_category() -> DType:
    """One registered extension category under Floating."""
    return DTypeCategory(fresh_name("Cat"), supertype=DType.Floating)


def builtin_dtypes() -> list[DType]:
    return [
        getattr(DType, n)
        for n in [
            "Any",
            "Floating",
            "Integer",
            "Bool",
            "Int32",
            "Int8",
            "Float32",
            "Float64",
            "E8M0",
            "E5M2",
            "E4M3",
            "E3M2",
            "E2M3",
            "E2M1",
        ]
    ]
