"""The creation functions of :mod:`stridewave.array_api` (the standard's section of that name).

Each resolves its device once (``device=``, else the operands', else the default device),
its dtype by that device's defaults, and builds the result in the device's backend.
"""

from __future__ import annotations

import builtins
from typing import Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._array import Array, as_array
from stridewave.array_api._common import adopted, apply, document, document_all, one, wrap_one
from stridewave.array_api._data_type_functions import astype
from stridewave.array_api._device import Device, as_device, check_dtype, default_device
from stridewave.array_api._dispatch import _flat as _dispatch_flat
from stridewave.array_api._dispatch import devices_of, host_values
from stridewave.dtypes import DType
from stridewave.tensor import Tensor

# -- creation -----------------------------------------------------------------------------


def _creation_device(device: object) -> Device:
    return default_device() if device is None else as_device(device)


def _dtype_or(dtype: object, default: DType) -> DType:
    return default if dtype is None else _dtypes.as_dtype(dtype)


def _default(device: Device, kind: str) -> DType:
    """Return the device's default dtype of ``kind`` (its backend's table)."""
    return device.backend.default_dtypes()[kind]


def _infer_dtype(value: object, device: Device) -> DType:
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, np.generic) and _dtypes.from_numpy(value.dtype) is not None:
        found = _dtypes.from_numpy(value.dtype)
        assert found is not None
        return found
    if isinstance(value, (bool, np.bool_)):
        return DType.Bool
    if isinstance(value, (int, np.integer)):
        return _default(device, "integral")
    if isinstance(value, (float, np.floating)):
        return _default(device, "real floating")
    if isinstance(value, (complex, np.complexfloating)):
        return _default(device, "complex floating")
    raise TypeError(_messages.no_dtype_for(value))


def _check_shape(shape: object) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (tuple, list)):
        return tuple(int(s) for s in shape)
    raise TypeError(_messages.bad_shape(shape))


def _create(name: str, args: tuple[Any, ...], dtype: DType, device: Device, **kwargs: Any) -> Array:
    check_dtype(device, dtype)
    backend = device.backend
    return wrap_one(
        getattr(backend.ns, name)(*args, dtype=backend.native_dtype(dtype), **kwargs), device
    )


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("zeros", (_check_shape(shape),), chosen, target)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("ones", (_check_shape(shape),), chosen, target)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("empty", (_check_shape(shape),), chosen, target)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _infer_dtype(fill_value, target))
    _check_fill(fill_value, chosen)
    return _create("full", (_check_shape(shape), fill_value), chosen, target)


def _check_fill(value: object, dtype: DType) -> None:
    if not isinstance(value, Tensor):
        _dtypes.check_scalar(value, dtype)


def _like_device(x: Any, device: object) -> Device:
    return devices_of((x,)) if device is None else as_device(device)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return zeros(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return ones(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    return empty(x.shape, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device))


def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    return full(
        x.shape, fill_value, dtype=_dtype_or(dtype, x.dtype), device=_like_device(x, device)
    )


def eye(
    n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None
) -> Array:
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "real floating"))
    return _create("eye", (n_rows, n_cols), chosen, target, k=k)


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> Array:
    # (a bound given as a 0-d array counts as its Python value, as NumPy takes it)
    start, stop, step = (_bound(v) for v in (start, stop, step))
    ints = builtins.all(
        isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step) if v is not None
    )
    target = _creation_device(device)
    chosen = _dtype_or(dtype, _default(target, "integral" if ints else "real floating"))
    return _create("arange", (start, stop, step), chosen, target)


def _bound(value: Any) -> Any:
    """Return a 0-d Array (or NumPy scalar) bound of ``arange`` as its Python value."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Tensor) and value.ndim == 0:
        x = as_array(value)
        return host_values(x, x._device).reshape(()).item()
    return value


def linspace(
    start: Any,
    stop: Any,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: bool = True,
) -> Array:
    target = _creation_device(device)
    complex_bounds = isinstance(start, complex) or isinstance(stop, complex)
    chosen = _dtype_or(
        dtype, _default(target, "complex floating" if complex_bounds else "real floating")
    )
    return _create("linspace", (start, stop, num), chosen, target, endpoint=endpoint)


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[Array]:
    return list(apply("meshgrid", arrays, {"indexing": indexing}))


def tril(x: Any, /, *, k: int = 0) -> Array:
    return one("tril", (x,), {"k": k})


def triu(x: Any, /, *, k: int = 0) -> Array:
    return one("triu", (x,), {"k": k})


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None
) -> Array:
    wanted = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor):
        x = as_array(obj)
        target = x._device if device is None else as_device(device)
        same = (wanted is None or wanted is x.dtype) and target == x._device
        if same and not copy:
            return x
        if copy is False:
            raise ValueError(_messages.copy_needed(wanted or x.dtype, target, x.dtype, x._device))
        moved = x.to_device(target) if target != x._device else x
        if moved is not x and (wanted is None or wanted is moved.dtype):
            return moved
        return astype(moved, wanted if wanted is not None else x.dtype, copy=True)
    target = _creation_device(device)
    if copy is False:
        return _share(obj, wanted, target)
    values = _to_numpy(obj, wanted, target)
    if not values.flags.owndata or values is obj:
        # The carrier adopts ``values``' buffer: never the caller's own memory (only
        # copy=False shares it, above), so writes on either side stay apart.
        values = np.array(values, copy=True)
    backend = target.backend
    return wrap_one(backend.asarray(values, _dtypes.from_numpy(values.dtype)), target)


def _share(obj: Any, wanted: DType | None, target: Device) -> Array:
    """``asarray(copy=False)``: share a NumPy (or buffer) object's memory on CPU."""
    try:
        array = np.asarray(obj) if not isinstance(obj, (list, tuple, bool, int, float)) else None
    except (TypeError, ValueError):
        array = None
    if (
        array is None
        or _dtypes.from_numpy(array.dtype) is None
        or (wanted is not None and _dtypes.from_numpy(array.dtype) is not wanted)
        or not array.flags.c_contiguous
    ):
        raise ValueError(_messages.cannot_share(obj))
    return adopted(target.backend.share(array), target)


#: The dtype to ask for when a device lacks the data's dtype (the one-step narrower).
_NARROWER: Final = {"float64": "float32", "complex128": "complex64"}


def _to_numpy(obj: Any, wanted: DType | None, target: Device) -> np.ndarray[Any, Any]:
    """Convert an array-like to NumPy with the namespace's dtype rules.

    Data with a dtype keeps it where ``target`` stores it (no silent narrowing);
    Python scalars and sequences of them take the device's default dtypes.
    """
    python_data = isinstance(obj, (bool, int, float, complex, list, tuple))
    if isinstance(obj, (list, tuple)) and builtins.any(
        isinstance(v, Tensor) for v in _dispatch_flat(list(obj))
    ):
        obj = _nested_to_numpy(obj)
        python_data = False
    if wanted is not None:
        check_dtype(target, wanted)
        if isinstance(obj, (bool, int, float)):
            _check_fill(obj, wanted)
        array = np.asarray(obj)
        if (
            python_data
            and array.dtype.kind in "fO"
            and _dtypes.isdtype(wanted, "integral")
            and builtins.all(type(v) is int for v in np.asarray(obj, dtype=object).reshape(-1))
        ):
            # Python ints past int64 made NumPy's float64 (or object): converted to the
            # integer dtype asked for directly, exactly, never through float64's 53 bits
            # (the list's elements are Python objects: looking at each costs no more
            # than NumPy's own conversion of them)
            try:
                array = np.asarray(obj, dtype=_dtypes.numpy_dtype(wanted))
            except OverflowError:
                raise OverflowError(_messages.values_out_of_range(wanted)) from None
        if array.dtype.kind == "c" and not _dtypes.isdtype(wanted, "complex floating"):
            raise TypeError(_messages.complex_values())
        if _dtypes.isdtype(wanted, "integral") and array.dtype.kind in "iu" and array.size:
            info = _dtypes.iinfo(wanted)
            if array.min() < info.min or array.max() > info.max:
                raise OverflowError(_messages.values_out_of_range(wanted))
        if wanted is DType.Float32 and array.dtype.kind == "f":
            return _to_float32(array, obj)
        if wanted is _COMPLEX64 and array.dtype.kind in "fc":
            return _to_complex64(array, obj)
        if wanted in _HALF and array.dtype.kind in "fiu":
            return _to_half(array, obj, wanted)
        return np.asarray(array, dtype=_dtypes.numpy_dtype(wanted))
    array = np.asarray(obj)
    kind = array.dtype.kind
    if python_data and kind in "biufc":
        chosen = (
            DType.Bool
            if kind == "b"
            else _default(
                target,
                "integral"
                if kind in "iu"
                else "real floating"
                if kind == "f"
                else "complex floating",
            )
        )
        if kind in "iu" and array.size:
            info = _dtypes.iinfo(chosen)
            if array.min() < info.min or array.max() > info.max:
                raise OverflowError(_messages.integers_out_of_range(obj, chosen))
        if chosen is DType.Float32 and kind == "f":
            return _to_float32(array, obj)
        if chosen is _COMPLEX64 and kind == "c":
            return _to_complex64(array, obj)  # (Metal's default: no silent infinity)
        return array.astype(_dtypes.numpy_dtype(chosen), copy=False)
    found = _dtypes.from_numpy(array.dtype)
    if found is None:
        raise TypeError(_messages.no_namespace_dtype(obj, array.dtype))
    try:
        check_dtype(target, found)
    except TypeError as exc:
        names = {d: n for n, d in _dtypes.DTYPES.items()}
        fix = _NARROWER.get(names[found], "float32")
        raise TypeError(_messages.data_not_on_device(str(exc), fix)) from None
    return array


def _to_float32(array: np.ndarray[Any, Any], obj: object) -> np.ndarray[Any, Any]:
    """Round floating ``array`` to float32; a finite value beyond float32 is refused.

    The carriers' Float32 rule (CONTRACT section 3): a finite value whose nearest
    binary32 is infinite raises ``OverflowError`` instead of becoming ``inf``.
    """
    with np.errstate(over="ignore"):
        out = array.astype(np.float32)
    if out.dtype != array.dtype and array.size:
        overflowed = np.isinf(out) & np.isfinite(array)
        if overflowed.any():
            bad = array[overflowed].flat[0]
            raise OverflowError(_messages.float32_overflow(bad, obj))
    return out


_COMPLEX64: Final = _dtypes.DTYPES["complex64"]


def _to_complex64(array: np.ndarray[Any, Any], obj: object) -> np.ndarray[Any, Any]:
    """Round ``array`` to complex64; a finite part beyond float32 is refused.

    Float32's rule (:func:`_to_float32`) for each part of a complex value.
    """
    with np.errstate(over="ignore"):
        out = array.astype(np.complex64)
    if out.dtype != array.dtype and array.size:
        parts = (
            ((out.real, array.real), (out.imag, array.imag))
            if array.dtype.kind == "c"
            else ((out.real, array),)
        )
        for rounded, given in parts:
            overflowed = np.isinf(rounded) & np.isfinite(given)
            if overflowed.any():
                bad = array[overflowed].flat[0]
                raise OverflowError(_messages.complex64_overflow(bad, obj))
    return out


#: The half-precision dtypes beyond the standard.
_HALF: Final = frozenset(_dtypes.HALF.values())


def _to_half(array: np.ndarray[Any, Any], obj: object, wanted: DType) -> np.ndarray[Any, Any]:
    """Round real ``array`` to float16 or bfloat16; a finite value beyond its range is refused.

    Float32's rule (:func:`_to_float32`) for the half-precision dtypes: a finite value
    whose nearest float16 (bfloat16) is infinite raises ``OverflowError``.
    """
    with np.errstate(over="ignore"):
        out = array.astype(_dtypes.numpy_dtype(wanted))
    if array.size:
        overflowed = np.isinf(out) & np.isfinite(array)
        if overflowed.any():
            bad = array[overflowed].flat[0]
            raise OverflowError(_messages.half_overflow(bad, wanted))
    return out


def _nested_to_numpy(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        x = as_array(obj)
        return host_values(x, x._device)  # (a read: no writable export, no version step)
    if isinstance(obj, (list, tuple)):
        return [_nested_to_numpy(v) for v in obj]
    return obj


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    if isinstance(x, Tensor):
        return asarray(x, device=device, copy=copy)
    target = _creation_device(device)
    if target.backend.host_addressable:
        array = np.from_dlpack(x, copy=copy) if copy is not None else np.from_dlpack(x)
        return asarray(array, device=target, copy=copy is not False)
    return asarray(np.from_dlpack(x), device=target)


document_all(
    (
        (zeros, "An array of zeros."),
        (ones, "An array of ones."),
        (empty, "An uninitialized array (zeros on carriers that always initialize)."),
        (full, "An array filled with ``fill_value``."),
        (zeros_like, "Zeros shaped like ``x``."),
        (ones_like, "Ones shaped like ``x``."),
        (empty_like, "An uninitialized array shaped like ``x``."),
        (full_like, "``fill_value`` shaped like ``x``."),
        (eye, "A 2-D array with ones on the ``k``-th diagonal."),
        (arange, "Evenly spaced values in ``[start, stop)``."),
        (linspace, "``num`` evenly spaced values over ``[start, stop]``."),
        (tril, "The lower triangle of (a stack of) matrices."),
        (triu, "The upper triangle of (a stack of) matrices."),
        (asarray, "Convert ``obj`` to an array (a Tensor is wrapped without a copy)."),
        (from_dlpack, "An array from a DLPack-capable object."),
    )
)
document(meshgrid, "Coordinate matrices from coordinate vectors.", returns="list of Array")
