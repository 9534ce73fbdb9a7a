"""The manipulation functions of :mod:`stridewave.array_api` (the standard's section of that name)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._array import Array, permuted
from stridewave.array_api._common import apply, document, document_all, one
from stridewave.array_api._data_type_functions import astype
from stridewave.array_api._dispatch import devices_of, shape_of

# -- manipulation -------------------------------------------------------------------------


def broadcast_arrays(*arrays: Any) -> list[Array]:
    return list(apply("broadcast_arrays", arrays))


def broadcast_to(x: Any, /, shape: Any) -> Array:
    return one("broadcast_to", (x, tuple(shape)))


def concat(arrays: Any, /, *, axis: int | None = 0) -> Array:
    arrays = list(arrays)
    dtype = _dtypes.result_type(*arrays)
    device = devices_of(arrays)
    cast = [a if a.dtype is dtype else astype(a, dtype) for a in arrays]
    return one("concat", (cast,), {"axis": axis}, device=device)


def expand_dims(x: Any, /, axis: int = 0) -> Array:
    return one("expand_dims", (x,), {"axis": axis})


def flip(x: Any, /, *, axis: Any = None) -> Array:
    return one("flip", (x,), {"axis": axis})


def moveaxis(x: Any, source: Any, destination: Any, /) -> Array:
    # A view of the same carrier on every device, as permute_dims (NumPy's moveaxis is
    # a view, and SciPy writes a result through one: ndimage's output= arrays); the
    # backend answers, and raises, for anything else.
    if type(x) is Array:
        try:
            sources = normalize_axis_tuple(source, x.ndim, "source")
            destinations = normalize_axis_tuple(destination, x.ndim, "destination")
        except (TypeError, ValueError, np.exceptions.AxisError):
            pass  # (the backend raises its own error for these)
        else:
            if len(sources) == len(destinations):
                order = [n for n in range(x.ndim) if n not in sources]
                for to, axis in sorted(zip(destinations, sources, strict=True)):
                    order.insert(to, axis)
                return permuted(x, tuple(order))
    return one("moveaxis", (x, source, destination))


def permute_dims(x: Any, /, axes: Any) -> Array:
    axes = tuple(axes)
    if (
        type(x) is Array
        and builtins.all(type(a) is int for a in axes)
        and sorted(a % x.ndim if x.ndim else a for a in axes) == list(range(x.ndim))
        and len(axes) == x.ndim
    ):
        return permuted(x, tuple(a % x.ndim for a in axes))
    return one("permute_dims", (x, axes))


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Array:
    return one("repeat", (x, repeats), {"axis": axis})


def reshape(x: Any, /, shape: Any, *, copy: bool | None = None) -> Array:
    shape = tuple(shape)
    try:
        return one("reshape", (x, shape), {"copy": copy})
    except ValueError as exc:
        size = int(np.prod(shape_of(x)))
        known = [n for n in shape if n != -1]
        fits = (
            shape.count(-1) <= 1
            and all(isinstance(n, int) and n >= -1 for n in shape)
            and (size == int(np.prod(known)) if -1 not in shape else True)
        )
        if not fits:
            raise ValueError(_messages.reshape_size(shape_of(x), size, shape)) from exc
        raise


def roll(x: Any, /, shift: Any, *, axis: Any = None) -> Array:
    return one("roll", (x, shift), {"axis": axis})


def squeeze(x: Any, /, axis: Any) -> Array:
    return one("squeeze", (x,), {"axis": axis})


def stack(arrays: Any, /, *, axis: int = 0) -> Array:
    arrays = list(arrays)
    dtype = _dtypes.result_type(*arrays)
    device = devices_of(arrays)
    cast = [a if a.dtype is dtype else astype(a, dtype) for a in arrays]
    return one("stack", (cast,), {"axis": axis}, device=device)


def tile(x: Any, repetitions: Any, /) -> Array:
    return one("tile", (x, tuple(repetitions)))


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Array, ...]:
    return tuple(apply("unstack", (x,), {"axis": axis}))


document_all(
    (
        (broadcast_to, "Broadcast ``x`` to ``shape`` (a view on host carriers)."),
        (concat, "Join arrays along an existing axis."),
        (expand_dims, "Insert an axis of extent one."),
        (flip, "Reverse the order of elements along ``axis``."),
        (moveaxis, "Move axes to new positions."),
        (permute_dims, "Permute the axes (a view on host carriers)."),
        (repeat, "Repeat each element."),
        (reshape, "Give a new shape to the values."),
        (roll, "Roll elements along ``axis``."),
        (squeeze, "Remove axes of extent one."),
        (stack, "Join arrays along a new axis."),
        (tile, "Repeat the whole array."),
    )
)
document(broadcast_arrays, "Broadcast arrays against each other.", returns="list of Array")
document(unstack, "Split into arrays along ``axis``.", returns="tuple of Array")
