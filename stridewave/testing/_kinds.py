"""The carrier-kind table: how the contract suite builds and inspects each kind.

One :class:`Kind` per carrier kind (and per interesting configuration of one, such as
an evicted :class:`~stridewave.Evictable`): how to make one from values, how to read
its stored values *around* the carrier API, and what it can do. The contract tests
read those capability fields instead of skipping.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from stridewave.carriers import CPU, Carrier, Evictable, FileBacked, Generic, Metal, NpyFile
from stridewave.carriers._mlx_runtime import runtime
from stridewave.dtypes import DType

__all__ = [
    "BUILTIN_KINDS",
    "NPY_FILE_KIND",
    "SAMPLE",
    "ZERO",
    "Kind",
    "available_kinds",
    "builtin_dtypes",
    "fresh_name",
    "raw_values",
]

F32, I32, BOOL = DType.Float32, DType.Int32, DType.Bool

_NP: dict[DType, type[np.generic]] = {F32: np.float32, I32: np.int32, BOOL: np.bool_}

#: Two distinct sample values per storage dtype, the first one non-zero.
SAMPLE: dict[DType, tuple[object, object]] = {
    F32: (1.5, -2.25),
    I32: (7, -3),
    BOOL: (True, False),
}

#: What a fresh slot of each storage dtype reads as.
ZERO: dict[DType, object] = {F32: 0.0, I32: 0, BOOL: False}

Maker = Callable[[Sequence[object], DType, bool], Carrier]


def _always() -> tuple[bool, str]:
    return True, ""


@dataclass(frozen=True)
class Kind:
    """How the contract suite builds and inspects one carrier kind.

    Parameters
    ----------
    name : str
        The kind's name in test ids, e.g. ``"CPU"`` or ``"Evictable(CPU/FileBacked)"``.
    cls : type of Carrier
        The carrier class that ``make`` returns.
    make : callable
        ``make(values, dtype, mutable) -> Carrier``: a live carrier of ``dtype``
        holding exactly ``values`` (a sequence of Python scalars), with
        ``version == 0``.
    raw_values : callable
        ``raw_values(carrier) -> list``: the stored values read around the carrier
        API (a raw pointer, the backing file, the backend's own array), so that the
        suite checks what was stored, not what the API says.
    dtypes : tuple of DType
        The concrete storage dtypes the kind's constructors accept.
    supported : tuple of DType
        Exactly the descriptors for which ``supports_storage_dtype`` is true (the
        spec's "supports_storage_dtype" row for the kind).
    initializes_empty : bool, default True
        Whether ``allocate_like(n, empty=True)`` still reads as zeros.
    scatters : bool, default True
        Whether the kind implements the scatter mutation (FileBacked does not).
    exports_views : bool, default True
        Whether ``numpy.asarray`` gives a zero-copy view that sees later writes
        (Metal exports snapshots).
    pickles_by_reference : bool, default False
        Whether a pickled carrier unpickles onto the same storage (a user's opened
        ``.npy`` file, CONTRACT section 8) instead of a copy of the values.
    marks : tuple of pytest.MarkDecorator, default ()
        The pytest marks of every test of the kind (Metal's: ``needs_mlx``).
    available : callable, default always available
        ``available() -> (bool, why)``, asked when a test of the kind starts: a test
        of an unavailable kind is skipped with ``why`` (Metal without MLX).
    """

    name: str
    cls: type[Carrier]
    make: Maker
    raw_values: Callable[[Carrier], list[object]]
    dtypes: tuple[DType, ...]
    supported: tuple[DType, ...]
    initializes_empty: bool = True
    scatters: bool = True
    exports_views: bool = True
    pickles_by_reference: bool = False
    marks: tuple[pytest.MarkDecorator, ...] = ()
    available: Callable[[], tuple[bool, str]] = _always

    def __repr__(self) -> str:
        return self.name

    def require(self) -> None:
        """Skip the running test, with the reason, where this kind cannot run here.

        Raises
        ------
        pytest.skip.Exception
            If ``available()`` says the kind cannot be built in this process.
        """
        ok, why = self.available()
        if not ok:
            pytest.skip(f"{self.name} cannot run here: {why}")


# -- reading values around the API ----------------------------------------------------


def _raw_via_pointer(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, CPU)
    dtype = carrier.dtype().dtype  # the descriptor's NumPy dtype (extension ones too)
    n = carrier.size()
    buffer = (ctypes.c_char * (n * dtype.itemsize)).from_address(carrier.pointer())
    values: list[object] = np.frombuffer(buffer, dtype=dtype, count=n).tolist()  # type: ignore[call-overload]
    return values


def _raw_generic(carrier: Carrier) -> list[object]:
    values: list[object] = carrier._array.tolist()  # type: ignore[attr-defined]
    return values


def _raw_file(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, FileBacked)
    stored = carrier.dtype().dtype.newbyteorder("<")  # raw little-endian values
    values: list[object] = np.fromfile(carrier.path, dtype=stored).tolist()
    return values


def _raw_mlx(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, Metal)
    values: list[object] = carrier._mx_array.tolist()  # MLX's own read, not the view
    return values


def raw_values(carrier: Carrier) -> list[object]:
    """Read a built-in carrier's stored values around the carrier API.

    Parameters
    ----------
    carrier : Carrier
        A live carrier of a built-in kind; for an :class:`~stridewave.Evictable`,
        the values are read from the tier where they live now.

    Returns
    -------
    list
        The stored values as Python scalars, one per slot.

    Raises
    ------
    TypeError
        If ``carrier`` is of no built-in kind.
    """
    if isinstance(carrier, Evictable):
        tier = carrier.secondary if carrier.is_evicted() else carrier.primary
        return raw_values(tier)
    for cls, read in (
        (NpyFile, _raw_npy),
        (FileBacked, _raw_file),
        (CPU, _raw_via_pointer),
        (Metal, _raw_mlx),
        (Generic, _raw_generic),
    ):
        if isinstance(carrier, cls):
            return read(carrier)
    raise TypeError(f"raw_values reads the built-in kinds only, not {type(carrier).__name__}")


# -- making carriers ---------------------------------------------------------------------


def _fresh(carrier: Carrier) -> Carrier:
    """Forget the set-up writes: the test starts from a carrier at version 0."""
    carrier._version = 0
    return carrier


def _by_writes(cls: type[CPU | Metal]) -> Maker:
    """Return a maker of ``cls`` carriers: mutable ones built by writes, others by new_like."""

    def make(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        if mutable:  # through the constructor and public writes
            carrier = cls(len(values), dtype=dtype)
            for i, v in enumerate(values):
                carrier[i] = v
            return _fresh(carrier)
        return cls(0, dtype=dtype).new_like(values, mutable=False, dtype=dtype)

    return make


def _empty_cpu(dtype: DType) -> Carrier:
    """Return an empty CPU carrier, as an Evictable's secondary starts."""
    return CPU(0, dtype=dtype)


def _empty_file(dtype: DType) -> Carrier:
    """Return an empty FileBacked carrier, as an Evictable's secondary starts."""
    return FileBacked(dtype=dtype)


_NPY_DIR: tempfile.TemporaryDirectory[str] | None = None


def _npy_dir() -> str:
    """Return this process's directory for the .npy files the NpyFile kind maps."""
    global _NPY_DIR
    if _NPY_DIR is None:
        _NPY_DIR = tempfile.TemporaryDirectory(prefix="stridewave-testing-")
        atexit.register(_NPY_DIR.cleanup)
    return _NPY_DIR.name


def _make_npy(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
    """Write ``values`` to a fresh .npy file of the user's and map it."""
    path = os.path.join(_npy_dir(), f"{uuid.uuid4().hex}.npy")
    np.save(path, np.array(values, dtype=_NP[dtype]))
    return NpyFile(path, mode="r+" if mutable else "r")


def _raw_npy(carrier: Carrier) -> list[object]:
    assert isinstance(carrier, NpyFile)
    values: list[object] = np.load(carrier.path, mmap_mode="r").tolist()
    return values


# -- the kinds: one factory per carrier class, its subclasses included -------------------


def _generic_kind(
    cls: type[Generic], dtypes: tuple[DType, ...], supported: tuple[DType, ...]
) -> Kind:
    """Return the kind of ``cls``, a Generic made by its constructor."""

    def make(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return cls(values, dtype=dtype, mutable=mutable)

    return Kind(
        name=cls.__name__,
        cls=cls,
        make=make,
        raw_values=_raw_generic,
        dtypes=dtypes,
        supported=supported,
    )


def _cpu_kind(cls: type[CPU], dtypes: tuple[DType, ...]) -> Kind:
    """Return the kind of ``cls``, a CPU made by writes (empty allocations are not zeroed)."""
    return Kind(
        name=cls.__name__,
        cls=cls,
        make=_by_writes(cls),
        raw_values=_raw_via_pointer,
        dtypes=dtypes,
        supported=dtypes,
        initializes_empty=False,
    )


def _from_numpy_kind(cls: type[CPU], dtypes: tuple[DType, ...]) -> Kind:
    """Return the kind ``cls.from_numpy``: a CPU that wraps a NumPy array of the values."""

    def make(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return cls.from_numpy(np.array(values, dtype=dtype.dtype), mutable=mutable)

    return Kind(
        name=f"{cls.__name__}.from_numpy",
        cls=cls,
        make=make,
        raw_values=_raw_via_pointer,
        dtypes=dtypes,
        supported=dtypes,
        initializes_empty=False,
    )


def _file_kind(
    cls: type[FileBacked], dtypes: tuple[DType, ...], supported: tuple[DType, ...]
) -> Kind:
    """Return the kind of ``cls``, a FileBacked made by new_like; it does not scatter."""

    def make(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        return cls(dtype=dtype).new_like(values, mutable=mutable)

    return Kind(
        name=cls.__name__,
        cls=cls,
        make=make,
        raw_values=_raw_file,
        dtypes=dtypes,
        supported=supported,
        scatters=False,
    )


def _metal_kind(cls: type[Metal], dtypes: tuple[DType, ...]) -> Kind:
    """Return the kind of ``cls``, a Metal made by writes: it needs MLX, exports snapshots."""
    return Kind(
        name=cls.__name__,
        cls=cls,
        make=_by_writes(cls),
        raw_values=_raw_mlx,
        dtypes=dtypes,
        supported=dtypes,
        exports_views=False,
        marks=(pytest.mark.needs_mlx,),
        available=runtime,
    )


def _evictable_kind(
    primary: Kind, secondary: Kind, empty: Callable[[DType], Carrier], *, evicted: bool = False
) -> Kind:
    """Return the kind of an Evictable of ``primary``'s carriers over ``secondary``'s.

    Each carrier's primary comes from ``primary.make``, its secondary from
    ``empty(dtype)``; it starts promoted or, with ``evicted``, evicted (the values in
    the secondary, and ``-evicted`` ends the kind's name). The kind stores the dtypes
    both tiers store and, as an Evictable does, takes from its primary whether empty
    allocations read as zeros, whether exports are views, and where it runs.
    """

    def make(values: Sequence[object], dtype: DType, mutable: bool) -> Carrier:
        carrier = Evictable(primary.make(values, dtype, mutable), empty(dtype))
        if evicted:
            carrier.evict()
        return carrier

    dtypes = tuple(d for d in primary.dtypes if d in secondary.dtypes)
    return Kind(
        name=f"Evictable({primary.name}/{secondary.name})" + ("-evicted" if evicted else ""),
        cls=Evictable,
        make=make,
        raw_values=raw_values,
        dtypes=dtypes,
        supported=dtypes,
        initializes_empty=primary.initializes_empty,
        exports_views=primary.exports_views,
        marks=primary.marks,
        available=primary.available,
    )


_CPU_DTYPES = (F32, I32, BOOL)  # what CPU, Generic and Metal store
_FILE_DTYPES = (F32, I32)  # what FileBacked stores

_GENERIC = _generic_kind(Generic, _CPU_DTYPES, (DType.Any, DType.Floating, *_CPU_DTYPES))
_CPU = _cpu_kind(CPU, _CPU_DTYPES)
_FILE_BACKED = _file_kind(FileBacked, _FILE_DTYPES, (DType.Floating, *_FILE_DTYPES))
_METAL = _metal_kind(Metal, _CPU_DTYPES)

#: Every built-in kind and configuration, Metal included wherever it runs or not (its
#: tests then skip with the reason, through ``Kind.available``).
BUILTIN_KINDS: tuple[Kind, ...] = (
    _GENERIC,
    _CPU,
    _from_numpy_kind(CPU, _CPU_DTYPES),
    _FILE_BACKED,
    _evictable_kind(_CPU, _FILE_BACKED, _empty_file),
    _evictable_kind(_CPU, _FILE_BACKED, _empty_file, evicted=True),
    _evictable_kind(_GENERIC, _CPU, _empty_cpu),
    _evictable_kind(_GENERIC, _CPU, _empty_cpu, evicted=True),
    _METAL,
    _evictable_kind(_METAL, _CPU, _empty_cpu),
    _evictable_kind(_METAL, _CPU, _empty_cpu, evicted=True),
    _evictable_kind(_METAL, _FILE_BACKED, _empty_file, evicted=True),
)


#: A user's ``.npy`` file opened as a carrier (``FileBacked.open``). It passes the
#: contract suite but stays out of :data:`BUILTIN_KINDS` for now: it pickles by
#: reference (CONTRACT section 8), which the project's kind-wide pickling tests do
#: not model yet.
NPY_FILE_KIND: Kind = Kind(
    name="NpyFile",
    cls=NpyFile,
    make=_make_npy,
    raw_values=_raw_npy,
    dtypes=(F32, I32),
    supported=(DType.Floating, F32, I32),
    pickles_by_reference=True,
)


def available_kinds() -> tuple[Kind, ...]:
    """Return the built-in kinds that can run in this process now.

    Asked afresh on each call (``STRIDEWAVE_METAL_DEVICE`` may have been set since).

    Returns
    -------
    tuple of Kind
        :data:`BUILTIN_KINDS` less those whose ``available()`` is false (Metal and
        the Evictables over it where MLX cannot run).
    """
    return tuple(k for k in BUILTIN_KINDS if k.available()[0])


def fresh_name(prefix: str = "T") -> str:
    """Return a descriptor name never registered before.

    Parameters
    ----------
    prefix : str, default "T"
        The name's first characters.

    Returns
    -------
    str
        ``prefix`` followed by an underscore and 32 random hex digits.
    """
    return f"{prefix}_{uuid.uuid4().hex}"


def builtin_dtypes() -> list[DType]:
    """Return every built-in descriptor, categories first.

    Returns
    -------
    list of DType
        The built-in categories and simple dtypes, in a fixed order.
    """
    names = [
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
    return [getattr(DType, n) for n in names]
