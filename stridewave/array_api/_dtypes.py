"""Data types of :mod:`stridewave.array_api`: the descriptors themselves, and their rules.

The namespace's dtype objects *are* the stridewave descriptors
(``xp.float32 is DType.Float32``). Only the three dtypes carriers store exist
here: ``bool``, ``int32`` and ``float32`` (CONTRACT section 9); any other dtype
requested raises ``TypeError``. Promotion follows the array API standard inside a
kind and, across kinds (which the standard leaves undefined), goes up the order
bool < int32 < float32, as NumPy does once its ``float64`` is narrowed back to
``float32``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from stridewave.array_api import _messages
from stridewave.dtypes import DType

__all__ = [
    "DTYPES",
    "as_dtype",
    "can_cast",
    "finfo",
    "from_numpy",
    "iinfo",
    "isdtype",
    "numpy_dtype",
    "result_type",
]

bool_: Final = DType.Bool
int32: Final = DType.Int32
float32: Final = DType.Float32

#: Every dtype of the namespace, by its array API name.
DTYPES: Final[dict[str, DType]] = {"bool": bool_, "int32": int32, "float32": float32}

_TO_NUMPY: Final[dict[DType, np.dtype[Any]]] = {
    bool_: np.dtype(np.bool_),
    int32: np.dtype(np.int32),
    float32: np.dtype(np.float32),
}
_FROM_NUMPY: Final[dict[np.dtype[Any], DType]] = {v: k for k, v in _TO_NUMPY.items()}
_RANK: Final[dict[DType, int]] = {bool_: 0, int32: 1, float32: 2}
_BY_RANK: Final = (bool_, int32, float32)


def _refuse(dtype: object) -> TypeError:
    return TypeError(_messages.unsupported_dtype(dtype))


def as_dtype(dtype: object) -> DType:
    """Return the namespace dtype ``dtype`` names (a descriptor or a NumPy dtype-like).

    Parameters
    ----------
    dtype : DType or numpy dtype-like
        ``xp.float32`` (the descriptor), or a NumPy dtype such as ``numpy.float32``.

    Returns
    -------
    DType
        One of ``DType.Bool``, ``DType.Int32``, ``DType.Float32``.

    Raises
    ------
    TypeError
        If ``dtype`` is any other dtype (``float64``, ``int8``, a category ...).
    """
    if dtype is float32 or dtype is int32 or dtype is bool_:
        return dtype
    if isinstance(dtype, DType):
        raise _refuse(dtype)
    try:
        found = _FROM_NUMPY.get(np.dtype(dtype))  # type: ignore[call-overload]
    except TypeError:
        found = None
    if found is None:
        raise _refuse(dtype)
    return found


def numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """Return the NumPy dtype storing ``dtype`` (``float32``, ``int32`` or ``bool``)."""
    return _TO_NUMPY[dtype]


def from_numpy(np_dtype: np.dtype[Any]) -> DType | None:
    """Return the namespace dtype of a NumPy dtype, or ``None`` if it has none."""
    return _FROM_NUMPY.get(np_dtype)


def narrow(np_dtype: np.dtype[Any]) -> DType:
    """Return the namespace dtype a backend result of ``np_dtype`` is narrowed to.

    ``float64`` (and any floating dtype) becomes ``float32``, any integer ``int32``,
    booleans stay ``bool``; complex results are refused with ``TypeError``.
    """
    found = _FROM_NUMPY.get(np_dtype)
    if found is not None:
        return found
    kind = np_dtype.kind
    if kind == "b":
        return bool_
    if kind in "iu":
        return int32
    if kind == "f":
        return float32
    raise TypeError(_messages.unheld_result_dtype(np_dtype))


def _dtype_of(value: object) -> DType | None:
    """Return the dtype of an array operand (``None`` for a Python scalar)."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    return as_dtype(dtype)


def result_type(*arrays_and_dtypes: object) -> DType:
    """Return the dtype the standard's promotion gives for the arguments.

    Parameters
    ----------
    *arrays_and_dtypes : array, DType or Python scalar
        At least one array or dtype (2024.12 also accepts Python scalars, which
        take the dtype of the arrays).

    Returns
    -------
    DType
        The promoted dtype: the highest of bool < int32 < float32 present.

    Raises
    ------
    TypeError
        If no array or dtype is given, a dtype is not of this namespace, or a Python
        scalar cannot take the array dtype (a float with an integer array).
    """
    ranks: list[int] = []
    scalars: list[object] = []
    for item in arrays_and_dtypes:
        if isinstance(item, (bool, int, float, complex)):
            scalars.append(item)
            continue
        dtype = as_dtype(item) if not hasattr(item, "dtype") else _dtype_of(item)
        assert dtype is not None
        ranks.append(_RANK[dtype])
    if not ranks:
        raise TypeError(_messages.result_type_of_nothing(arrays_and_dtypes))
    result = _BY_RANK[max(ranks)]
    for scalar in scalars:
        if isinstance(scalar, complex) or (isinstance(scalar, float) and result is not float32):
            raise TypeError(_messages.scalar_of_other_kind(scalar, result))
    return result


def can_cast(from_: object, to: object, /) -> bool:
    """Return whether promotion can turn ``from_`` into ``to`` (array API ``can_cast``).

    Parameters
    ----------
    from_ : DType or array
        The source dtype, or an array whose dtype is used.
    to : DType
        The target dtype.

    Returns
    -------
    bool
        ``True`` when ``from_`` and ``to`` are equal, or of one kind with ``to`` at
        least as wide (bool, int32 and float32 are each alone in their kind here).

    Raises
    ------
    TypeError
        If a dtype is not one of this namespace's.
    """
    source = _dtype_of(from_) if hasattr(from_, "dtype") else as_dtype(from_)
    return source is as_dtype(to)


_KINDS: Final[dict[str, tuple[DType, ...]]] = {
    "bool": (bool_,),
    "signed integer": (int32,),
    "unsigned integer": (),
    "integral": (int32,),
    "real floating": (float32,),
    "complex floating": (),
    "numeric": (int32, float32),
}


def isdtype(dtype: object, kind: object) -> bool:
    """Return whether ``dtype`` is of ``kind`` (array API ``isdtype``).

    Parameters
    ----------
    dtype : DType
        A dtype of this namespace.
    kind : DType, str or tuple
        A dtype, a kind name (``"bool"``, ``"signed integer"``, ``"unsigned
        integer"``, ``"integral"``, ``"real floating"``, ``"complex floating"``,
        ``"numeric"``), or a tuple of these (any match).

    Returns
    -------
    bool
        ``True`` when ``dtype`` is ``kind`` or one of its members.

    Raises
    ------
    TypeError
        If ``dtype`` is not a dtype of this namespace, or ``kind`` is neither.
    ValueError
        If ``kind`` is a string that names no kind.
    """
    target = as_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(target, k) for k in kind)
    if isinstance(kind, str):
        members = _KINDS.get(kind)
        if members is None:
            raise ValueError(_messages.unknown_dtype_kind(kind, sorted(_KINDS)))
        return target in members
    return target is as_dtype(kind)


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating dtype (array API ``finfo`` result)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    """Machine limits of an integer dtype (array API ``iinfo`` result)."""

    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: object, /) -> finfo_object:
    """Return the limits of ``float32`` (array API ``finfo``).

    Parameters
    ----------
    type : DType or array
        ``xp.float32`` or a float32 array.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (Python floats),
        ``dtype``.

    Raises
    ------
    TypeError
        If the dtype is not floating.
    """
    dtype = _dtype_of(type) if hasattr(type, "dtype") else as_dtype(type)
    if dtype is not float32:
        raise TypeError(_messages.finfo_needs_float(dtype))
    info = np.finfo(np.float32)
    return finfo_object(
        32, float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), dtype
    )


def iinfo(type: object, /) -> iinfo_object:
    """Return the limits of ``int32`` (array API ``iinfo``).

    Parameters
    ----------
    type : DType or array
        ``xp.int32`` or an int32 array.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` (Python ints), ``dtype``.

    Raises
    ------
    TypeError
        If the dtype is not an integer dtype.
    """
    dtype = _dtype_of(type) if hasattr(type, "dtype") else as_dtype(type)
    if dtype is not int32:
        raise TypeError(_messages.iinfo_needs_int(dtype))
    return iinfo_object(32, 2**31 - 1, -(2**31), dtype)
