"""The Metal backend of :mod:`stridewave.array_api`: ``mlx.core`` behind the standard's names.

MLX is not imported by this module: it gets ``mlx.core`` from the Metal carrier
module's lazy import point (:func:`stridewave.carriers._metal._import_mlx`), so
the Metal carrier module stays the only one that imports MLX. Every operation
runs on the MLX device the Metal carriers use (``STRIDEWAVE_METAL_DEVICE``).

Where MLX has the function, the call is a rename or an argument translation
(``arccos`` for ``acos``, ``ddof`` for ``correction`` ...). Where MLX has no
function, or none with the standard's semantics (data-dependent output shapes
such as ``nonzero``, ``unique_*`` and boolean-mask indexing; ``copysign``,
``hypot``, ``nextafter``, ``signbit``; the factorizations MLX lacks), the call is
delegated to NumPy (``array_api_compat.numpy``) on a host copy and the result is
moved back to the device. docs/array-api.md lists those functions.

Zero-copy bridge to the carrier: :meth:`MLXBackend.read` uses the Metal carrier's
live MLX array (``Metal._mx_array``), :meth:`MLXBackend.adopt` hands a fresh MLX
result to ``Metal._adopt``, which evaluates it and takes it as storage without a
copy. These two private accesses are the whole contact with the carrier internals.
"""

from __future__ import annotations

import functools
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from stridewave.array_api import _dtypes
from stridewave.array_api._array import (
    Array,
    Device,
    _make,
    contiguous_layout,
    wrap,
)
from stridewave.carriers import Evictable, Metal
from stridewave.carriers._metal import DEVICE_ENV, _import_mlx, _select_device
from stridewave.dtypes import DType
from stridewave.tensor import Tensor

__all__ = ["MLXBackend"]


class _Device:
    """The MLX device of the Metal carriers, chosen once per process setting."""

    key: str | None = None
    device: Any = None
    name: str = ""


def _mlx_device() -> tuple[Any, str]:
    key = os.environ.get(DEVICE_ENV, "")
    if _Device.key != key or _Device.device is None:
        _Device.device, _Device.name = _select_device(_import_mlx())
        _Device.key = key
    return _Device.device, _Device.name


def _storage(carrier: Any, note: bool = True) -> Any:
    """Return the live 1-D MLX array of a Metal carrier (an Evictable: of its primary).

    ``note``: note the read for the operation being prepared (``read()``; False for a
    host export, which launches nothing).
    """
    if type(carrier) is not Metal:  # (the common case skips two ABC instance checks)
        if isinstance(carrier, Evictable):
            if carrier.is_evicted():
                np.asarray(carrier)  # pages the values back in (carrier rule)
            carrier = carrier.primary
        if not isinstance(carrier, Metal):
            raise TypeError(f"{carrier!r} is not a Metal carrier.")
        if note:
            _note_read(carrier)  # (read() notes a plain Metal itself)
    array = carrier._mx_array
    if array is None:
        raise RuntimeError(
            f"cannot read {carrier!r}: it is released and has no storage (carrier rule)."
        )
    return array


class _Operation(threading.local):
    """The Metal carriers read by the calling thread's operation being prepared.

    ``read()`` notes each Metal carrier it reads here (a weak reference: a failed
    operation keeps nothing alive); the launch records the array it scheduled on each
    of them (:func:`_note_reads`, ``Metal._note_device_read``), after which a host
    write into such a carrier waits for that array.
    """

    def __init__(self) -> None:
        self.reads: list[weakref.ref[Metal]] = []
        #: the carriers this thread recorded reads on (None on the main thread)
        self.records = (
            None
            if threading.current_thread() is threading.main_thread()
            else _ThreadRecords(threading.get_ident())
        )


class _ThreadRecords:
    """The Metal carriers a thread other than the main one recorded device reads on.

    A record holds its result's buffer until the carrier's next host access or the
    thread's next read of it; a thread that has ended makes no next read. This object
    lives in the thread's :class:`_Operation` and is dropped when the thread ends:
    it then waits for the thread's last record on each carrier and forgets it
    (``Metal._forget_reads_of``), so an ended thread keeps no result alive.
    """

    __slots__ = ("carriers", "thread")

    def __init__(self, thread: int) -> None:
        self.thread = thread
        self.carriers: weakref.WeakSet[Metal] = weakref.WeakSet()

    def __del__(self) -> None:
        for carrier in list(self.carriers):
            carrier._forget_reads_of(self.thread)


_OPERATION = _Operation()


def _note_read(carrier: Metal) -> None:
    """Note that this thread's operation being prepared reads ``carrier``.

    The list is emptied at each launch; reads that launch nothing (host exports such
    as ``numpy.asarray``) leave their notes until then, so a repeat of the last one
    is not noted again, and past 64 notes the dead ones are dropped.
    """
    reads = _OPERATION.reads
    if reads and reads[-1]() is carrier:
        return
    if len(reads) >= 64:
        reads[:] = [ref for ref in reads if ref() is not None]
    reads.append(weakref.ref(carrier))


def _note_reads(scheduled: Any) -> None:
    """Record ``scheduled`` on the Metal carriers this thread's operation read.

    Called once the operation is launched and before it returns: a host write ordered
    after the call then waits for ``scheduled`` (``Metal._take_view``); one racing
    the call itself is unordered with it, as between any two threads.
    """
    operation = _OPERATION
    reads = operation.reads
    if reads:
        thread = get_ident()
        records = operation.records
        for ref in reads:
            carrier = ref()
            if carrier is not None:
                carrier._note_device_read(thread, scheduled)
                if records is not None:
                    records.carriers.add(carrier)
        reads.clear()


class MLXBackend:
    """Compute for the Metal device: ``mlx.core`` on the Metal carriers' MLX device."""

    name: Final = "mlx"

    def __init__(self) -> None:
        self.mx = _import_mlx()
        mx = self.mx
        self._to_mx: dict[DType, Any] = {
            DType.Float32: mx.float32,
            DType.Int32: mx.int32,
            DType.Bool: mx.bool_,
        }
        self._from_mx: dict[Any, DType] = {v: k for k, v in self._to_mx.items()}
        self.ns = _Namespace(self)
        self._directs: dict[str, Callable[..., Array | None]] = {}

    def stream(self) -> Any:
        """Return a context that runs the enclosed MLX calls on the Metal carriers' device.

        MLX's own context object, made per call (a generator-based context manager
        would add about a microsecond to every operation).
        """
        device, _name = _mlx_device()
        return self.mx.stream(device)

    # -- reading and adopting ------------------------------------------------------------

    def read(self, tensor: Tensor, note: bool = True) -> Any:
        """Return the Tensor's logical values as an MLX array (no host copy).

        ``note=False`` for a host export (``numpy.asarray``, ``to_device``, ``float``):
        it launches nothing, so the read is not noted for the next launch to record.
        """
        carrier = tensor._carrier
        if type(carrier) is Metal:
            storage = carrier._mx_array
            if note:
                _note_read(carrier)  # (the launch records the scheduled array: _note_reads)
            if storage is None:
                storage = _storage(carrier)  # released: raises
        else:
            storage = _storage(carrier, note)  # an Evictable, another kind, or released
        return self._logical(tensor, storage)

    def _logical(self, tensor: Tensor, storage: Any) -> Any:
        """Return the Tensor's values as an MLX array over its carrier's ``storage``."""
        layout = tensor._layout
        assert layout is not None
        offset = tensor._offset
        size = storage.size  # (1-D storage: its one extent)
        # (Layout's slots, read directly on this per-operation path)
        if offset == 0 and layout._strides == (1,) and layout._size == size:
            return storage  # the whole carrier, in order: the MLX array itself
        cache = getattr(tensor, "_host", None)
        if (
            cache is not None and cache[1] is storage and cache[2] == tensor._carrier._version  # type: ignore[union-attr]
        ):
            # The N-d result this Array was adopted from (a view of the same buffer):
            # no new reshape in every graph that reads the Array.
            return cache[0]
        count = layout._size
        if count and (offset + layout._min_index < 0 or offset + layout._max_index >= size):
            raise IndexError(
                f"{tensor!r} addresses slots outside its carrier of {size} slots (the "
                "carrier shrank after the view was made)."
            )
        shape, strides = layout._shape, layout._strides
        if len(shape) == 1:
            (step,) = strides
            if step == 1:
                return storage[offset : offset + count]
            if count and step:
                # One strided run: a slice (as_strided takes less Python, but MLX takes
                # it of row-contiguous arrays only, and a carrier's storage need not be)
                stop = offset + step * (count - 1) + (1 if step > 0 else -1)
                return storage[offset : stop if stop >= 0 else None : step]
        elif strides == contiguous_layout(shape).strides:
            if offset == 0 and count == size:
                return storage.reshape(shape)
            return storage[offset : offset + count].reshape(shape)
        return self.mx.as_strided(storage, shape, strides, offset)

    def is_array(self, value: object) -> bool:
        """Return whether ``value`` is an MLX array."""
        return isinstance(value, self.mx.array)

    def dtype(self, array: Any) -> DType:
        """Return the namespace dtype an MLX result narrows to."""
        found = self._from_mx.get(array.dtype)
        if found is not None:
            return found
        mx = self.mx
        if array.dtype == mx.bool_:
            return DType.Bool
        if mx.issubdtype(array.dtype, mx.integer):
            return DType.Int32
        if mx.issubdtype(array.dtype, mx.floating):
            return DType.Float32
        raise TypeError(
            f"MLX returned dtype {array.dtype}, which stridewave.array_api cannot hold "
            "(bool, int32 and float32 only)."
        )

    def launch(self, result: Any, mx_device: Any = None) -> Any:
        """Schedule a fresh MLX result's evaluation in the form its carrier will store.

        The storage form (the carrier's dtype, one dimension) is built first and
        only it is scheduled (``mlx.core.async_eval``): one graph per result, with
        the operation in it, launched before the Python that adopts the result.
        :meth:`adopt` then takes the prepared form when it is given this very
        ``result`` (an identity check: a result prepared by another thread in
        between is simply prepared again). docs/array-api.md, "Lazy results".
        """
        mx = self.mx
        shaped = result
        if result.dtype not in self._from_mx:
            found = self._narrow(result)
            if found is None:
                mx.async_eval(result)  # adopt() raises the dtype's TypeError
                _note_reads(result)
                return result
            # (on the operation's device: on_device just chose _Device.device for it)
            shaped = mx.astype(result, self._to_mx[found], stream=mx_device or _Device.device)
        flat = shaped
        if shaped.ndim != 1:
            # (the operation's device: on_device just chose _Device.device for it)
            flat = mx.reshape(shaped, (-1,), stream=mx_device or _Device.device)  # a view
        mx.async_eval(flat)
        _note_reads(flat)
        self._launched = (result, shaped, flat)
        return flat

    _launched: tuple[Any, Any, Any] | None = None

    def _narrow(self, array: Any) -> DType | None:
        try:
            return self.dtype(array)
        except TypeError:
            return None

    def adopt(
        self,
        result: Any,
        device: Device,
        mx_device: Any = None,
        device_name: str = "",
        shape: tuple[int, ...] | None = None,
    ) -> Array:
        """Adopt an MLX result as a fresh Metal carrier (no copy once evaluated).

        ``mx_device`` (with its ``device_name``) is the MLX device the operation ran
        on; by default the one ``stream()`` last chose. ``shape``, when given, is the
        result's shape and ``result`` its storage form of shape (1,) (a reduction to
        0-d computed with ``keepdims``).
        """
        launched = self._launched
        self._launched = None  # (holds no array past its adoption)
        if mx_device is None:
            # The device the operation ran on (stream() validated it for this call).
            mx_device, device_name = _Device.device, _Device.name
            if mx_device is None:
                mx_device, device_name = _mlx_device()
        name = device_name
        if launched is not None and launched[0] is result:
            _result, result, flat = launched
            dtype = self._from_mx[flat.dtype]
        else:
            dtype = self._from_mx.get(result.dtype) or self.dtype(result)
            target = self._to_mx[dtype]
            flat = result
            if result.dtype != target or result.ndim != 1:
                with self.mx.stream(mx_device):
                    if result.dtype != target:
                        result = result.astype(target)
                    flat = result.reshape(-1) if result.ndim != 1 else result  # a view
            # Scheduled, not waited for: the device computes while Python builds the
            # carrier, and whoever reads the values first waits (the carrier evaluates
            # before every host access; MLX orders later operations after it). Waiting
            # here, as raw MLX code calling mx.eval does, would put this call's Python
            # time on top of the device's. docs/array-api.md, "Lazy results".
            if flat.size:
                self.mx.async_eval(flat)
                _note_reads(flat)
        if not flat.size:
            self.mx.eval(flat)  # an empty array is never scheduled (nothing to overlap)
        carrier = Metal.__new__(Metal)
        carrier._adopt(flat, mx_device, name, dtype, mutable=True, evaluate=False)
        if shape is not None:
            return _make(carrier, contiguous_layout(shape), 0, device)
        out = _make(carrier, contiguous_layout(tuple(result.shape)), 0, device)
        if flat is not result:
            # Keep the N-d form for read() while the carrier is unwritten (version 0)
            # and holds this very array (docs/array-api.md, "Lazy results").
            out._host = (result, flat, 0)
        return out

    # -- direct calls: Arrays in, an Array out ------------------------------------------

    def direct(self, name: str) -> Callable[..., Array | None]:
        """Return ``name`` as a call on Metal Arrays that skips the general dispatch.

        The returned callable takes Arrays (and plain values) and returns the result
        Array, or ``None`` when the call is not one it takes (an operand that is not
        a whole-or-viewed plain Metal carrier, an empty operand, operands on two
        devices, a function MLX does not have): the general path then runs it. It
        runs the operation on the MLX device of the first operand's carrier, where
        that operand's storage lives. It exists for the per-call time on a GPU: the
        Python before a launch is the part of a call the device cannot overlap
        (docs/array-api.md, "Lazy results").
        """
        found = self._directs.get(name)
        if found is None:
            found = self._directs[name] = _direct(self, name)
        return found

    # -- conversions ----------------------------------------------------------------------

    def backend_dtype(self, dtype: DType) -> Any:
        """Return the MLX dtype of a namespace dtype."""
        return self._to_mx[dtype]

    def asarray(self, values: Any, dtype: DType | None) -> Any:
        """Move NumPy values to the device as an MLX array of ``dtype``."""
        array = np.asarray(values)
        if dtype is not None:
            array = array.astype(_dtypes.numpy_dtype(dtype), copy=False)
        if not array.flags.c_contiguous:
            array = np.array(array, order="C")  # (ascontiguousarray would make 0-d 1-d)
        with self.stream():
            return self.mx.array(array)

    def from_numpy(self, values: Any) -> Any:
        """Move a NumPy result to the device."""
        return self.asarray(values, None)

    def to_numpy(self, array: Any) -> Any:
        """Return a NumPy copy of an MLX array."""
        self.mx.eval(array)
        return np.array(array, copy=True)

    def cast(self, array: Any, dtype: DType) -> Any:
        """Return ``array`` cast to ``dtype`` (a new MLX array)."""
        with self.stream():
            return self.mx.array(array).astype(self._to_mx[dtype])

    def astype(self, array: Any, dtype: DType) -> Any:
        """Return ``array`` as ``dtype`` (itself when it already is)."""
        if array.dtype == self._to_mx[dtype]:
            return array
        with self.stream():
            return array.astype(self._to_mx[dtype])

    def scalar(self, value: object, dtype: DType) -> Any:
        """Return a 0-d MLX array of ``dtype`` holding ``value``."""
        with self.stream():
            return self.mx.array(value, dtype=self._to_mx[dtype])

    def broadcast_to(self, array: Any, shape: tuple[int, ...]) -> Any:
        """Broadcast ``array`` to ``shape`` (ValueError if it cannot)."""
        try:
            with self.stream():
                return self.mx.broadcast_to(array, shape)
        except Exception as exc:
            raise ValueError(f"cannot broadcast shape {tuple(array.shape)} to {shape}.") from exc

    # -- indexing and writes ----------------------------------------------------------------

    def getitem(self, array: Any, key: tuple[Any, ...], device: Device) -> Any:
        """Advanced indexing: integer arrays on MLX, anything else through NumPy."""
        mx = self.mx
        if len(key) == 1 and isinstance(key[0], mx.array) and key[0].dtype != mx.bool_:
            with self.stream():
                return wrap(array[key[0]], device)
        host_key = tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)
        return wrap(self.from_numpy(self.to_numpy(array)[host_key]), device)

    def set_advanced(self, array: Any, key: tuple[Any, ...], values: Any) -> Any:
        """Return a copy of ``array`` with ``values`` written at the advanced ``key``."""
        mx = self.mx
        host = self.to_numpy(array)
        host_key = tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)
        host[host_key] = self.to_numpy(values)
        return self.from_numpy(host)

    def source_carrier(self, values: Any, shape: tuple[int, ...], dtype: DType) -> Metal:
        """Return a Metal carrier holding ``values`` broadcast to ``shape`` (scatter source)."""
        with self.stream():
            # mx.contiguous: a broadcast keeps zero strides through reshape and
            # mx.array, and the carrier's device scatter needs row-major storage.
            full = self.mx.broadcast_to(self.astype(values, dtype), shape)
            flat = self.mx.contiguous(full).reshape(-1)
        mx_device, name = _mlx_device()
        carrier = Metal.__new__(Metal)
        carrier._adopt(flat, mx_device, name, dtype, mutable=False)
        return carrier

    def dlpack(self, array: Any, **kwargs: Any) -> Any:
        """Return the MLX array's DLPack capsule."""
        self.mx.eval(array)
        return self.mx.array(array).__dlpack__(**kwargs)

    def dlpack_device(self, array: Any) -> tuple[int, int]:
        """Return the MLX array's DLPack device."""
        device: tuple[int, int] = tuple(array.__dlpack_device__())
        return device


def _to_host(backend: MLXBackend, value: Any) -> Any:
    mx = backend.mx
    if isinstance(value, mx.array):
        return backend.to_numpy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(backend, v) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(backend, v) for k, v in value.items()}
    if isinstance(value, mx.Dtype):
        return _dtypes.numpy_dtype(backend._from_mx[value])
    return value


def _to_device(backend: MLXBackend, value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        dtype = _dtypes.from_numpy(array.dtype) or _dtypes.narrow(array.dtype)
        return backend.asarray(array, dtype)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_device(backend, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(backend, v) for v in value)
    return value


class _Namespace:
    """The array API functions over MLX arrays (what ``backend.ns`` is for Metal)."""

    def __init__(self, backend: MLXBackend) -> None:
        self._backend = backend
        self.linalg = _Sub(backend, "linalg", _LINALG)
        self.fft = _Sub(backend, "fft", _FFT)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        func = _build(self._backend, name, _MAIN)
        setattr(self, name, func)
        return func


class _Sub:
    def __init__(self, backend: MLXBackend, sub: str, table: dict[str, Any]) -> None:
        self._backend = backend
        self._sub = sub
        self._table = table

    def __getattr__(self, name: str) -> Callable[..., Any]:
        func = _build(self._backend, name, self._table, sub=self._sub)
        setattr(self, name, func)
        return func


def _build(
    backend: MLXBackend, name: str, table: dict[str, Any], sub: str | None = None
) -> Callable[..., Any]:
    """Return the MLX implementation of ``name`` (or the NumPy host delegation)."""
    mx = backend.mx

    def host(*args: Any, **kwargs: Any) -> Any:
        import array_api_compat.numpy as cnp

        namespace: Any = cnp if sub is None else getattr(cnp, sub)
        try:
            result = getattr(namespace, name)(
                *_to_host(backend, list(args)), **_to_host(backend, kwargs)
            )
        finally:
            _OPERATION.reads.clear()  # (computed from host copies: no device read)
        return _to_device(backend, result)

    host.__name__ = name
    entry = table.get(name, _HOST)
    if entry is _HOST:
        return host
    impl: Callable[..., Any] = entry(mx) if callable(entry) else getattr(mx, entry)
    array_type, launch, schedule, stream = mx.array, backend.launch, mx.async_eval, mx.stream
    carrier_dtypes, environ_get = backend._from_mx, os.environ.get
    if name in _SHARES_INPUT:
        impl = _private(impl, array_type)

    @functools.wraps(impl)
    def on_device(*args: Any, **kwargs: Any) -> Any:
        # (_touches_empty, inlined: this runs before every launch)
        for value in (*args, *kwargs.values()) if kwargs else args:
            if type(value) is array_type:
                if not value.size:
                    return host(*args, **kwargs)
            elif (type(value) is list or type(value) is tuple) and _touches_empty(
                array_type, value, {}
            ):
                return host(*args, **kwargs)
        device = _Device.device  # (backend.stream(), inlined)
        if device is None or environ_get(DEVICE_ENV, "") != _Device.key:
            device, _name = _mlx_device()
        try:
            with stream(device):
                out = impl(*args, **kwargs)
        except _NeedsHost:
            return host(*args, **kwargs)
        except BaseException:
            _OPERATION.reads.clear()  # (failed: nothing launched reads them)
            raise
        if type(out) is array_type and out.size:
            # Launch now, before the Python that adopts the result: that Python then
            # runs while the device computes (MLXBackend.launch; a 1-D result in a
            # carrier dtype is its own storage form, launched here directly).
            if out.ndim == 1 and out.dtype in carrier_dtypes:
                schedule(out)
                _note_reads(out)
                backend._launched = (out, out, out)
            else:
                launch(out)
        else:
            _OPERATION.reads.clear()  # (nothing scheduled reads them)
        return out

    return on_device


def _direct(backend: MLXBackend, name: str) -> Callable[..., Array | None]:
    """Build :meth:`MLXBackend.direct` for ``name`` (see there)."""
    entry = _MAIN.get(name, _HOST)
    if entry is _HOST:
        return _declined  # delegated to NumPy: the general path
    mx = backend.mx
    impl: Callable[..., Any] = entry(mx) if callable(entry) else getattr(mx, entry)
    array_type, schedule, stream = mx.array, mx.async_eval, mx.stream
    if name in _SHARES_INPUT:
        impl = _private(impl, array_type)
    carrier_dtypes, logical = backend._from_mx, backend._logical

    def call(x1: Any, x2: Any = _ABSENT, /, **kwargs: Any) -> Array | None:
        # (one or two operands, unrolled: this runs before every launch)
        carrier: Any = None  # the first Metal operand's carrier
        other: Any = None  # the second one's
        if type(x1) is Array:
            carrier = x1._carrier
            if type(carrier) is not Metal:
                return None  # an Evictable, another kind: the general path
            storage = carrier._mx_array
            if storage is None or not x1._layout._size:  # type: ignore[union-attr]
                return None  # released (the general path raises); empty (_touches_empty)
            first = x1
            a1 = logical(x1, storage)
        elif type(x1) in _PLAIN:
            first, a1 = None, x1
        else:
            return None
        if x2 is _ABSENT:
            if first is None:
                return None
            operands: tuple[Any, ...] = (a1,)
        else:
            if type(x2) is Array:
                other = x2._carrier
                if type(other) is not Metal:
                    return None
                storage = other._mx_array
                if storage is None or not x2._layout._size:  # type: ignore[union-attr]
                    return None
                if first is None:
                    first, carrier, other = x2, other, None
                elif x2._device is not first._device and x2._device != first._device:
                    return None  # (the general path raises the devices' ValueError)
                a2 = logical(x2, storage)
            elif type(x2) in _PLAIN and first is not None:
                a2 = x2
            else:
                return None
            operands = (a1, a2)
        mx_device = carrier._device
        try:
            with stream(mx_device):
                out = impl(*operands, **kwargs)
        except _NeedsHost:
            return None
        if type(out) is not array_type:
            result: Array = wrap(out, first._device)  # (nothing scheduled)
            return result
        dtype = carrier_dtypes.get(out.dtype)
        if dtype is not None and out.ndim == 1 and out.size:
            # The storage form itself (1-D, a carrier dtype): launched, then adopted.
            schedule(out)
            _record(carrier, other, out)
            return _adopt_scheduled(out, dtype, out.shape, first._device, carrier)
        if out.size:
            _record(carrier, other, backend.launch(out, mx_device))
        return backend.adopt(out, first._device, mx_device, carrier._device_name)

    if name not in _REDUCTIONS:
        call.__name__ = name
        return call
    general = call

    def reduction(x: Any, /, *, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        # A 1-D operand reduced whole: MLX's keepdims form of the 0-d result, shape
        # (1,), is its storage form itself (no reshape in the graph, less Python).
        layout: Any = x._layout if type(x) is Array else None
        if (
            axis is not None
            or keepdims
            or layout is None
            or type(x._carrier) is not Metal
            or len(layout._shape) != 1
        ):
            return general(x, axis=axis, keepdims=keepdims, **kwargs)
        carrier: Any = x._carrier
        storage = carrier._mx_array
        if storage is None or not layout._size:
            return None  # released (the general path raises); empty (_touches_empty)
        array = logical(x, storage)
        mx_device = carrier._device
        with stream(mx_device):
            out = impl(array, axis=None, keepdims=True, **kwargs)
        dtype = carrier_dtypes.get(out.dtype)
        if dtype is not None:
            schedule(out)
            _record(carrier, None, out)
            return _adopt_scheduled(out, dtype, (), x._device, carrier)
        _record(carrier, None, backend.launch(out, mx_device))
        return backend.adopt(out, x._device, mx_device, carrier._device_name, shape=())

    reduction.__name__ = name
    return reduction


def _declined(*values: Any, **kwargs: Any) -> None:
    return None


def _adopt_scheduled(
    flat: Any, dtype: DType, shape: tuple[int, ...], device: Device, operand: Any
) -> Array:
    """:meth:`MLXBackend.adopt` of a result launched in its storage form by a direct call.

    ``flat`` is 1-D, in ``dtype``, scheduled on the MLX device of ``operand`` (the
    first Metal operand's carrier); ``shape`` is the result's (``()`` for a 0-d
    reduction kept in its (1,) form).
    """
    carrier = Metal.__new__(Metal)
    carrier._adopt(flat, operand._device, operand._device_name, dtype, mutable=True, evaluate=False)
    return _make(carrier, contiguous_layout(shape), 0, device)


def _record(carrier: Any, other: Any, scheduled: Any) -> None:
    """:func:`_note_reads` for a direct call, which knows its operands' carriers."""
    thread = get_ident()
    carrier._note_device_read(thread, scheduled)
    if other is not None and other is not carrier:
        other._note_device_read(thread, scheduled)
    records = _OPERATION.records
    if records is not None:  # (a thread other than the main one: see _ThreadRecords)
        records.carriers.add(carrier)
        if other is not None:
            records.carriers.add(other)


get_ident: Final = threading.get_ident


#: The second operand of a one-operand direct call (a marker: None is a value).
_ABSENT: Final = object()


#: Reductions (``axis``, ``keepdims`` and plain keywords) whose direct call reduces
#: a 1-D operand whole into the (1,)-shaped storage form of its 0-d result.
_REDUCTIONS: Final = frozenset(
    {"sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "argmax", "argmin"}
)

#: Operand types a direct call passes through unchanged (Python scalars).
_PLAIN: Final = frozenset({bool, int, float})

_HOST: Final = object()

#: MLX functions whose result may be a view of an argument's buffer (or the argument
#: itself). A Metal carrier owns its buffer: its scalar writes go into it in place, so
#: adopting such a view would let a write through one carrier change another without
#: its version moving. Their results are copied (``mlx.core.array(view)``).
_SHARES_INPUT: Final = frozenset(
    {
        "broadcast_arrays",
        "broadcast_to",
        "conj",
        "expand_dims",
        "flip",
        "matrix_transpose",
        "meshgrid",
        "moveaxis",
        "permute_dims",
        "real",
        "reshape",
        "squeeze",
        "unstack",
    }
)


def _private(impl: Callable[..., Any], array_type: Any) -> Callable[..., Any]:
    """Wrap ``impl`` so that each MLX array it returns is a copy, not a view."""

    def func(*args: Any, **kwargs: Any) -> Any:
        out = impl(*args, **kwargs)
        if type(out) is array_type:
            return array_type(out)
        if type(out) in (list, tuple):
            return type(out)(array_type(o) if type(o) is array_type else o for o in out)
        return out

    return func


def _touches_empty(
    array_type: Any, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]
) -> bool:
    """Whether an MLX array argument (or one in a list or tuple argument) has no elements.

    Such calls go to NumPy on the host (a copy of nothing): MLX 0.32.4's reductions
    over an empty array on its CPU device can spin for good inside ``mlx.core.eval``
    (``std``, ``var``, ``sum`` of ``[]``; tests/array_api/test_fast_paths.py runs them
    in a subprocess with a time limit), and NumPy gives the standard's answers.
    """
    value: Any
    for value in (*args, *kwargs.values()):
        if type(value) is array_type:
            if value.size == 0:
                return True
        elif type(value) in (list, tuple):
            item: Any
            for item in value:
                if type(item) is array_type and item.size == 0:
                    return True
    return False


def _sum_like(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        reduce = getattr(mx, name)

        def func(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
            if dtype is not None and x.dtype != dtype:
                x = x.astype(dtype)  # (an astype to the same dtype would copy)
            out = reduce(x, axis=axis, keepdims=keepdims)
            if dtype is not None and out.dtype != dtype:
                out = out.astype(dtype)  # (MLX sums bool in int32; dtype=bool asks bool)
            return _fresh(mx, out, x)

        return func

    return make


def _reduce(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        reduce = getattr(mx, name)

        def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
            return _fresh(mx, reduce(x, axis=axis, keepdims=keepdims), x)

        return func

    return make


def _fresh(mx: Any, out: Any, x: Any) -> Any:
    """Return ``out``, a reduction of ``x``, as a new array when it may be ``x`` itself.

    MLX answers a reduction that combines nothing (``axis=()``, a 0-d or one-element
    operand, an axis of length 1) with its operand or a view of it; adopted as the
    result's storage, that buffer would be shared by two carriers (a write to one
    changing the other, versions unmoved).
    """
    return mx.array(out) if out.size == x.size else out


def _abs(mx: Any) -> Callable[..., Any]:
    def func(x: Any) -> Any:
        if x.dtype == mx.bool_:
            return mx.array(x)  # (MLX's abs of bool is its operand itself: a copy)
        return mx.abs(x)

    return func


def _moment(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        moment = getattr(mx, name)

        def func(x: Any, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Any:
            if x.dtype != mx.float32:
                x = x.astype(mx.float32)  # (MLX would sum integers in int32, wrapping)
            if correction == int(correction):
                return moment(x, axis=axis, keepdims=keepdims, ddof=int(correction))
            # MLX takes an integer ddof only: a fractional correction (the standard
            # allows any real) scales the biased variance by N / (N - correction).
            count = x.size if axis is None else _count(x.shape, axis)
            biased = mx.var(x, axis=axis, keepdims=keepdims)
            variance = (
                biased * (count / (count - correction))
                if count > correction
                else (biased * float("nan"))
            )
            return variance if name == "var" else mx.sqrt(variance)

        return func

    return make


def _count(shape: Any, axis: Any) -> int:
    """Return how many elements a reduction over ``axis`` (an int or a tuple) combines."""
    count = 1
    for a in (axis,) if isinstance(axis, int) else axis:
        count *= shape[a]
    return count


def _mean(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if x.dtype != mx.float32:
            x = x.astype(mx.float32)  # (MLX would sum integers in int32, wrapping)
        return mx.mean(x, axis=axis, keepdims=keepdims)

    return func


def _sign(mx: Any) -> Callable[..., Any]:
    def func(x: Any) -> Any:
        if x.dtype != mx.float32:
            # (MLX's sign of bool is its operand itself: a copy)
            return mx.array(x) if x.dtype == mx.bool_ else mx.sign(x)
        return mx.where(mx.isnan(x), x, mx.sign(x))  # (MLX's sign(NaN) is 0)

    return func


def _cumulative(name: str, initial: int) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        def func(x: Any, axis: Any = None, dtype: Any = None, include_initial: bool = False) -> Any:
            if axis is None:
                if x.ndim > 1:
                    raise ValueError("axis is required for arrays of more than one axis.")
                axis = 0
            if dtype is not None and x.dtype != dtype:
                x = x.astype(dtype)
            out = getattr(mx, name)(x, axis=axis)
            if include_initial:
                shape = list(x.shape)
                shape[axis] = 1
                out = mx.concatenate([mx.full(shape, initial, dtype=out.dtype), out], axis=axis)
            return out

        return func

    return make


def _arg(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
            return getattr(mx, name)(x, axis=axis, keepdims=keepdims).astype(mx.int32)

        return func

    return make


def _zeros_like(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        def func(shape: Any, dtype: Any = None) -> Any:
            return getattr(mx, name)(shape, dtype=dtype)

        return func

    return make


def _arange(mx: Any) -> Callable[..., Any]:
    def func(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
        if stop is None:
            start, stop = 0, start
        return mx.arange(start, stop, step, dtype=dtype)

    return func


def _linspace(mx: Any) -> Callable[..., Any]:
    def func(start: Any, stop: Any, num: int, dtype: Any = None, endpoint: bool = True) -> Any:
        if endpoint:
            return mx.linspace(start, stop, num, dtype=dtype)
        return mx.linspace(start, stop, num + 1, dtype=dtype)[:-1]

    return func


def _eye(mx: Any) -> Callable[..., Any]:
    def func(n_rows: int, n_cols: int | None = None, k: int = 0, dtype: Any = None) -> Any:
        cols = n_rows if n_cols is None else n_cols
        # A diagonal beyond the matrix is all zeros: clamp k into MLX's int range.
        k = max(-n_rows - 1, min(k, cols + 1))
        return mx.eye(n_rows, cols, k, dtype=dtype)

    return func


def _full(mx: Any) -> Callable[..., Any]:
    def func(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
        return mx.full(shape, fill_value, dtype=dtype)

    return func


def _positive(mx: Any) -> Callable[..., Any]:
    return lambda x: mx.array(x)


def _clip(mx: Any) -> Callable[..., Any]:
    def func(x: Any, min: Any = None, max: Any = None) -> Any:
        if min is None and max is None:
            return mx.array(x)
        out = mx.clip(x, min, max)
        return out.astype(x.dtype) if out.dtype != x.dtype else out

    return func


# MLX answers an operation that changes nothing (a concat or stack of one array, a
# tile or repeat by 1) with the operand's own buffer; such results are copied, as the
# views of _SHARES_INPUT are, so that no two carriers share a buffer.


def _concat(mx: Any) -> Callable[..., Any]:
    def func(arrays: Any, axis: Any = 0) -> Any:
        if axis is None:
            out = mx.concatenate([a.reshape(-1) for a in arrays], axis=0)
        else:
            out = mx.concatenate(list(arrays), axis=axis)
        return mx.array(out) if len(arrays) == 1 else out

    return func


def _stack(mx: Any) -> Callable[..., Any]:
    def func(arrays: Any, axis: int = 0) -> Any:
        out = mx.stack(list(arrays), axis=axis)
        return mx.array(out) if len(arrays) == 1 else out

    return func


def _reshape(mx: Any) -> Callable[..., Any]:
    return lambda x, shape, copy=None: mx.reshape(x, shape)


def _flip(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: Any = None) -> Any:
        if axis is None:
            axis = tuple(range(x.ndim))
        if isinstance(axis, int):
            axis = (axis,)
        index = [slice(None)] * x.ndim
        for a in axis:
            index[a] = slice(None, None, -1)
        return x[tuple(index)]

    return func


def _permute(mx: Any) -> Callable[..., Any]:
    return lambda x, axes: mx.transpose(x, axes)


def _matrix_transpose(mx: Any) -> Callable[..., Any]:
    def func(x: Any) -> Any:
        if x.ndim < 2:
            raise ValueError("matrix_transpose needs at least two axes.")
        return mx.swapaxes(x, -1, -2)

    return func


def _check_axis(name: str, axis: int, ndim: int) -> None:
    """Raise NumPy's ``AxisError`` (an IndexError and a ValueError) for an axis out of range."""
    if not -ndim <= axis < ndim:
        hint = (
            "a 0-d array has no axis: reshape it to 1-D first."
            if ndim == 0
            else f"pass an axis in [{-ndim}, {ndim})."
        )
        raise np.exceptions.AxisError(
            f"{name}: axis {axis} is out of range for an array of {ndim} dimensions; {hint}"
        )


def _squeeze(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: Any) -> Any:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        for a in axes:
            _check_axis("squeeze", a, x.ndim)
            if x.shape[a] != 1:
                raise ValueError(f"cannot squeeze axis {a} of extent {x.shape[a]}.")
        return mx.squeeze(x, axis=axes)

    return func


def _expand_dims(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: int = 0) -> Any:
        if not -x.ndim - 1 <= axis <= x.ndim:
            raise IndexError(f"axis {axis} is out of range for {x.ndim + 1} axes.")
        return mx.expand_dims(x, axis)

    return func


def _unstack(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: int = 0) -> tuple[Any, ...]:
        axis = axis % x.ndim if x.ndim else axis
        lead = (slice(None),) * axis
        keys = [(*lead, i) for i in range(x.shape[axis])]
        return tuple(x[key] for key in keys)

    return func


def _moveaxis(mx: Any) -> Callable[..., Any]:
    def func(x: Any, source: Any, destination: Any) -> Any:
        ndim = x.ndim
        src = [source] if isinstance(source, int) else list(source)
        dst = [destination] if isinstance(destination, int) else list(destination)
        if len(src) != len(dst):
            raise ValueError("moveaxis: source and destination need as many axes.")
        src = [a % ndim if -ndim <= a < ndim else _axis_error(a, ndim) for a in src]
        dst = [a % ndim if -ndim <= a < ndim else _axis_error(a, ndim) for a in dst]
        if len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise ValueError("moveaxis: repeated axis.")
        order = [a for a in range(ndim) if a not in src]
        for d, s in sorted(zip(dst, src, strict=True)):
            order.insert(d, s)
        return mx.transpose(x, order)

    return func


def _axis_error(axis: int, ndim: int) -> int:
    raise IndexError(f"axis {axis} is out of range for {ndim} axes.")


def _roll(mx: Any) -> Callable[..., Any]:
    return lambda x, shift, axis=None: mx.roll(x, shift, axis=axis)


def _tile(mx: Any) -> Callable[..., Any]:
    def func(x: Any, repetitions: Any) -> Any:
        out = mx.tile(x, list(repetitions))
        return mx.array(out) if out.size == x.size else out  # (all repetitions 1)

    return func


def _repeat(mx: Any) -> Callable[..., Any]:
    def func(x: Any, repeats: Any, axis: Any = None) -> Any:
        if isinstance(repeats, mx.array):
            raise _NeedsHost
        if axis is None:
            x = x.reshape(-1)
            axis = 0
        out = mx.repeat(x, repeats, axis=axis)
        return mx.array(out) if out.size == x.size else out  # (repeats of 1)

    return func


class _NeedsHost(Exception):
    """Raised inside an MLX implementation to delegate one call to NumPy instead."""


def _take(mx: Any) -> Callable[..., Any]:
    def func(x: Any, indices: Any, axis: Any = None) -> Any:
        if axis is None:
            if x.ndim != 1:
                raise ValueError("take needs axis= for arrays of more than one axis.")
            axis = 0
        return mx.take(x, indices, axis=axis)

    return func


def _take_along_axis(mx: Any) -> Callable[..., Any]:
    return lambda x, indices, axis=-1: mx.take_along_axis(x, indices, axis=axis)


def _where(mx: Any) -> Callable[..., Any]:
    return lambda condition, x1, x2: mx.where(condition, x1, x2)


def _sort(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
        _check_axis("sort", axis, x.ndim)
        out = mx.sort(x, axis=axis)
        if descending:
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, -1)
            out = out[tuple(index)]
        return out

    return func


def _argsort(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: int = -1, descending: bool = False, stable: bool = True) -> Any:
        _check_axis("argsort", axis, x.ndim)
        if not descending:
            return mx.argsort(x, axis=axis).astype(mx.int32)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, -1)
        flipped = mx.argsort(x[tuple(index)], axis=axis).astype(mx.int32)
        n = x.shape[axis]
        return (n - 1 - flipped)[tuple(index)]

    return func


def _vecdot(mx: Any) -> Callable[..., Any]:
    def func(x1: Any, x2: Any, axis: int = -1) -> Any:
        if x1.shape[axis] != x2.shape[axis]:
            raise ValueError("vecdot: the contracted axes differ in extent.")
        return mx.sum(x1 * x2, axis=axis)

    return func


def _bit_shift(name: str) -> Callable[[Any], Callable[..., Any]]:
    """Shifts by the bit width or more: the standard's 0 (-1 for a negative x1 >> n).

    MLX shifts as the hardware does, which takes the count modulo the width
    (``1 << 32`` is 1 for int32).
    """

    def make(mx: Any) -> Callable[..., Any]:
        shift = getattr(mx, name)

        def func(x1: Any, x2: Any) -> Any:
            out = shift(x1, x2)
            too_far = mx.greater_equal(x2, 8 * out.dtype.size)
            if name == "left_shift":
                return mx.where(too_far, mx.zeros_like(out), out)
            sign = mx.where(mx.less(x1, 0), -1, 0).astype(out.dtype)
            return mx.where(too_far, sign, out)

        return func

    return make


def _int_division(name: str) -> Callable[[Any], Callable[..., Any]]:
    """Integer ``floor_divide``/``remainder`` that survive ``INT32_MIN`` by ``-1``.

    MLX divides integers with the CPU's instruction, which traps on the one quotient
    that overflows (SIGFPE kills the process). A divisor of -1 is answered without
    dividing: ``-x1`` (wrapping, as NumPy's ``INT32_MIN // -1``) and 0.
    """

    def make(mx: Any) -> Callable[..., Any]:
        divide = getattr(mx, name)

        def integral(value: Any) -> bool:
            if isinstance(value, mx.array):
                return bool(mx.issubdtype(value.dtype, mx.integer))
            return type(value) is int

        def func(x1: Any, x2: Any) -> Any:
            if not (integral(x1) and integral(x2)):
                return divide(x1, x2)
            by_minus_one = mx.equal(x2, -1)
            out = divide(x1, mx.where(by_minus_one, 1, x2))
            instead = mx.negative(x1) if name == "floor_divide" else mx.zeros_like(out)
            return mx.where(by_minus_one, instead, out)

        return func

    return make


def _inexact(mx: Any, *arrays: Any) -> None:
    """MLX multiplies matrices of floating dtypes only: hand integer ones to NumPy."""
    for a in arrays:
        if a.dtype != mx.float32 and not mx.issubdtype(a.dtype, mx.floating):
            raise _NeedsHost


def _matmul(mx: Any) -> Callable[..., Any]:
    matmul, float32_only = mx.matmul, frozenset({mx.float32})

    def func(x1: Any, x2: Any) -> Any:
        # (float32, the common case, first; a set lookup is cheaper than MLX's dtype !=)
        if x1.dtype not in float32_only or x2.dtype not in float32_only:
            _inexact(mx, x1, x2)
        return matmul(x1, x2)

    return func


def _tensordot(mx: Any) -> Callable[..., Any]:
    def func(x1: Any, x2: Any, axes: Any = 2) -> Any:
        _inexact(mx, x1, x2)
        return mx.tensordot(x1, x2, axes=axes)

    return func


def _tril(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        return lambda x, k=0: getattr(mx, name)(x, k)

    return make


def _meshgrid(mx: Any) -> Callable[..., Any]:
    return lambda *arrays, indexing="xy": mx.meshgrid(*arrays, indexing=indexing)


def _broadcast_arrays(mx: Any) -> Callable[..., Any]:
    return lambda *arrays: mx.broadcast_arrays(*arrays)


def _diff(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
        parts = [p for p in (prepend, x, append) if p is not None]
        if len(parts) > 1:
            x = mx.concatenate(parts, axis=axis)
        return mx.diff(x, n=n, axis=axis)

    return func


def _count_nonzero(mx: Any) -> Callable[..., Any]:
    def func(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return mx.sum(x != 0, axis=axis, keepdims=keepdims).astype(mx.int32)

    return func


def _freq(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        def func(n: int, d: float = 1.0, dtype: Any = None) -> Any:
            out = getattr(mx.fft, name)(n, d=d)
            return out.astype(dtype) if dtype is not None else out

        return func

    return make


def _shift(name: str) -> Callable[[Any], Callable[..., Any]]:
    def make(mx: Any) -> Callable[..., Any]:
        return lambda x, axes=None: getattr(mx.fft, name)(x, axes=axes)

    return make


_MAIN: Final[dict[str, Any]] = {
    # elementwise
    "abs": _abs,
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "bitwise_invert": "bitwise_invert",
    "ceil": "ceil",
    "conj": "conj",
    "cos": "cos",
    "cosh": "cosh",
    "exp": "exp",
    "expm1": "expm1",
    "floor": "floor",
    "imag": "imag",
    "isfinite": "isfinite",
    "isinf": "isinf",
    "isnan": "isnan",
    "log": "log",
    "log1p": "log1p",
    "log2": "log2",
    "log10": "log10",
    "logical_not": "logical_not",
    "negative": "negative",
    "positive": _positive,
    "real": "real",
    "reciprocal": "reciprocal",
    "round": "round",
    "sign": _sign,
    "sin": "sin",
    "sinh": "sinh",
    "square": "square",
    "sqrt": "sqrt",
    "tan": "tan",
    "tanh": "tanh",
    "trunc": "trunc",
    "add": "add",
    "atan2": "arctan2",
    "bitwise_and": "bitwise_and",
    "bitwise_left_shift": _bit_shift("left_shift"),
    "bitwise_or": "bitwise_or",
    "bitwise_right_shift": _bit_shift("right_shift"),
    "bitwise_xor": "bitwise_xor",
    "divide": "divide",
    "equal": "equal",
    "floor_divide": _int_division("floor_divide"),
    "greater": "greater",
    "greater_equal": "greater_equal",
    "less": "less",
    "less_equal": "less_equal",
    "logaddexp": "logaddexp",
    "logical_and": "logical_and",
    "logical_or": "logical_or",
    "logical_xor": "logical_xor",
    "maximum": "maximum",
    "minimum": "minimum",
    "multiply": "multiply",
    "not_equal": "not_equal",
    "pow": "power",
    "remainder": _int_division("remainder"),
    "subtract": "subtract",
    "clip": _clip,
    # creation
    "zeros": _zeros_like("zeros"),
    "ones": _zeros_like("ones"),
    "empty": _zeros_like("zeros"),
    "full": _full,
    "eye": _eye,
    "arange": _arange,
    "linspace": _linspace,
    "meshgrid": _meshgrid,
    "tril": _tril("tril"),
    "triu": _tril("triu"),
    # linear algebra
    "matmul": _matmul,
    "matrix_transpose": _matrix_transpose,
    "tensordot": _tensordot,
    "vecdot": _vecdot,
    # manipulation
    "broadcast_arrays": _broadcast_arrays,
    "broadcast_to": "broadcast_to",
    "concat": _concat,
    "expand_dims": _expand_dims,
    "flip": _flip,
    "moveaxis": _moveaxis,
    "permute_dims": _permute,
    "repeat": _repeat,
    "reshape": _reshape,
    "roll": _roll,
    "squeeze": _squeeze,
    "stack": _stack,
    "tile": _tile,
    "unstack": _unstack,
    # searching, sorting, indexing
    "argmax": _arg("argmax"),
    "argmin": _arg("argmin"),
    "count_nonzero": _count_nonzero,
    "where": _where,
    "sort": _sort,
    "argsort": _argsort,
    "take": _take,
    "take_along_axis": _take_along_axis,
    # statistics, utilities
    "sum": _sum_like("sum"),
    "prod": _sum_like("prod"),
    "max": _reduce("max"),
    "min": _reduce("min"),
    "mean": _mean,
    "std": _moment("std"),
    "var": _moment("var"),
    "all": _reduce("all"),
    "any": _reduce("any"),
    "cumulative_sum": _cumulative("cumsum", 0),
    "cumulative_prod": _cumulative("cumprod", 1),
    "diff": _diff,
}

_LINALG: Final[dict[str, Any]] = {
    "matmul": _matmul,
    "matrix_transpose": _matrix_transpose,
    "tensordot": _tensordot,
    "vecdot": _vecdot,
    # The factorizations stay with NumPy: MLX runs them on its CPU stream only, and
    # mlx 0.32's linalg.inv kills the process (SIGFPE) on some singular inputs.
}

_FFT: Final[dict[str, Any]] = {
    "fftfreq": _freq("fftfreq"),
    "rfftfreq": _freq("rfftfreq"),
    "fftshift": _shift("fftshift"),
    "ifftshift": _shift("ifftshift"),
}
