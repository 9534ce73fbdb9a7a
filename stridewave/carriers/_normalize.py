"""The value-normalization table (CONTRACT section 3): one scalar path, one vectorized path.

======= ============================================ ===================== ==========================
dtype   accepted                                     stored / read back    refused
======= ============================================ ===================== ==========================
Float32 ``int``, ``float``, NumPy integer and        nearest binary32,     ``bool``/``numpy.bool_``,
        floating scalars (not ``bool``)              read as ``float``     complex, str, ...:
                                                                           ``TypeError``; a finite
                                                                           value that rounds past
                                                                           binary32: ``OverflowError``
Int32   objects with ``__index__`` (not ``bool``)    read as ``int``       non-integers (incl.
                                                                           ``1.0``), bools:
                                                                           ``TypeError``; outside
                                                                           [-2**31, 2**31-1]:
                                                                           ``OverflowError``
Bool    ``bool`` and ``numpy.bool_``                 read as ``bool``      anything else
                                                                           (incl. 0 and 1):
                                                                           ``TypeError``
======= ============================================ ===================== ==========================

Decisions: ``inf`` and ``nan`` are stored as they are in Float32 storage; a finite
value overflows when its magnitude reaches ``2**128 - 2**103`` (the point where
round-to-nearest gives infinity), so ``3.5e38`` raises while ``3.4028235e38`` rounds to
``FLT_MAX``. ``numpy.bool_`` is NumPy's own Python-bool scalar (no integer value is
confused with it), so Bool storage accepts it as well as ``bool``.

The vectorized path (:func:`normalize_array`) applies the same table to a whole 1-D
``numpy.ndarray`` by its dtype, with no per-element Python loop: integer and
floating arrays into Float32 (a finite overflow raises), integer arrays into Int32
(range-checked with one ``min``/``max``), bool arrays into Bool; other kinds are
refused with ``TypeError``. Object arrays take the scalar path element by element.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from stridewave.carriers import _messages
from stridewave.carriers._resources import check_host_allocation
from stridewave.dtypes import DType

__all__ = [
    "FLOAT32_OVERFLOW",
    "fast_path",
    "INT32_MAX",
    "INT32_MIN",
    "materialize",
    "normalize_array",
    "normalize_scalar",
    "scalar_normalizer",
    "storage_numpy_dtype",
]

#: Smallest magnitude that rounds to infinity in binary32 (FLT_MAX + half an ulp).
FLOAT32_OVERFLOW: Final[float] = 2.0**128 - 2.0**103
INT32_MIN: Final[int] = -(2**31)
INT32_MAX: Final[int] = 2**31 - 1

_F32_LIMITS = "finite values of magnitude below 2**128 - 2**103 (about 3.4028235e38)"
_I32_LIMITS = "integers in [-2**31, 2**31 - 1] = [-2147483648, 2147483647]"

Normalizer = Callable[[object], Any]


def _float32(value: object) -> float:
    cls = type(value)
    if cls is float:
        f: float = value  # type: ignore[assignment]
    elif cls is int or (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, (bool, np.bool_))
    ):
        try:
            f = float(value)  # type: ignore[arg-type,unused-ignore]
        except OverflowError:
            raise OverflowError(
                _messages.value_overflow(value, dtype=DType.Float32, limits=_F32_LIMITS)
            ) from None
    else:
        raise TypeError(
            _messages.value_type(
                value,
                dtype=DType.Float32,
                expected="real numbers: int, float, numpy integer or floating scalars",
                fix="Convert with float(...); bool and complex values are not real numbers here.",
            )
        )
    if -FLOAT32_OVERFLOW < f < FLOAT32_OVERFLOW or math.isinf(f) or math.isnan(f):
        return f
    raise OverflowError(_messages.value_overflow(value, dtype=DType.Float32, limits=_F32_LIMITS))


def _int32(value: object) -> int:
    if type(value) is int:
        i: int = value
    else:
        if isinstance(value, (bool, np.bool_)):
            i = -1  # refused below
            ok = False
        else:
            try:
                i = operator.index(value)  # type: ignore[arg-type,unused-ignore]
                ok = True
            except TypeError:
                ok = False
        if not ok:
            raise TypeError(
                _messages.value_type(
                    value,
                    dtype=DType.Int32,
                    expected="integers: objects with __index__ such as int or numpy.int64",
                    fix="Convert with int(...) or round(...) first; floats such as 1.0 and "
                    "bools are refused.",
                )
            )
    if INT32_MIN <= i <= INT32_MAX:
        return i
    raise OverflowError(_messages.value_overflow(value, dtype=DType.Int32, limits=_I32_LIMITS))


def _bool(value: object) -> bool:
    if value is True or value is False:
        return value
    if type(value) is np.bool_:
        return bool(value)
    raise TypeError(
        _messages.value_type(
            value,
            dtype=DType.Bool,
            expected="True or False (bool or numpy.bool_)",
            fix="Convert with bool(...) if you mean the value's truth.",
        )
    )


def fast_path(dtype: DType) -> tuple[type | None, Any, Any]:
    """Return ``(type, low, high)``: values of exactly ``type`` within ``[low, high]`` pass.

    The scalar write path stores such a value as it is, without calling the
    normalizer: it is the common case of the table (a ``float`` in binary32's finite
    range, an ``int`` in Int32's, a ``bool``). Everything else goes through
    :func:`scalar_normalizer`. ``(None, None, None)`` disables the shortcut.
    """
    if dtype is DType.Float32:
        high = math.nextafter(FLOAT32_OVERFLOW, 0.0)
        return float, -high, high
    if dtype is DType.Int32:
        return int, INT32_MIN, INT32_MAX
    if dtype is DType.Bool:
        return bool, False, True
    return None, None, None


def scalar_normalizer(dtype: DType) -> Normalizer:
    """Return the scalar normalization function for storage dtype ``dtype``.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.

    Returns
    -------
    callable
        ``f(value) -> float | int | bool`` that applies the table row and raises
        ``TypeError``/``OverflowError`` for a refused value.

    Raises
    ------
    ValueError
        If ``dtype`` has no storage normalization.
    """
    if dtype is DType.Float32:
        return _float32
    if dtype is DType.Int32:
        return _int32
    if dtype is DType.Bool:
        return _bool
    raise ValueError(f"no storage normalization for {dtype!r}; expected Float32, Int32 or Bool")


def normalize_scalar(dtype: DType, value: object) -> float | int | bool:
    """Normalize one value for storage dtype ``dtype`` (see the module table).

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.
    value : object
        The value to store.

    Returns
    -------
    float, int or bool
        The Python scalar to store (Float32 values are rounded by the backend write).

    Raises
    ------
    TypeError
        If the row refuses the value's type.
    OverflowError
        If the value is outside the dtype's finite range.
    """
    result: float | int | bool = scalar_normalizer(dtype)(value)
    return result


def storage_numpy_dtype(dtype: DType, *, little_endian: bool = False) -> np.dtype[Any]:
    """Return the NumPy dtype a carrier uses to store ``dtype``.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.
    little_endian : bool, optional
        Force little-endian byte order (raw files); native order otherwise.

    Returns
    -------
    numpy.dtype
        ``float32``, ``int32`` or ``bool``.

    Raises
    ------
    ValueError
        If ``dtype`` has no NumPy storage encoding.
    """
    order = "<" if little_endian else "="
    if dtype is DType.Float32:
        return np.dtype(order + "f4")
    if dtype is DType.Int32:
        return np.dtype(order + "i4")
    if dtype is DType.Bool:
        return np.dtype("?")
    raise ValueError(f"no NumPy storage dtype for {dtype!r}; expected Float32, Int32 or Bool")


def _refuse_array(array: npt.NDArray[Any], dtype: DType, expected: str) -> TypeError:
    return TypeError(
        f"{dtype!r} storage accepts arrays of {expected}; got a numpy.ndarray of dtype "
        f"{array.dtype}. Convert it explicitly with array.astype(...) first."
    )


def normalize_array(
    dtype: DType, array: npt.NDArray[Any], target: np.dtype[Any]
) -> tuple[npt.NDArray[Any], bool]:
    """Normalize a whole non-object 1-D array for ``dtype``, vectorized.

    Parameters
    ----------
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.
    array : numpy.ndarray
        1-D input of any non-object NumPy dtype, ``n`` elements.
    target : numpy.dtype
        The storage NumPy dtype (``storage_numpy_dtype(dtype, ...)``).

    Returns
    -------
    (numpy.ndarray, bool)
        The values as ``target``, shape ``(n,)``, and whether that array is a fresh
        conversion (``True``) or ``array`` itself (``False``, when it already has
        dtype ``target``; the caller copies it if it must own the data).

    Raises
    ------
    TypeError
        If the array's dtype kind is refused by the row (bool into Float32 or Int32,
        floating into Int32, anything but bool into Bool, complex, strings, ...).
    OverflowError
        If a finite value overflows binary32, or an integer is outside Int32's range.
    """
    kind = array.dtype.kind
    if array.dtype == target:
        return array, False
    if dtype is DType.Float32:
        if kind not in "fiu":
            raise _refuse_array(array, dtype, "real numbers (integer or floating dtypes)")
        try:
            with np.errstate(over="raise"):
                return array.astype(target), True
        except FloatingPointError:
            raise OverflowError(
                _messages.value_overflow(
                    f"an array of {array.dtype}", dtype=dtype, limits=_F32_LIMITS
                )
            ) from None
    if dtype is DType.Int32:
        if kind not in "iu":
            raise _refuse_array(array, dtype, "integers (integer dtypes)")
        if array.size and (array.dtype.itemsize > 4 or (kind == "u" and array.dtype.itemsize == 4)):
            low, high = int(array.min()), int(array.max())
            if low < INT32_MIN or high > INT32_MAX:
                bad = low if low < INT32_MIN else high
                raise OverflowError(_messages.value_overflow(bad, dtype=dtype, limits=_I32_LIMITS))
        return array.astype(target), True
    if dtype is DType.Bool:
        if kind != "b":
            raise _refuse_array(array, dtype, "booleans (dtype bool)")
        return array.astype(target), True
    raise ValueError(f"no storage normalization for {dtype!r}; expected Float32, Int32 or Bool")


def _as_array(values: object) -> npt.NDArray[Any] | None:
    """Return ``values`` as an ndarray when it is one or exposes the buffer protocol."""
    if isinstance(values, np.ndarray):
        return values
    if isinstance(values, (str, list, tuple, range, dict, set, frozenset)):
        return None
    if hasattr(type(values), "__array__"):  # carriers, array-likes of other libraries
        converted: npt.NDArray[Any] = np.asarray(values)
        return converted
    try:
        view = memoryview(values)  # type: ignore[arg-type]
    except TypeError:
        return None
    try:
        return np.asarray(view)
    except (TypeError, ValueError, NotImplementedError):
        return None


def materialize(
    values: object, dtype: DType, target: np.dtype[Any], *, where: str
) -> tuple[npt.NDArray[Any], bool]:
    """Turn an iterable of slot values into a normalized 1-D array.

    ``numpy.ndarray``, objects with ``__array__`` (carriers included) and buffer
    inputs (``bytes``, ``bytearray``, ``memoryview``, ``array.array``) take the
    vectorized path (no Python loop, no copy when the input
    already has the storage dtype). Every other iterable is consumed once through the
    scalar normalizer; ``None`` items are holes and read as the dtype's zero.

    Parameters
    ----------
    values : iterable
        The ordered slot values (``n`` elements).
    dtype : DType
        ``DType.Float32``, ``DType.Int32`` or ``DType.Bool``.
    target : numpy.dtype
        The storage NumPy dtype.
    where : str
        Caller name for diagnostics.

    Returns
    -------
    (numpy.ndarray, bool)
        Values as ``target``, shape ``(n,)``, and whether the array is fresh (``False``
        means it is the caller's input array itself).

    Raises
    ------
    TypeError
        If ``values`` is not iterable, is an array that is not 1-D, or holds a value
        the table refuses.
    OverflowError
        If a value is out of the dtype's range.
    """
    array = _as_array(values)
    source: object = values
    if array is not None:
        if array.ndim != 1:
            raise TypeError(
                f"{where} expects values to be one-dimensional; got an array of shape "
                f"{array.shape}. Flatten it first with numpy.ravel(values)."
            )
        if array.dtype.kind != "O":
            return normalize_array(dtype, array, target)
        source = array
    try:
        iterator = iter(source)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(_messages.not_iterable(values, where=where)) from None
    norm = scalar_normalizer(dtype)
    holes: float | int | bool = (
        0.0 if dtype is DType.Float32 else 0 if dtype is DType.Int32 else False
    )
    # An iterable that is not an exact list/tuple/range (whose length cannot lie) is
    # consumed up to ITERATION_LIMIT items, so an infinite generator fails instead of
    # hanging until memory runs out.
    limit = len(source) if type(source) in (list, tuple, range) else ITERATION_LIMIT  # type: ignore[arg-type]
    # The values pass through a Python list (a pointer and a scalar object per item):
    # refuse a length no process here can hold before building it (CONTRACT 7).
    check_host_allocation(limit * (8 + 24 + target.itemsize), what=f"{where}({limit} values)")
    items = [
        holes if item is None else norm(item) for item in itertools.islice(iterator, limit + 1)
    ]
    if len(items) > limit:
        raise ValueError(_too_many_items(where, limit))
    return np.array(items, dtype=target), True


#: Most items ``materialize`` consumes from an iterable that is not a list, tuple,
#: range or array (a generator, an iterator, a custom sequence). Larger inputs should
#: come as a NumPy array or buffer (vectorized, no limit) or a list.
ITERATION_LIMIT: int = 1 << 22


def _too_many_items(where: str, limit: int) -> str:
    return (
        f"{where} stopped consuming values after {limit} items: the iterable has no "
        f"trustworthy length and may be infinite (e.g. itertools.count()). Pass a NumPy "
        f"array, a buffer or a list instead (no limit), or bound it with "
        f"itertools.islice(values, n). Nothing was allocated."
    )
