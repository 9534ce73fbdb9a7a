"""The array API standard's thirteen dtypes as descriptors, registered on request.

Five are built-ins of the dtype spec (``Bool``, ``Int8``, ``Int32``, ``Float32``,
``Float64``); the other eight are simple extension descriptors, with one extension
category::

    Any
    ├── Integer
    │   ├── Int16      simple, 16 bits
    │   ├── Int64      simple, 64 bits
    │   ├── UInt8      simple,  8 bits   (unsigned: still beneath Integer)
    │   ├── UInt16     simple, 16 bits
    │   ├── UInt32     simple, 32 bits
    │   └── UInt64     simple, 64 bits
    └── Complex        category (an extension; never beneath Floating)
        ├── Complex64  simple, 64 bits   two binary32 parts
        └── Complex128 simple, 128 bits  two binary64 parts

Beyond the standard, two half-precision floating dtypes are registered the same way by
:func:`register_half_dtypes` (CONTRACT section 9, version 3, "Beyond the standard")::

    Any
    └── Floating
        ├── Float16    simple, 16 bits   IEEE binary16 (NumPy float16, MLX float16)
        └── BFloat16   simple, 16 bits   bfloat16 (ml_dtypes bfloat16, MLX bfloat16)

They are none of the thirteen: :func:`is_standard` is false for them and
:func:`register_standard_dtypes` neither registers nor returns them; :func:`is_half`
tells them, and :func:`numpy_dtype_of` and :func:`standard_dtype_for_numpy` map them
once registered.

Nothing here registers at import: ``import stridewave`` registers exactly the
built-ins. :func:`register_standard_dtypes` registers the extensions (the array API
namespace calls it when it is first imported); a name already registered with the
same structure is reused, and one registered with another structure makes the call
fail with ``ValueError`` before anything is registered.

Pickling: these descriptors pickle as every descriptor does (spec: "Pickle
reconstruction preserves receiving-process identity"): unpickling returns the receiving
process's registered identity, raises ``LookupError`` where the name is not registered
(a fresh process that has not imported :mod:`stridewave.array_api`), and ``ValueError``
where it is registered with another structure; either refusal registers nothing. An
Array or an extension carrier of them still unpickles anywhere: its pickle imports the
module that registers them before the descriptor is read. :func:`resolve_standard` and
:func:`resolve_standard_on_worker` resolve pickles that name them, by the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

import numpy as np

from stridewave.dtypes import _pickle, _registry
from stridewave.dtypes._model import DType, DTypeCategory, SimpleDType
from stridewave.dtypes._pickle import UnresolvedDType, reconstruct_dtype, reconstruct_on_worker
from stridewave.dtypes._structure import Structure, same_structure

__all__ = [
    "COMPLEX_CATEGORY",
    "EXTENSION_NAMES",
    "HALF_NAMES",
    "STANDARD_NAMES",
    "half_dtypes",
    "is_half",
    "is_standard",
    "numpy_dtype_of",
    "register_half_dtypes",
    "register_standard_dtypes",
    "resolve_standard",
    "resolve_standard_on_worker",
    "standard_dtype_for_numpy",
    "standard_dtypes",
]

#: Name of the extension category of the complex dtypes (beneath ``Any``).
COMPLEX_CATEGORY: Final = "Complex"


@dataclass(frozen=True)
class _Entry:
    """One standard dtype: array API name, descriptor name, width, supertype, NumPy type."""

    api: str
    name: str
    bits: int
    supertype: str
    numpy: str


#: The thirteen, in the standard's order: (array API name, descriptor name, bits,
#: supertype name, NumPy dtype name).
_TABLE: Final[tuple[_Entry, ...]] = (
    _Entry("bool", "Bool", 8, "Any", "bool"),
    _Entry("int8", "Int8", 8, "Integer", "int8"),
    _Entry("int16", "Int16", 16, "Integer", "int16"),
    _Entry("int32", "Int32", 32, "Integer", "int32"),
    _Entry("int64", "Int64", 64, "Integer", "int64"),
    _Entry("uint8", "UInt8", 8, "Integer", "uint8"),
    _Entry("uint16", "UInt16", 16, "Integer", "uint16"),
    _Entry("uint32", "UInt32", 32, "Integer", "uint32"),
    _Entry("uint64", "UInt64", 64, "Integer", "uint64"),
    _Entry("float32", "Float32", 32, "Floating", "float32"),
    _Entry("float64", "Float64", 64, "Floating", "float64"),
    _Entry("complex64", "Complex64", 64, COMPLEX_CATEGORY, "complex64"),
    _Entry("complex128", "Complex128", 128, COMPLEX_CATEGORY, "complex128"),
)
#: The two half-precision dtypes beyond the standard, in the same form. NumPy knows the
#: name ``"bfloat16"`` once ml_dtypes is imported (stridewave.interop imports it; this
#: package knows nothing of it), so these are matched by NumPy dtype name.
_HALF_TABLE: Final[tuple[_Entry, ...]] = (
    _Entry("float16", "Float16", 16, "Floating", "float16"),
    _Entry("bfloat16", "BFloat16", 16, "Floating", "bfloat16"),
)
_BY_NAME: Final[dict[str, _Entry]] = {e.name: e for e in _TABLE + _HALF_TABLE}
_BUILTIN: Final = frozenset({"Bool", "Int8", "Int32", "Float32", "Float64"})

#: Descriptor names of the thirteen, in the standard's order (array API names are the
#: keys of :func:`register_standard_dtypes`' result).
STANDARD_NAMES: Final[tuple[str, ...]] = tuple(e.name for e in _TABLE)

#: Names of the extension descriptors this module registers, in registration order
#: (the category first).
EXTENSION_NAMES: Final[tuple[str, ...]] = (
    COMPLEX_CATEGORY,
    *(e.name for e in _TABLE if e.name not in _BUILTIN),
)

#: Names of the half-precision descriptors beyond the standard, in registration order.
HALF_NAMES: Final[tuple[str, ...]] = tuple(e.name for e in _HALF_TABLE)

_pickle.UNKNOWN_NAME_FIXES.update(
    dict.fromkeys(
        EXTENSION_NAMES,
        "It is one of the array API standard's dtypes: import stridewave.array_api (or "
        "call stridewave.dtypes.register_standard_dtypes()) before unpickling it.",
    )
)
_pickle.UNKNOWN_NAME_FIXES.update(
    dict.fromkeys(
        HALF_NAMES,
        "It is one of the array API namespace's half-precision dtypes beyond the standard: "
        "import stridewave.array_api before unpickling it.",
    )
)


def _expected(name: str) -> tuple[str, Structure]:
    """Return ``(kind, structure)`` a standard extension ``name`` must have."""
    if name == COMPLEX_CATEGORY:
        return "category", ("category", COMPLEX_CATEGORY, DType.Any.structure(), ())
    entry = _BY_NAME[name]
    if entry.supertype == COMPLEX_CATEGORY:
        sup = _expected(COMPLEX_CATEGORY)[1]
    else:
        sup = DType.from_name(entry.supertype).structure()
    return "simple", ("simple", name, entry.bits, sup, ())


def _matches(found: DType, name: str) -> bool:
    kind, structure = _expected(name)
    return found._sw_kind == kind and same_structure(found.structure(), structure)


def _clash(found: DType, name: str) -> str:
    kind, structure = _expected(name)
    which = (
        "the array API namespace's half-precision dtypes"
        if name in HALF_NAMES
        else "the array API standard's dtypes"
    )
    return (
        f"cannot register {which}: {name!r} is already registered "
        f"as {found!r} with structure {found.structure()!r}, but the standard {kind} "
        f"{name!r} has structure {structure!r}. Descriptor names are unique per process and "
        f"cannot be unregistered: register your own dtype under another name (or with the "
        f"standard's structure, which is then reused)."
    )


def _build(name: str) -> DType:
    """Construct the standard extension ``name`` (its category exists already)."""
    if name == COMPLEX_CATEGORY:
        return DTypeCategory(COMPLEX_CATEGORY, supertype=DType.Any)
    entry = _BY_NAME[name]
    sup = DTypeCategory.from_name(entry.supertype)
    return SimpleDType(name, bits=entry.bits, supertype=sup)


def _register(names: tuple[str, ...]) -> None:
    """Register the standard extensions ``names`` (dependencies first), all or none.

    Checked under the registry's lock before anything is constructed, so a clash
    leaves the registry as it was.
    """
    with _registry._LOCK:
        present: dict[str, DType] = {}
        for name in names:
            found = _registry.lookup(name)
            if found is None:
                continue
            if not _matches(found, name):
                raise ValueError(_clash(found, name))
            present[name] = found
        for name in names:
            if name not in present:
                _build(name)


def register_standard_dtypes() -> Mapping[str, DType]:
    """Register the array API standard's dtypes that are not built-ins, and return all 13.

    Idempotent and thread-safe. The array API namespace calls it when it is first
    imported; ``import stridewave`` never does.

    Returns
    -------
    Mapping of str to DType
        Read-only, in the standard's order: ``"bool"`` -> ``DType.Bool``, ``"int8"``,
        ``"int16"``, ``"int32"``, ``"int64"``, ``"uint8"``, ``"uint16"``, ``"uint32"``,
        ``"uint64"``, ``"float32"``, ``"float64"``, ``"complex64"``, ``"complex128"``
        -> their descriptors (built-ins where the dtype spec has them).

    Raises
    ------
    ValueError
        If one of ``EXTENSION_NAMES`` is already registered with another kind or
        structure; the message names both structures. Nothing is registered then.

    Notes
    -----
    CONTRACT section 9, "Dtypes: the standard's thirteen". A name already registered
    with the standard's structure (e.g. by another library, or the user) is reused.
    """
    _register(EXTENSION_NAMES)
    return standard_dtypes()


def register_half_dtypes() -> Mapping[str, DType]:
    """Register the half-precision dtypes beyond the standard, and return them.

    Idempotent and thread-safe. The array API namespace calls it when it is first
    imported, as it calls :func:`register_standard_dtypes`; ``import stridewave``
    never does.

    Returns
    -------
    Mapping of str to DType
        Read-only: ``"float16"`` -> ``Float16`` and ``"bfloat16"`` -> ``BFloat16``, each
        a 16-bit simple dtype beneath ``Floating``.

    Raises
    ------
    ValueError
        If ``Float16`` or ``BFloat16`` is already registered with another kind or
        structure; the message names both structures. Nothing is registered then.

    Notes
    -----
    CONTRACT section 9, version 3, "Beyond the standard: float16 and bfloat16". A name
    already registered with this structure (the dtype spec's own example,
    ``SimpleDType("Float16", bits=16, supertype=DType.Floating)``) is reused.
    """
    _register(HALF_NAMES)
    return half_dtypes()


def _registered(table: tuple[_Entry, ...], what: str, fix: str) -> Mapping[str, DType]:
    """Return ``table``'s descriptors by array API name, or raise naming those missing.

    Raises
    ------
    LookupError
        If any is not registered in this process; the message names them and ``fix``.
    """
    missing = [e.name for e in table if _registry.lookup(e.name) is None]
    if missing:
        raise LookupError(f"{what} {missing} are not registered in this process; {fix} first.")
    return MappingProxyType({e.api: DType.from_name(e.name) for e in table})


def half_dtypes() -> Mapping[str, DType]:
    """Return the two half-precision descriptors by array API name, without registering.

    Returns
    -------
    Mapping of str to DType
        As :func:`register_half_dtypes` returns it.

    Raises
    ------
    LookupError
        If they are not registered yet (importing :mod:`stridewave.array_api` does).
    """
    return _registered(
        _HALF_TABLE,
        "the half-precision dtypes",
        "import stridewave.array_api (or call stridewave.dtypes._standard.register_half_dtypes())",
    )


def is_half(dtype: object) -> bool:
    """Tell whether ``dtype`` is the registered ``Float16`` or ``BFloat16`` descriptor.

    Parameters
    ----------
    dtype : object
        Any object.

    Returns
    -------
    bool
        True for the registered descriptor of one of :data:`HALF_NAMES` with the
        structure :func:`register_half_dtypes` gives it; False otherwise (a user's
        ``Float16`` of another structure included). Registers nothing.
    """
    if not isinstance(dtype, DType):
        return False
    descriptor: DType = dtype
    if descriptor.name not in HALF_NAMES or _registry.lookup(descriptor.name) is not descriptor:
        return False
    return _matches(descriptor, descriptor.name)


def standard_dtypes() -> Mapping[str, DType]:
    """Return the thirteen standard descriptors by array API name, without registering.

    Returns
    -------
    Mapping of str to DType
        As :func:`register_standard_dtypes` returns it.

    Raises
    ------
    LookupError
        If the extensions are not registered yet (call
        :func:`register_standard_dtypes` first).
    """
    return _registered(
        _TABLE,
        "the array API standard's dtypes",
        "call stridewave.dtypes.register_standard_dtypes() (importing stridewave.array_api does)",
    )


def is_standard(dtype: object) -> bool:
    """Tell whether ``dtype`` is the registered descriptor of one of the thirteen.

    Parameters
    ----------
    dtype : object
        Any object.

    Returns
    -------
    bool
        True for the five built-ins and for a registered extension with the standard's
        structure; False otherwise (categories included). Registers nothing.
    """
    if not isinstance(dtype, DType):
        return False
    descriptor: DType = dtype
    entry = _BY_NAME.get(descriptor.name)
    if entry is None or _registry.lookup(descriptor.name) is not descriptor:
        return False
    return entry.name in _BUILTIN or _matches(descriptor, entry.name)


def numpy_dtype_of(dtype: DType) -> np.dtype[np.generic] | None:
    """Return the NumPy dtype of a standard or half-precision descriptor, else ``None``.

    Parameters
    ----------
    dtype : DType
        A descriptor.

    Returns
    -------
    numpy.dtype or None
        E.g. ``numpy.dtype("int64")`` for ``Int64``, ``numpy.float16`` for ``Float16``,
        ``ml_dtypes.bfloat16`` for ``BFloat16``; ``None`` when :func:`is_standard` and
        :func:`is_half` are false.
    """
    if not is_standard(dtype) and not is_half(dtype):
        return None
    return np.dtype(_BY_NAME[dtype.name].numpy)


def standard_dtype_for_numpy(np_dtype: np.dtype[np.generic]) -> DType | None:
    """Return the registered standard descriptor storing ``np_dtype``, or ``None``.

    Parameters
    ----------
    np_dtype : numpy.dtype
        A native-order NumPy dtype.

    Returns
    -------
    DType or None
        The descriptor when it is registered (this registers nothing), else ``None``;
        ``numpy.float16`` and ``ml_dtypes.bfloat16`` give ``Float16`` and ``BFloat16``
        once :func:`register_half_dtypes` registered them.
    """
    if not np_dtype.isnative:
        return None
    for entry in _TABLE:
        if np.dtype(entry.numpy) == np_dtype:
            found = _registry.lookup(entry.name)
            return found if is_standard(found) else None
    for entry in _HALF_TABLE:
        if np_dtype.name == entry.numpy:
            found = _registry.lookup(entry.name)
            return found if is_half(found) else None
    return None


def resolve_standard(kind: object, name: object, structure: object) -> DType:
    """Unpickle a pickle that names this resolver: the registered identity, or refuse.

    Its import path is part of the pickle format. It registers nothing (spec: "If the
    name is not registered in the receiving process, deserialization SHALL fail with
    LookupError").

    Parameters
    ----------
    kind : str
        The descriptor kind recorded by the sender.
    name : str
        The registered name.
    structure : tuple
        The sender's complete structure.

    Returns
    -------
    DType
        This process's descriptor registered under ``name``.

    Raises
    ------
    LookupError
        If ``name`` is not registered here (import :mod:`stridewave.array_api`, or call
        :func:`register_standard_dtypes`, before unpickling a bare descriptor).
    ValueError
        If ``name`` is registered here with another kind or structure.
    """
    return reconstruct_dtype(kind, name, structure)


def resolve_standard_on_worker(
    kind: object, name: object, structure: object
) -> DType | UnresolvedDType:
    """Unpickle, inside Dask's ``distributed``, a pickle that names this resolver.

    Parameters
    ----------
    kind : str
        The descriptor kind recorded by the sender.
    name : str
        The registered name.
    structure : tuple
        The sender's complete structure.

    Returns
    -------
    DType or UnresolvedDType
        The registered identity, or a stand-in whose every use raises the
        ``LookupError``/``ValueError`` :func:`resolve_standard` raises (the worker's
        connection stays up); it registers nothing.
    """
    return reconstruct_on_worker(kind, name, structure)
