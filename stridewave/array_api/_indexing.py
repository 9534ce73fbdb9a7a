"""``__getitem__``/``__setitem__`` of :class:`~stridewave.array_api.Array`.

Basic indexing (integers, slices, ``...``, ``None``) is pure geometry on the
Tensor's Layout: the result shares the carrier, with a new offset, shape and
strides (no backend call, the same on every device). Boolean masks and integer
arrays go to the backend (NumPy, or MLX where it can) and give fresh arrays.
Every ``__setitem__`` is one ``Carrier.scatter``.

As the dispatch step, :func:`getitem` returns the result's geometry (a backend's
adopted tuple) and the Array's ``__getitem__`` builds the Array: this module sits
below the array object and the Array calls it directly.
"""

from __future__ import annotations

import operator
from typing import Any, Final

import numpy as np

from stridewave.array_api import _messages
from stridewave.array_api._backend import Adopted, contiguous_layout, strided_layout
from stridewave.array_api._device import Device
from stridewave.array_api._dispatch import device_of, host_values, read, write
from stridewave.array_api._dtypes import (
    as_dtype,
    bfloat16,
    check_scalar,
    isdtype,
    numpy_dtype,
    result_type,
)
from stridewave.array_api._messages import DeviceMismatch
from stridewave.dtypes import DType
from stridewave.layout import Layout
from stridewave.tensor import Tensor

__all__ = ["basic_geometry", "getitem", "one_slice", "setitem"]

_Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def _as_int(item: object) -> int | None:
    """Return ``item`` as an integer index, or ``None`` if it is not one."""
    if isinstance(item, (bool, np.bool_)):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, Tensor) and item.shape == () and isdtype(item.dtype, "integral"):
        # (``Array.__index__``'s answer: the one element, as a Python int)
        return int(host_values(item, device_of(item)).reshape(()).item())
    return None


def _slice_index(value: object, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise IndexError(_messages.slice_bound(what, value))
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise IndexError(_messages.slice_bound(what, value)) from None


def basic_geometry(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int, key: tuple[Any, ...]
) -> _Geometry | None:
    """Return ``(shape, strides, offset)`` of ``view[key]``, or ``None`` if ``key`` is not basic.

    Raises
    ------
    IndexError
        If an integer is out of range, there are more indices than axes, or more
        than one ellipsis.
    """
    items: list[tuple[str, Any]] = []
    ellipses = 0
    for item in key:
        if item is None:
            items.append(("new", None))
        elif item is Ellipsis:
            ellipses += 1
            items.append(("ellipsis", None))
        elif isinstance(item, slice):
            items.append(
                (
                    "slice",
                    slice(
                        _slice_index(item.start, "start"),
                        _slice_index(item.stop, "stop"),
                        _slice_index(item.step, "step"),
                    ),
                )
            )
        else:
            index = _as_int(item)
            if index is None:
                return None
            items.append(("int", index))
    if ellipses > 1:
        raise IndexError(_messages.two_ellipses(key))
    used = sum(1 for kind, _ in items if kind in ("int", "slice"))
    ndim = len(shape)
    if used > ndim:
        raise IndexError(_messages.too_many_indices(ndim, key, used))
    if ellipses == 0:
        items.append(("ellipsis", None))
    out_shape: list[int] = []
    out_strides: list[int] = []
    axis = 0
    empty = False
    for kind, value in items:
        if kind == "new":
            out_shape.append(1)
            out_strides.append(0)
        elif kind == "ellipsis":
            for _ in range(ndim - used):
                out_shape.append(shape[axis])
                out_strides.append(strides[axis])
                axis += 1
        elif kind == "int":
            extent = shape[axis]
            if not -extent <= value < extent:
                raise IndexError(_messages.index_out_of_bounds(value, axis, extent))
            offset += (value % extent) * strides[axis]
            axis += 1
        else:
            if value.step == 0:
                raise IndexError(_messages.zero_step())
            start, stop, step = value.indices(shape[axis])
            length = len(range(start, stop, step))
            if length:
                offset += start * strides[axis]
            else:
                empty = True
            out_shape.append(length)
            out_strides.append(step * strides[axis])
            axis += 1
    if empty:
        offset = 0
    return tuple(out_shape), tuple(out_strides), offset


def one_slice(x: Tensor, key: slice) -> tuple[Layout, int] | None:
    """Return the view of ``x[start:stop:step]``, ``x`` 1-D, the bounds ints or None.

    The geometry :func:`basic_geometry` gives, without its general loop. Called by
    ``Array.__getitem__`` itself, which builds the view: a view's Python runs before the
    launch of the operation that reads it (docs/array-api.md, "Lazy results").

    Parameters
    ----------
    x : Tensor
        The array sliced.
    key : slice
        The slice.

    Returns
    -------
    tuple of (Layout, int) or None
        The view's layout and offset (in elements); None for anything but a 1-D ``x``
        and int or None bounds (the general :func:`getitem` then decides, and raises
        where it must).
    """
    layout = x._layout
    if layout is None or len(layout._shape) != 1:  # (Layout's slots: a per-call path)
        return None
    start, stop, step = key.start, key.stop, key.step
    if not (
        (start is None or type(start) is int)
        and (stop is None or type(stop) is int)
        and (step is None or (type(step) is int and step))
    ):
        return None
    picked = range(layout._shape[0])[key]  # (slice.indices' bounds, and the length)
    length = len(picked)
    (stride,) = layout._strides
    offset = x._offset + picked.start * stride if length else 0
    stride *= picked.step
    if stride == 1:
        return contiguous_layout((length,)), offset
    return strided_layout((length,), (stride,)), offset


def _key_tuple(key: object) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def _backend_key(key: tuple[Any, ...], device: Device) -> tuple[Any, ...]:
    out = []
    for item in key:
        if isinstance(item, Tensor):
            if device_of(item) is not device:
                raise DeviceMismatch(_messages.index_on_other_device(device_of(item), device))
            out.append(read(item, device))
        else:
            out.append(item)
    return tuple(out)


def getitem(x: Tensor, device: Device, key: object) -> Adopted:
    """Return the geometry of ``x[key]``: a view for basic keys, a fresh result otherwise.

    ``Array.__getitem__`` answers a 1-D slice itself first, and builds the Array of
    this geometry on ``device``, ``x``'s.
    """
    key_t = _key_tuple(key)
    layout = x.layout
    geometry = basic_geometry(layout.shape, layout.strides, x._offset, key_t)
    if geometry is not None:
        shape, strides, offset = geometry
        if strides == contiguous_layout(shape).strides:
            view_layout = contiguous_layout(shape)
        else:
            view_layout = strided_layout(tuple(shape), tuple(strides))
        carrier = x._carrier
        assert carrier is not None
        return (carrier, view_layout, offset, None)
    result = device.backend.getitem(read(x, device), _backend_key(key_t, device))
    return device.backend.adopt(result, ())


#: ml_dtypes' bfloat16 scalar type.
_BFLOAT16_SCALAR: Final = numpy_dtype(bfloat16).type


def _value_for(x: Tensor, device: Device, value: object) -> Any:
    """Return ``value`` as a backend array of ``x``'s dtype (checking compatibility)."""
    backend = device.backend
    dtype = x.dtype
    if isinstance(value, Tensor):
        if device_of(value) is not device:
            raise DeviceMismatch(_messages.assign_from_other_device(device_of(value), device))
        given = as_dtype(value.dtype)
        if result_type(given, dtype) is not dtype and not (
            # (as NumPy's assignment: real floating values into an integer array
            # truncate, and a wider dtype of the same kind rounds, float64 into a
            # float32 array: the reference's leniency, CONTRACT section 9 version 3)
            (isdtype(given, "real floating") and isdtype(dtype, ("integral", "real floating")))
            or (isdtype(given, "integral") and isdtype(dtype, "integral"))
            or (isdtype(given, "complex floating") and isdtype(dtype, "complex floating"))
        ):
            raise TypeError(_messages.assign_loses_information(value.dtype, dtype))
        return backend.astype(read(value, device), dtype)
    if isinstance(value, np.generic) and type(value) is _BFLOAT16_SCALAR:
        value = value.item()  # (ml_dtypes' scalar, of no NumPy kind: its value)
    check_scalar(value, dtype)
    if isinstance(value, (bool, np.bool_)):
        ok = True
    elif isinstance(value, (int, np.integer)):
        ok = dtype is not DType.Bool
    elif isinstance(value, (float, np.floating)):
        # (a float into an integer array truncates, as NumPy's assignment does)
        ok = dtype is not DType.Bool
    elif isinstance(value, (complex, np.complexfloating)):
        ok = isdtype(dtype, "complex floating")
    else:
        ok = False
    if not ok:
        array_like = isinstance(value, np.ndarray) or hasattr(value, "__array__")
        raise TypeError(_messages.assign_wrong_kind(value, dtype, array_like))
    if isinstance(value, (bool, np.bool_)) and dtype is not DType.Bool:
        raise TypeError(_messages.assign_bool(value, dtype))
    return backend.scalar(value, dtype)


def setitem(x: Tensor, device: Device, key: object, value: object) -> None:
    """Do ``x[key] = value`` as one scatter into ``x``'s carrier (one version step)."""
    key_t = _key_tuple(key)
    layout = x.layout
    carrier = x._carrier
    assert carrier is not None
    carrier_live = not carrier.is_released()
    if not carrier_live:
        raise RuntimeError(_messages.assign_released(x, carrier))
    if not layout.is_injective():
        raise ValueError(_messages.write_shared_slots("assign into", layout.shape, layout.strides))
    source = _value_for(x, device, value)
    geometry = basic_geometry(layout.shape, layout.strides, x._offset, key_t)
    backend = device.backend
    if geometry is not None:
        shape, strides, offset = geometry
        if not shape and not source.shape and backend.write_element(x, offset, source):
            return  # (one element: the carrier's element write, ``a[i, j] = v``)
        try:
            values = backend.broadcast_to(source, shape)
        except ValueError as exc:
            raise ValueError(
                _messages.assign_shape(tuple(source.shape), key, tuple(shape))
            ) from exc
        write(x, device, shape, strides, offset, values)
        return
    updated = backend.set_advanced(read(x, device), _backend_key(key_t, device), source)
    write(x, device, layout.shape, layout.strides, x._offset, updated)
