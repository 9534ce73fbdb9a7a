"""Value normalization for every write path (CONTRACT section 3), read from the dtype table.

Each storage dtype has one scalar rule and one vectorized rule, both in its row of
:mod:`stridewave.carriers._storage_dtypes` (the table and its decisions are written
there). This module routes every write path to them:

* scalar writes (``set_value``, ``carrier[i] = v``) call the row's scalar rule
  (the carrier caches it and the fast-path bounds at construction);
* :func:`materialize` turns any iterable into a normalized 1-D array: NumPy arrays
  (NumPy subclasses such as masked arrays and ``numpy.matrix`` read as their plain
  data, ``numpy.asarray``), objects with ``__array__`` and buffers take the row's
  vectorized rule; object arrays and every other iterable take the scalar rule item
  by item. ``None`` items are holes (the row's ``hole`` value) only where the caller
  says so (``new_like``); elsewhere (``Generic(values)``) they are refused like any
  other non-number;
* scatter sends the source values through :func:`materialize` as well.

So the same input gives the same stored value, or the same exception, on every path.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt

from stridewave.carriers import _messages
from stridewave.carriers._resources import check_host_allocation
from stridewave.carriers._storage_dtypes import (
    FLOAT32_OVERFLOW,
    INT32_MAX,
    INT32_MIN,
    Normalizer,
    storage_row,
)
from stridewave.dtypes import DType

__all__ = [
    "FLOAT32_OVERFLOW",
    "INT32_MAX",
    "INT32_MIN",
    "ITERATION_LIMIT",
    "materialize",
    "normalize_array",
    "normalize_scalar",
    "scalar_normalizer",
    "storage_numpy_dtype",
]


def scalar_normalizer(dtype: DType) -> Normalizer:
    """Return the scalar normalization function for storage dtype ``dtype``.

    Parameters
    ----------
    dtype : DType
        A storage dtype (a row of the table: ``DType.Float32``, ``DType.Int32``,
        ``DType.Bool``).

    Returns
    -------
    callable
        ``f(value) -> float | int | bool`` that applies the table row and raises
        ``TypeError``/``OverflowError`` for a refused value.

    Raises
    ------
    ValueError
        If ``dtype`` has no row in the storage-dtype table.
    """
    return storage_row(dtype).normalize


def normalize_scalar(dtype: DType, value: object) -> float | int | bool:
    """Normalize one value for storage dtype ``dtype`` (see the table's rules).

    Parameters
    ----------
    dtype : DType
        A storage dtype.
    value : object
        The value to store.

    Returns
    -------
    float, int or bool
        The Python scalar to store; a Float32 value is one the backend's binary32
        store rounds correctly (an ``int`` beyond ``2**53`` comes back already rounded).

    Raises
    ------
    TypeError
        If the row refuses the value's type.
    OverflowError
        If the value is outside the dtype's finite range.
    ValueError
        If ``dtype`` has no row in the storage-dtype table.
    """
    result: float | int | bool = scalar_normalizer(dtype)(value)
    return result


def storage_numpy_dtype(dtype: DType, *, little_endian: bool = False) -> np.dtype[Any]:
    """Return the NumPy dtype a carrier uses to store ``dtype``.

    Parameters
    ----------
    dtype : DType
        A storage dtype.
    little_endian : bool, optional
        Force little-endian byte order (raw files); native order otherwise.

    Returns
    -------
    numpy.dtype
        The row's NumPy dtype (``float32``, ``int32`` or ``bool``).

    Raises
    ------
    ValueError
        If ``dtype`` has no row in the storage-dtype table.
    """
    np_dtype = storage_row(dtype).numpy
    if np_dtype.kind == "V":
        # (ml_dtypes' bfloat16 has no byte-order variant: its bytes are the host's, and
        # the hosts StrideWeave supports are little-endian)
        return np_dtype
    # np.dtype("<f4") reads as the native "=f4" on a little-endian host (newbyteorder
    # would keep an explicit "<", which buffers then report as format "<f")
    return np.dtype("<" + np_dtype.str[1:]) if little_endian else np_dtype


def normalize_array(
    dtype: DType, array: npt.NDArray[Any], target: np.dtype[Any]
) -> tuple[npt.NDArray[Any], bool]:
    """Normalize a whole non-object 1-D array for ``dtype``, vectorized.

    Parameters
    ----------
    dtype : DType
        A storage dtype.
    array : numpy.ndarray
        1-D input of any non-object NumPy dtype, ``n`` elements; a subclass is read
        as its plain data.
    target : numpy.dtype
        The storage NumPy dtype (``storage_numpy_dtype(dtype, ...)``).

    Returns
    -------
    (numpy.ndarray, bool)
        The values as a plain ``target`` array, shape ``(n,)``, and whether it is a
        fresh conversion (``True``) or shares the input's memory (``False``, when the
        input already has dtype ``target``: the caller copies it before storing).

    Raises
    ------
    TypeError
        If the row refuses the array's dtype.
    OverflowError
        If a finite value overflows binary32, or an integer is outside Int32's range.
    ValueError
        If ``dtype`` has no row in the storage-dtype table.
    """
    return storage_row(dtype).vectorize(np.asarray(array), target)


def _as_array(values: object) -> npt.NDArray[Any] | None:
    """Return ``values`` as a plain ndarray when it is an array or a buffer, else None."""
    if isinstance(values, np.ndarray):
        plain: npt.NDArray[Any] = np.asarray(values)  # a subclass reads as its plain data
        return plain
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
    values: object, dtype: DType, target: np.dtype[Any], *, where: str, holes: bool = False
) -> tuple[npt.NDArray[Any], bool]:
    """Turn an iterable of slot values into a normalized 1-D array.

    ``numpy.ndarray`` (subclasses read as their plain data), objects with
    ``__array__`` (carriers included) and buffer inputs (``bytes``, ``bytearray``,
    ``memoryview``, ``array.array``) take the vectorized rule (no Python loop, no copy
    when the input already has the storage dtype). Object arrays and every other
    iterable are consumed once through the scalar rule.

    Parameters
    ----------
    values : iterable
        The ordered slot values (``n`` elements).
    dtype : DType
        A storage dtype.
    target : numpy.dtype
        The storage NumPy dtype.
    where : str
        Caller name for diagnostics.
    holes : bool, optional
        Whether ``None`` items are holes that read as the row's ``hole`` value
        (``new_like``, per the spec); ``False`` (default) refuses them like any
        other non-number (``Generic(values)``).

    Returns
    -------
    (numpy.ndarray, bool)
        Values as a plain ``target`` array, shape ``(n,)``, and whether the array is
        fresh (``False`` means it shares the caller's memory: copy before storing).

    Raises
    ------
    TypeError
        If ``values`` is not iterable, is an array that is not 1-D, or holds a value
        the row refuses.
    OverflowError
        If a value is out of the dtype's range.
    ValueError
        If an iterable without a trustworthy length yields more than
        :data:`ITERATION_LIMIT` items.
    """
    array = _as_array(values)
    source: object = values
    if array is not None:
        if array.ndim != 1:
            raise TypeError(_messages.not_one_dimensional(array.shape, where=where))
        if array.dtype.kind != "O":
            return normalize_array(dtype, array, target)
        source = array
    try:
        iterator = iter(source)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(_messages.not_iterable(values, where=where)) from None
    norm = scalar_normalizer(dtype)
    # An iterable that is not an exact list/tuple/range (whose length cannot lie) is
    # consumed up to ITERATION_LIMIT items, so an infinite generator fails instead of
    # hanging until memory runs out.
    limit = len(source) if type(source) in (list, tuple, range) else ITERATION_LIMIT  # type: ignore[arg-type]
    # The values pass through a Python list (a pointer and a scalar object per item):
    # refuse a length no process here can hold before building it (CONTRACT 7).
    check_host_allocation(limit * (8 + 24 + target.itemsize), what=f"{where}({limit} values)")
    bounded = itertools.islice(iterator, limit + 1)
    if holes:
        hole = storage_row(dtype).hole
        items = [hole if item is None else norm(item) for item in bounded]
    else:
        items = [norm(item) for item in bounded]
    if len(items) > limit:
        raise ValueError(_messages.too_many_items(where, limit))
    return np.array(items, dtype=target), True


#: Most items ``materialize`` consumes from an iterable that is not a list, tuple,
#: range or array (a generator, an iterator, a custom sequence). Larger inputs should
#: come as a NumPy array or buffer (vectorized, no limit) or a list.
ITERATION_LIMIT: int = 1 << 22
