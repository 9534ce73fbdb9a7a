"""The NumPy / ml_dtypes mapping of simple dtypes.

====================  =========================  =====
StrideWeave           NumPy dtype                bits
====================  =========================  =====
``DType.Bool``        ``numpy.bool_``            8
``DType.Int8``        ``numpy.int8``             8
``DType.Int32``       ``numpy.int32``            32
``DType.Float32``     ``numpy.float32``          32
``DType.Float64``     ``numpy.float64``          64
``DType.E8M0``        ``ml_dtypes.float8_e8m0fnu``  8
``DType.E5M2``        ``ml_dtypes.float8_e5m2``  8
``DType.E4M3``        ``ml_dtypes.float8_e4m3fn``  8
``DType.E3M2``        ``ml_dtypes.float6_e3m2fn``  6
``DType.E2M3``        ``ml_dtypes.float6_e2m3fn``  6
``DType.E2M1``        ``ml_dtypes.float4_e2m1fn``  4
====================  =========================  =====

Once registered (:func:`stridewave.dtypes.register_standard_dtypes`), the array API
standard's extension dtypes map too: ``Int16``, ``Int64``, ``UInt8``, ``UInt16``,
``UInt32``, ``UInt64``, ``Complex64`` and ``Complex128`` to the NumPy dtypes of the same
names; so do the half-precision dtypes beyond the standard, once the array API namespace
registered them: ``Float16`` to ``numpy.float16``, ``BFloat16`` to ``ml_dtypes.bfloat16``.

The sub-byte ``ml_dtypes`` types (6 and 4 bits) occupy one byte per element in NumPy
arrays.  Categories and compound dtypes have no NumPy dtype.  See CONTRACT section 2,
"NumPy mapping".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import ml_dtypes
import numpy as np
import numpy.typing as npt

from stridewave.dtypes import DType
from stridewave.dtypes._model import NUMPY_MAPPING
from stridewave.dtypes._standard import numpy_dtype_of, standard_dtype_for_numpy

__all__ = ["from_numpy_dtype", "to_numpy_dtype"]

_TO_NUMPY: Final[Mapping[DType, np.dtype[np.generic]]] = MappingProxyType(
    {
        DType.Bool: np.dtype(np.bool_),
        DType.Int8: np.dtype(np.int8),
        DType.Int32: np.dtype(np.int32),
        DType.Float32: np.dtype(np.float32),
        DType.Float64: np.dtype(np.float64),
        DType.E8M0: np.dtype(ml_dtypes.float8_e8m0fnu),
        DType.E5M2: np.dtype(ml_dtypes.float8_e5m2),
        DType.E4M3: np.dtype(ml_dtypes.float8_e4m3fn),
        DType.E3M2: np.dtype(ml_dtypes.float6_e3m2fn),
        DType.E2M3: np.dtype(ml_dtypes.float6_e2m3fn),
        DType.E2M1: np.dtype(ml_dtypes.float4_e2m1fn),
    }
)
_FROM_NUMPY: Final[Mapping[np.dtype[np.generic], DType]] = MappingProxyType(
    {v: k for k, v in _TO_NUMPY.items()}
)


def to_numpy_dtype(dtype: DType) -> np.dtype[np.generic]:
    """Return the NumPy dtype that stores one element of a built-in simple dtype.

    Parameters
    ----------
    dtype : DType
        A built-in simple dtype, e.g. ``DType.Float32`` or ``DType.E4M3``, or a registered
        standard extension such as ``Int64``.

    Returns
    -------
    numpy.dtype
        E.g. ``numpy.dtype(numpy.float32)``, or an ``ml_dtypes`` type such as
        ``float8_e4m3fn`` for the microscaling formats (table in the module docstring).

    Raises
    ------
    TypeError
        If ``dtype`` is not a ``DType``.
    ValueError
        If ``dtype`` is a category, a compound dtype, or a simple extension dtype: none
        of these has a NumPy dtype.
    """
    if not isinstance(dtype, DType):
        raise TypeError(f"to_numpy_dtype() takes a DType; got {dtype!r} ({type(dtype).__name__}).")
    found = _TO_NUMPY.get(dtype) or numpy_dtype_of(dtype)
    if found is not None:
        return found
    if dtype.is_category():
        why = "a category (a relationship-only identity with no scalar encoding)"
    elif dtype.is_compound():
        why = "a compound dtype stored across several planes; map each of its planes"
    else:
        why = "a simple extension dtype with no NumPy or ml_dtypes counterpart"
    known = ", ".join(repr(d) for d in _TO_NUMPY)
    raise ValueError(f"{dtype!r} has no NumPy dtype: it is {why}. NumPy dtypes exist for {known}.")


def from_numpy_dtype(np_dtype: npt.DTypeLike) -> DType:
    """Return the simple dtype whose elements a NumPy dtype stores (inverse mapping).

    Parameters
    ----------
    np_dtype : numpy.dtype or dtype-like
        Anything ``numpy.dtype()`` accepts except ``None`` (which NumPy would read as
        float64), e.g. ``numpy.float32``, ``"int8"`` or ``ml_dtypes.float8_e4m3fn``.

    Returns
    -------
    DType
        The built-in simple dtype, e.g. ``DType.Float32``.

    Raises
    ------
    TypeError
        If ``np_dtype`` is ``None`` or not dtype-like.
    ValueError
        If the NumPy dtype has no StrideWeave counterpart (e.g. ``int64`` while the
        standard dtypes are not registered, ``float16`` before the array API namespace
        is imported, or a non-native byte order such as ``">f4"``).
    """
    if np_dtype is None:
        raise TypeError(
            "from_numpy_dtype() takes a NumPy dtype or dtype-like; got None. "
            "Pass e.g. numpy.float32."
        )
    try:
        resolved = np.dtype(np_dtype)
    except TypeError as exc:
        raise TypeError(
            f"from_numpy_dtype() takes a NumPy dtype or dtype-like; got {np_dtype!r} "
            f"({type(np_dtype).__name__}), which numpy.dtype() refuses: {exc}"
        ) from exc
    if (
        isinstance(np_dtype, type)
        and resolved.kind == "O"
        and np_dtype is not object
        and not issubclass(np_dtype, np.generic)
    ):  # numpy.dtype() reads any Python class as the object dtype: not a dtype-like here
        raise TypeError(
            f"from_numpy_dtype() takes a NumPy dtype or dtype-like; got the class "
            f"{np_dtype.__name__}, which is not one. Pass e.g. numpy.float32."
        )
    found = _FROM_NUMPY.get(resolved) or standard_dtype_for_numpy(resolved)
    if found is None:
        known = ", ".join(str(d) for d in _FROM_NUMPY)
        raise ValueError(
            f"NumPy dtype {resolved.str!r} ({resolved}) has no StrideWeave dtype; mapped "
            f"NumPy dtypes (native byte order) are {known}. Convert the array first, "
            "e.g. arr.astype(numpy.float32)."
        )
    return found


def export_dtype(requested: object, *, exporter: object) -> np.dtype[np.generic] | None:
    """Read the ``dtype`` argument of an ``__array__`` export as a NumPy dtype.

    Parameters
    ----------
    requested : numpy dtype-like or None
        What the caller passed as ``dtype`` to ``numpy.asarray(x, dtype=...)``.
    exporter : object
        The carrier or Tensor being exported, named in the message.

    Returns
    -------
    numpy.dtype or None
        ``None`` when ``requested`` is ``None`` (keep the storage dtype).

    Raises
    ------
    TypeError
        If NumPy cannot read ``requested`` as a dtype. NumPy itself raises
        ``TypeError``, ``ValueError`` or even ``SyntaxError`` (for strings such as
        ``","``, which it parses as a field list); the export raises one type.
    """
    if requested is None:
        return None
    try:
        return np.dtype(requested)  # type: ignore[call-overload,no-any-return,unused-ignore]
    except (TypeError, ValueError, SyntaxError) as exc:
        raise TypeError(
            f"numpy.asarray({exporter!r}, dtype={requested!r}): NumPy cannot read "
            f"{requested!r} as a dtype ({exc}). Pass a NumPy dtype such as numpy.float32, "
            f"or omit dtype to keep the storage's."
        ) from None


NUMPY_MAPPING[:] = [to_numpy_dtype]  # descriptors' ``.dtype`` (CONTRACT section 8)
