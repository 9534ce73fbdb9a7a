"""`_ArrayCarrier`: the backend hooks shared by carriers over a 1-D ``numpy.ndarray``.

Generic and CPU keep a ``numpy.ndarray``; FileBacked a ``numpy.memmap`` (a subclass).
The hooks bind a ``memoryview`` of the array as the scalar accessor (``store[i]`` reads a
Python scalar, ``store[i] = v`` writes), so a scalar read or write costs one builtin
subscript past the checks; the C accelerator, where built, caches that memoryview's
buffer and reads and writes it directly.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from stridewave.carriers._base import Carrier
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._storage_dtypes import ROWS

__all__ = ["_ArrayCarrier"]

#: memoryview formats of the storage dtypes in native order (from the dtype table);
#: a memoryview reads and writes these as Python scalars.
_NATIVE_FORMATS: Final[frozenset[str]] = frozenset(row.numpy.char for row in ROWS)


class _ItemAccess:
    """``store[i]`` / ``store[i] = v`` over an ndarray, reading Python scalars (``item``)."""

    __slots__ = ("_array",)

    def __init__(self, array: npt.NDArray[Any]) -> None:
        self._array = array

    def __getitem__(self, index: int) -> Any:
        return self._array.item(index)

    def __setitem__(self, index: int, value: Any) -> None:
        self._array[index] = value


class _ArrayCarrier(Carrier):
    """A carrier whose backend is one C-contiguous 1-D ``numpy.ndarray`` in ``_array``."""

    _array: npt.NDArray[Any]

    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.HOST, secondary=True, exports_views=True, host_addressable=True
    )

    def _bind_backend(self) -> None:
        array = self._array
        self._slots = array.shape[0]
        # A memoryview indexes about twice as fast as the ndarray (no NumPy scalar
        # machinery) and reads back Python float/int/bool directly; formats it cannot
        # take (a non-native byte order) keep the ndarray.
        try:
            store: Any = memoryview(array)  # type: ignore[arg-type,unused-ignore]
        except (TypeError, ValueError, BufferError):
            store = _ItemAccess(array)
        else:
            if store.ndim != 1 or store.format not in _NATIVE_FORMATS:
                store = _ItemAccess(array)
        self._slot_store = store

    def _raw_size(self) -> int:
        return int(self._array.shape[0])

    def _raw_get(self, index: int) -> Any:
        return self._array.item(index)

    def _raw_set(self, index: int, value: Any) -> None:
        self._array[index] = value

    def _raw_array(self) -> npt.NDArray[Any]:
        return self._array

    def _raw_load(self, values: npt.NDArray[Any]) -> None:
        # One copy into a fresh buffer; exported views keep the old one alive.
        self._array = np.array(values, dtype=self._array.dtype, copy=True, order="C")

    def _raw_release(self) -> None:
        # Drop the only reference the carrier holds; views exported earlier keep the
        # buffer alive through their own references, so nothing points at freed memory.
        self._array = np.empty(0, dtype=self._array.dtype)
