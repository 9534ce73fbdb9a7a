"""The data type functions of :mod:`stridewave.array_api` (the standard's section of that name)."""

from __future__ import annotations

from typing import Any

from stridewave.array_api import _dtypes
from stridewave.array_api._array import Array, as_array
from stridewave.array_api._common import document, wrap_one
from stridewave.array_api._device import as_device, check_dtype
from stridewave.array_api._dispatch import read

# -- data type functions ------------------------------------------------------------------


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    target = _dtypes.as_dtype(dtype)
    array: Array = as_array(x)
    if device is not None and as_device(device) != array._device:
        array = array.to_device(device)
    if target is array.dtype and not copy:
        return array
    check_dtype(array._device, target)
    x = array
    backend = x._device.backend
    return wrap_one(backend.cast(read(x, x._device), target), x._device)


document(astype, "A copy of ``x`` cast to ``dtype``.")
can_cast = _dtypes.can_cast
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo
isdtype = _dtypes.isdtype
result_type = _dtypes.result_type
