"""The MLX backend: ``mlx.core`` behind the standard's names, for the Metal device.

MLX is not imported by this module: it gets ``mlx.core`` from the Metal carrier
module's lazy import point (:func:`stridewave.carriers._mlx_runtime.import_mlx`), so the
Metal carrier module stays the only one that imports MLX. Every operation runs on
the MLX device the Metal carriers use (``STRIDEWAVE_METAL_DEVICE``).

Where MLX has the function, the call is a rename; where it answers otherwise, a shim
of :mod:`~stridewave.array_api._mlx_shims`; where it has none with the standard's
semantics (data-dependent output shapes such as ``nonzero``, ``unique_*`` and
boolean-mask indexing; ``copysign``, ``hypot``, ``nextafter``, ``signbit``; the
factorizations), the call is delegated to NumPy (``array_api_compat.numpy``) on a
host copy and the result is moved back to the device. docs/array-api.md lists them.

*Lazy results.* An operation's result is scheduled (``mlx.core.async_eval``) in the
form its carrier stores (1-D, a carrier dtype), its device read is recorded on the
Metal carriers it read (a host write then waits for it), and it is adopted as a
fresh carrier without waiting: :meth:`MLXBackend.complete`, the one place that does
so. docs/array-api.md, "Lazy results".

*Direct calls.* :meth:`MLXBackend.direct` gives, per function, a call on Metal Arrays
that skips the general dispatch (the Python before a launch is the part of a call a
GPU cannot overlap).

The bridge to the carrier is the Metal carrier's internal API: ``mlx_array``,
``mlx_device``, ``mlx_device_name``, ``adopt_array``, ``note_device_read`` and
``forget_reads_of``.
"""

from __future__ import annotations

import functools
import os
import threading
import types
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._backend import (
    Adopted,
    check_bounds,
    contiguous_layout,
    quiet,
    through_float32,
)
from stridewave.array_api._places import carrier_for, place
from stridewave.carriers import Carrier, Evictable, Metal
from stridewave.carriers._extension import HALF_DTYPES
from stridewave.carriers._metal import check_result_size
from stridewave.carriers._mlx_runtime import (
    DEVICE_ENV,
    FORKED_AFTER_MLX,
    import_mlx,
    mlx_eval,
    require_alive,
    runtime,
    select_device,
)
from stridewave.carriers._scatter import strided_view
from stridewave.dtypes import DType

if TYPE_CHECKING:
    import numpy.typing as npt

    from stridewave.tensor import Tensor

__all__ = ["MLXBackend", "backend", "describe"]

#: Metal's defaults: MLX's floating ones (float32 and complex64 compute on the
#: accelerator), and int64 for integers and indices, as on host devices, so that code
#: and the consumers' suites read the same integer dtype on every device (CONTRACT
#: section 9, version 3; docs/array-api.md).
_DEFAULTS: Final[Mapping[str, DType]] = types.MappingProxyType(
    {
        "real floating": DType.Float32,
        "complex floating": _dtypes.DTYPES["complex64"],
        "integral": _dtypes.DTYPES["int64"],
        "indexing": _dtypes.DTYPES["int64"],
    }
)
_INT64: Final = _dtypes.DTYPES["int64"]
_UINT64: Final = _dtypes.DTYPES["uint64"]
#: ml_dtypes' bfloat16, the NumPy form of MLX's bfloat16.
_BFLOAT16: Final = _dtypes.numpy_dtype(_dtypes.bfloat16)


class _Device:
    """The MLX device of the Metal carriers, chosen once per process setting."""

    key: str | None = None
    device: Any = None
    name: str = ""


def _mlx_device() -> tuple[Any, str]:
    key = os.environ.get(DEVICE_ENV, "")
    if _Device.key != key or _Device.device is None:
        _Device.device, _Device.name = select_device(import_mlx())
        _Device.key = key
    return _Device.device, _Device.name


# -- device reads: what a host write into a carrier must wait for ---------------------


class _Operation(threading.local):
    """The Metal carriers read by the calling thread's operation being prepared.

    ``read()`` notes each Metal carrier it reads here (a weak reference: a failed
    operation keeps nothing alive); :meth:`MLXBackend.complete` records the array it
    scheduled on each of them (``Metal.note_device_read``), after which a host write
    into such a carrier waits for that array.
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
    (``Metal.forget_reads_of``), so an ended thread keeps no result alive.
    """

    __slots__ = ("carriers", "thread")

    def __init__(self, thread: int) -> None:
        self.thread = thread
        self.carriers: weakref.WeakSet[Metal] = weakref.WeakSet()

    def __del__(self) -> None:
        for carrier in list(self.carriers):
            carrier.forget_reads_of(self.thread)


_OPERATION: Final = _Operation()
get_ident: Final = threading.get_ident


def _note_read(carrier: Metal) -> None:
    """Note that this thread's operation being prepared reads ``carrier``.

    The list is emptied at each launch; reads that launch nothing leave their notes
    until then, so a repeat of the last one is not noted again, and past 64 notes the
    dead ones are dropped.
    """
    reads = _OPERATION.reads
    if reads and reads[-1]() is carrier:
        return
    if len(reads) >= 64:
        reads[:] = [ref for ref in reads if ref() is not None]
    reads.append(weakref.ref(carrier))


def _record(first: Metal | None, other: Metal | None, scheduled: Any) -> None:
    """Record ``scheduled`` as a device read of the carriers the operation read.

    ``first``/``other``: the operand carriers of a direct call; ``None``: those this
    thread's ``read()`` noted. Called once the operation is launched and before it
    returns: a host write ordered after the call then waits for ``scheduled``; one
    racing the call itself is unordered with it, as between any two threads.
    """
    operation = _OPERATION
    records = operation.records
    thread = get_ident()
    if first is not None:
        first.note_device_read(thread, scheduled)
        if other is not None and other is not first:
            other.note_device_read(thread, scheduled)
        if records is not None:  # (a thread other than the main one: see _ThreadRecords)
            records.carriers.add(first)
            if other is not None:
                records.carriers.add(other)
        return
    reads = operation.reads
    if reads:
        for ref in reads:
            carrier = ref()
            if carrier is not None:
                carrier.note_device_read(thread, scheduled)
                if records is not None:
                    records.carriers.add(carrier)
        reads.clear()


def _storage(carrier: Carrier | None, note: bool) -> Any:
    """Return the live 1-D MLX array of a Metal carrier (an Evictable: of its primary).

    ``note``: note the read for the operation being prepared (False for a host
    export, which launches nothing).
    """
    if type(carrier) is not Metal:  # (the common case skips two ABC instance checks)
        if isinstance(carrier, Evictable):
            if carrier.is_evicted():
                np.asarray(carrier)  # pages the values back in (carrier rule)
            carrier = carrier.primary
        if not isinstance(carrier, Metal):
            raise TypeError(f"{carrier!r} is not a Metal carrier.")
    if note:
        _note_read(carrier)
    array = carrier.mlx_array
    if array is None:
        raise RuntimeError(_messages.released(carrier))
    return array


def _held(carrier: Carrier | None) -> bool:
    """Whether ``carrier`` is the host carrier of a host-held dtype (not Metal storage).

    The capability record answers (Metal storage, an Evictable over it included, is
    not host addressable), not the carrier's class.
    """
    return carrier is not None and carrier.capabilities.host_addressable


def _host_view(tensor: Tensor) -> npt.NDArray[Any]:
    """Return a read-only NumPy view of a host-held Tensor's logical values (no copy)."""
    assert tensor._layout is not None
    view: npt.NDArray[Any] = strided_view(
        np.asarray(tensor._carrier), tensor._offset, tensor._layout
    )
    return view


def _hold(result: npt.NDArray[Any]) -> Adopted:
    """Adopt a NumPy result of a host-held dtype as a host carrier of the Metal place."""
    flags = result.flags
    # (the carrier adopts the buffer: one it alone owns, writable and C-ordered)
    array = (
        result
        if flags.c_contiguous and flags.writeable and result.base is None
        else np.array(result, order="C", copy=True)
    )
    dtype = _dtypes.from_numpy(array.dtype) or _dtypes.narrow(array.dtype)
    flat = array.reshape(-1)
    kind: Any = carrier_for("CPU", dtype)
    carrier = kind.from_numpy(flat, mutable=True)
    return (carrier, contiguous_layout(tuple(array.shape)), 0, None)


class _Result:
    """A namespace function's result, already launched and adopted (``ns.f(...)``)."""

    __slots__ = ("adopted",)

    def __init__(self, adopted: Adopted) -> None:
        self.adopted = adopted


class MLXBackend:
    """Compute for the Metal device: ``mlx.core`` on the Metal carriers' MLX device.

    Notes
    -----
    Implements :class:`~stridewave.array_api._backend.Backend` for the Metal device
    (CONTRACT section 9).
    """

    name: Final = "mlx"
    host_addressable: Final = False
    has_direct: Final = True

    def __init__(self) -> None:
        from stridewave.array_api import _mlx_shims  # (imports MLX: on first use only)

        self.mx = mx = import_mlx()
        self.shims = _mlx_shims
        names = {dtype: name for name, dtype in {**_dtypes.DTYPES, **_dtypes.HALF}.items()}
        row = place("Metal")
        self._to_mx: dict[DType, Any] = {
            dtype: mx.bool_ if dtype is DType.Bool else getattr(mx, names[dtype])
            # (MLX has float16 and bfloat16 on every device: beyond the standard)
            for dtype in row.device_dtypes() + HALF_DTYPES
        }
        self._from_mx: dict[Any, DType] = {v: k for k, v in self._to_mx.items()}
        #: The Metal device's carrier class of each dtype (Metal for the spec's).
        self._kinds: dict[DType, Any] = {d: carrier_for("Metal", d) for d in self._to_mx}
        #: The dtypes the Metal place holds in host memory and computes in NumPy: those
        #: MLX cannot hold on its device (complex128; float64 on a GPU). Their Arrays
        #: are Metal Arrays over a host carrier (CONTRACT section 9, version 3).
        #: The row's answer (``Place.host_held``), taken once: the device is chosen once.
        self.held: frozenset[DType] = row.host_held()
        self._dtypes = types.MappingProxyType(
            {**self._to_mx, **{d: _dtypes.numpy_dtype(d) for d in self.held}}
        )
        self.ns = _Namespace(self)
        self._directs: dict[str, Callable[..., Adopted | None] | None] = {}

    def describe(self) -> str:
        """Return the device in words: ``"Metal: "`` and the MLX device and version."""
        return describe("Metal")

    def dtypes(self) -> Mapping[DType, Any]:
        """Return the dtypes Metal stores, each with its MLX dtype."""
        return self._dtypes

    def default_dtypes(self) -> Mapping[str, DType]:
        """Return the default dtypes of Metal."""
        return _DEFAULTS

    def native_dtype(self, dtype: DType) -> Any:
        """Return the MLX dtype of a namespace dtype (NumPy's for a host-held one)."""
        found = self._to_mx.get(dtype)
        return found if found is not None else _dtypes.numpy_dtype(dtype)

    def accumulator(self, dtype: DType, requested: DType | None) -> Any:
        """Return the MLX accumulator dtype of sums and products of ``dtype``.

        The standard's default: a floating dtype keeps itself, bool and signed
        integers sum in the default integer (int64), unsigned
        ones in uint64 (MLX answers bool where nothing is combined:
        ``axis=()``, a 0-d array); ``requested`` when given.
        """
        if requested is not None:
            return self.native_dtype(requested)
        if dtype in _KEEPS_ITS_DTYPE:
            return None  # (MLX sums a floating dtype in itself: no dtype checks per call)
        return self._to_mx[_dtypes.accumulator_dtype(dtype, _INT64, _UINT64)]

    def stream(self) -> Any:
        """Return a context that runs the enclosed MLX calls on the Metal carriers' device.

        Raises ``RuntimeError`` (naming the ``spawn`` start method) in a child forked
        after MLX started, where MLX work would hang or crash.
        """
        require_alive("run MLX work")
        device, _name = _mlx_device()
        return self.mx.stream(device)

    # -- reading ---------------------------------------------------------------------------

    def read(self, tensor: Tensor) -> Any:
        """Return the Tensor's values as an MLX array (no host copy); note the read."""
        require_alive("read a Metal array")
        carrier = tensor._carrier
        if type(carrier) is Metal:
            storage = carrier.mlx_array
            _note_read(carrier)
            if storage is None:
                raise RuntimeError(_messages.released(carrier))
        elif _held(carrier):
            return _host_view(tensor)  # (a host-held dtype: NumPy computes on it)
        else:
            storage = _storage(carrier, True)  # an Evictable, another kind, or released
        return self._logical(tensor, storage)

    def export(self, tensor: Tensor) -> npt.NDArray[Any]:
        """Return a NumPy copy of the Tensor's values (no device read noted).

        The copy costs what it holds: a part of the carrier (a slice, an element:
        the scalar reads) is copied from the host view of the buffer where the host
        maps it in place, and is otherwise copied into a buffer of its own on the
        device first, so the host maps that small buffer alone (on MLX's CUDA GPU a
        host view of the carrier's buffer would first move all of it to managed
        memory: ``Metal.moves_to_map``).
        """
        carrier = tensor._carrier
        if _held(carrier):
            return np.array(_host_view(tensor), copy=True)
        storage = _storage(carrier, False)
        assert tensor._layout is not None
        if tensor._layout._size < storage.size:
            return self._export_part(tensor, carrier, storage)
        copied: npt.NDArray[Any] = self.to_numpy(self._logical(tensor, storage))
        return copied

    def _export_part(self, tensor: Tensor, carrier: Any, storage: Any) -> npt.NDArray[Any]:
        """Return a NumPy copy of a Tensor over a part of its Metal storage (see export)."""
        metal: Metal = carrier if isinstance(carrier, Metal) else carrier.primary
        layout = tensor._layout
        assert layout is not None
        view = metal.read_view()
        if view is not None:
            check_bounds(tensor, view.shape[0])
            copied: npt.NDArray[Any] = np.array(
                strided_view(view, tensor._offset, layout), copy=True
            )
            return copied
        mx = self.mx
        with mx.stream(metal.mlx_device):
            # (mx.array copies on the device: the piece has a buffer of its own)
            piece = mx.array(self._logical(tensor, storage))
        found: npt.NDArray[Any] = self.to_numpy(piece)
        return found

    @staticmethod
    def export_writable(tensor: Tensor) -> npt.NDArray[Any] | None:
        """Return a writable zero-copy view of a writable Metal Array, or None.

        CONTRACT section 9, version 3: on unified (Apple) or managed (CUDA) memory a
        writable Array exports a writable view of its MLX buffer, as host Arrays do.
        Taking it waits for every scheduled operation that reads the storage (the
        carrier's host view, ``Metal._take_view``) and counts as one write (one
        version step). A later MLX write into the carrier builds a new buffer, and
        the view then keeps the old one (as a host Array's view does after a
        ``resize``). A host-held dtype's Array exports its host storage. None where
        MLX gives no host view of its memory, or the carrier refuses writes: the
        caller then exports a copy.
        """
        carrier = tensor._carrier
        assert tensor._layout is not None
        if carrier is None or not carrier.is_mutable():
            return None
        if _held(carrier):
            try:
                storage = carrier._export_storage("export a writable view")
            except RuntimeError:
                return None
            return strided_view(storage, tensor._offset, tensor._layout)
        if not isinstance(carrier, Metal):
            return None  # (an Evictable over Metal: its copy, as before)
        view = carrier._take_view()
        if view is None or not view.flags.writeable or view.shape[0] != carrier.size():
            return None
        try:
            carrier._advance_version("export a writable view")
        except RuntimeError:
            return None
        return strided_view(view, tensor._offset, tensor._layout)

    def _logical(self, tensor: Tensor, storage: Any) -> Any:
        """Return the Tensor's values as an MLX array over its carrier's ``storage``."""
        layout = tensor._layout
        assert layout is not None
        offset = tensor._offset
        size = storage.size  # (1-D storage: its one extent)
        # (Layout's slots, read directly on this per-operation path)
        if offset == 0 and layout._strides == (1,) and layout._size == size:
            return storage  # the whole carrier, in order: the MLX array itself
        cache = getattr(tensor, "_native", None)
        if cache is not None and cache[1] is storage and cache[2] == tensor._carrier.version:  # type: ignore[union-attr]
            # The N-d result this Array was adopted from (a view of the same buffer):
            # no new reshape in every graph that reads the Array.
            return cache[0]
        check_bounds(tensor, size)
        count = layout._size
        shape, strides = layout._shape, layout._strides
        if not count:
            # (no element, whatever the strides: MLX's as_strided refuses a strided
            # view of an empty, hence not row-contiguous, slice)
            return storage[:0].reshape(shape)
        if len(shape) == 1:
            (step,) = strides
            if step == 1:
                return storage[offset : offset + count]
            if count and step:
                # One strided run: a slice (as_strided takes less Python, but MLX takes
                # it of row-contiguous arrays only, and a carrier's storage need not be)
                stop = offset + step * (count - 1) + (1 if step > 0 else -1)
                return storage[offset : stop if stop >= 0 else None : step]
        elif strides == contiguous_layout(shape)._strides:
            if offset == 0 and count == size:
                return storage.reshape(shape)
            return storage[offset : offset + count].reshape(shape)
        # (MLX's as_strided takes row-contiguous arrays only; a carrier's storage may
        # be a strided view MLX made: contiguous is a no-op for one that is not)
        return self.mx.as_strided(self.mx.contiguous(storage), shape, strides, offset)

    def is_native(self, value: object) -> bool:
        """Return whether ``value`` is an MLX array or a launched result."""
        return (
            type(value) is _Result
            or isinstance(value, self.mx.array)
            or type(value) is np.ndarray  # (a host-held dtype's result)
        )

    def dtype(self, array: Any) -> DType:
        """Return the namespace dtype an MLX result narrows to.

        Raises
        ------
        TypeError
            If no carrier dtype holds MLX's dtype.
        """
        found = self._from_mx.get(array.dtype)
        if found is not None:
            return found
        mx = self.mx
        if mx.issubdtype(array.dtype, mx.floating):
            return DType.Float32  # (a floating dtype the Metal device does not store)
        raise TypeError(
            f"MLX returned dtype {array.dtype}, which the Metal device of "
            f"stridewave.array_api does not store (it stores "
            f"{', '.join(d.name for d in self._to_mx)})."
        )

    # -- launching and adopting ------------------------------------------------------------

    def complete(
        self,
        out: Any,
        mx_device: Any,
        device_name: str,
        first: Metal | None = None,
        other: Metal | None = None,
        shape: tuple[int, ...] | None = None,
    ) -> Adopted:
        """Schedule an MLX result in its storage form, record its reads, adopt it.

        The storage form (the carrier's dtype, one dimension) is built on
        ``mx_device`` and scheduled (``mlx.core.async_eval``, not waited for: the
        device computes while Python builds the carrier; whoever reads the values
        first waits); the read is recorded on ``first``/``other`` (a direct call's
        operand carriers) or on those this thread's ``read()`` noted; the form is
        adopted as a fresh Metal carrier without a copy. ``shape``, when given, is the
        result's shape and ``out`` its (1,)-shaped form (a 0-d reduction).
        """
        mx = self.mx
        dtype = self._from_mx.get(out.dtype)
        shaped = out
        if dtype is None:
            dtype = self.dtype(out)
            shaped = mx.astype(out, self._to_mx[dtype], stream=mx_device)
        check_result_size(shaped, dtype)  # (MLX crashes where an allocation fails)
        flat = shaped if shaped.ndim == 1 else mx.reshape(shaped, (-1,), stream=mx_device)
        if flat.size:
            mlx_eval(flat, schedule_only=True)
            _record(first, other, flat)
        else:
            mx.eval(flat)  # an empty array is never scheduled (nothing to overlap)
            if first is None:
                _OPERATION.reads.clear()
        carrier = self._kinds[dtype].adopt_array(
            flat, mx_device, device_name, dtype, mutable=True, scheduled=True
        )
        if shape is None:
            shape = tuple(shaped.shape)
        # The N-d form, kept for read() while the carrier is unwritten (version 0) and
        # holds this very array.
        native = None if flat is shaped else (shaped, flat, 0)
        return (carrier, contiguous_layout(shape), 0, native)

    def adopt(self, result: Any, sources: tuple[Tensor, ...] = ()) -> Adopted:
        """Adopt an MLX result (or a launched one) as a fresh Metal carrier (no copy)."""
        if type(result) is _Result:
            return result.adopted
        if type(result) is np.ndarray:
            return _hold(result)
        device, name = _Device.device, _Device.name
        if device is None:
            device, name = _mlx_device()
        return self.complete(result, device, name)

    @staticmethod
    def materialize(native: Any) -> tuple[Carrier, Any]:
        """Never called: every Metal result is adopted with its carrier (``complete``).

        Raises
        ------
        RuntimeError
            Always.
        """
        raise RuntimeError("a Metal result always has its carrier; nothing to make")

    def direct(self, name: str) -> Callable[..., Adopted | None] | None:
        """Return ``name`` as a call on Metal Arrays that skips the general dispatch.

        The call takes Arrays of this device or Python scalars (bool, int, float; the
        dispatch passes nothing else) and returns the adopted result, or ``None`` when
        it does not take the call (an operand that is not a plain Metal carrier, an
        empty operand, operands on two devices, a result that is not one array): the
        general path then runs it. None for a function MLX does not have.
        """
        try:
            return self._directs[name]
        except KeyError:
            found = self._directs[name] = _direct(self, name)
            return found

    # -- conversions -----------------------------------------------------------------------

    def asarray(self, values: Any, dtype: DType | None) -> Any:
        """Move NumPy values to the device as an MLX array of ``dtype``."""
        array = np.asarray(values)
        if dtype is not None:
            array = array.astype(_dtypes.numpy_dtype(dtype), copy=False)
        if (dtype if dtype is not None else _dtypes.from_numpy(array.dtype)) in self.held:
            return np.array(array, order="C", copy=True)  # (held in host memory)
        if not array.flags.c_contiguous:
            array = np.array(array, order="C")  # (ascontiguousarray would make 0-d 1-d)
        with self.stream():
            # (MLX reads float64 NumPy data as float32 unless told the dtype)
            found = _dtypes.from_numpy(array.dtype)
            mx_dtype = self._to_mx.get(found) if found is not None else None
            return self.mx.array(array, dtype=mx_dtype) if mx_dtype else self.mx.array(array)

    @staticmethod
    def share(values: Any) -> Adopted:
        """Refuse: Metal storage shares no NumPy buffer.

        Raises
        ------
        ValueError
            Always.
        """
        raise ValueError("asarray(copy=False) can share memory only on CPU, not Device('Metal').")

    def to_numpy(self, array: Any) -> Any:
        """Return a NumPy copy of an MLX array (ml_dtypes' bfloat16 for MLX's bfloat16)."""
        mlx_eval(array)
        if array.dtype == self.mx.bfloat16:
            # (NumPy reads no buffer format for bfloat16: its bits, as uint16)
            bits = array.view(self.mx.uint16)
            mlx_eval(bits)
            return np.array(bits, copy=True).view(_BFLOAT16)
        copied: npt.NDArray[Any] = np.array(array, copy=True)
        return copied

    def cast(self, array: Any, dtype: DType) -> Any:
        """Return ``array`` cast to ``dtype`` (a new MLX array; NumPy for a host-held one)."""
        if type(array) is np.ndarray or dtype in self.held:
            host = array if type(array) is np.ndarray else self.to_numpy(array)
            return self.asarray(host.astype(_dtypes.numpy_dtype(dtype)), dtype)
        with self.stream():
            return self.mx.array(array).astype(self._to_mx[dtype])

    def astype(self, array: Any, dtype: DType) -> Any:
        """Return ``array`` as ``dtype`` (itself when it already is)."""
        if type(array) is np.ndarray or dtype in self.held:
            if type(array) is np.ndarray and array.dtype == _dtypes.numpy_dtype(dtype):
                return array
            return self.cast(array, dtype)
        if array.dtype == self._to_mx[dtype]:
            return array
        with self.stream():
            return array.astype(self._to_mx[dtype])

    def scalar(self, value: object, dtype: DType) -> Any:
        """Return a 0-d MLX array of ``dtype`` holding ``value`` (NumPy for a host-held one)."""
        if dtype in self.held:
            return np.asarray(value, dtype=_dtypes.numpy_dtype(dtype))
        with self.stream():
            if type(value) is int and value > _INT64_MAX:
                value = _wide_int(self.mx, value)
            return self.mx.array(value, dtype=self._to_mx[dtype])

    def broadcast_to(self, array: Any, shape: tuple[int, ...]) -> Any:
        """Broadcast ``array`` to ``shape`` (ValueError if it cannot)."""
        if type(array) is np.ndarray:
            return np.broadcast_to(array, shape)
        if tuple(array.shape) == shape:
            return array  # (an MLX array is immutable: no new node to evaluate)
        try:
            with self.stream():
                return self.mx.broadcast_to(array, shape)
        except Exception as exc:
            raise ValueError(f"cannot broadcast shape {tuple(array.shape)} to {shape}.") from exc

    # -- indexing and writes ---------------------------------------------------------------

    def getitem(self, array: Any, key: tuple[Any, ...]) -> Any:
        """Advanced indexing: integer arrays on MLX, anything else through NumPy.

        Raises
        ------
        IndexError
            If an integer index is out of range (MLX would read past its buffer).
        """
        mx = self.mx
        if type(array) is np.ndarray:
            return array[tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)]
        if len(key) == 1 and isinstance(key[0], mx.array) and key[0].dtype != mx.bool_:
            with self.stream():
                if array.ndim:
                    self.shims.check_indices(key[0], array.shape[0], 0)
                return array[key[0]]
        host_key = tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)
        return self.asarray(self.to_numpy(array)[host_key], None)

    def set_advanced(self, array: Any, key: tuple[Any, ...], values: Any) -> Any:
        """Return a copy of ``array`` with ``values`` written at the advanced ``key``."""
        mx = self.mx
        held = type(array) is np.ndarray
        host = np.array(array, copy=True) if held else self.to_numpy(array)
        host_key = tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)
        host[host_key] = values if type(values) is np.ndarray else self.to_numpy(values)
        return host if held else self.asarray(host, None)

    def write_source(self, values: Any, shape: tuple[int, ...], dtype: DType) -> Carrier:
        """Return a carrier holding ``values`` broadcast to ``shape`` (scatter source).

        A Metal carrier; a host carrier for a host-held dtype, and for a few values
        (at most :data:`_HOST_SOURCE_MAX`: an element write, ``x[i, j] = v``), which
        the scatter then reads on the host where it writes the buffer in place, and
        moves to the device in one small transfer otherwise, with no device carrier
        built and evaluated for them.
        """
        if (
            dtype in self.held
            or type(values) is np.ndarray
            or (
                values.size <= _HOST_SOURCE_MAX
                and tuple(values.shape) == shape
                and values.dtype == self._to_mx.get(dtype)  # (one NumPy reads as it is)
                and dtype in _STANDARD_DTYPES
            )
        ):
            host = values if type(values) is np.ndarray else self.to_numpy(values)
            flat = np.ascontiguousarray(
                np.broadcast_to(host.astype(_dtypes.numpy_dtype(dtype), copy=False), shape)
            ).reshape(-1)
            kind: Any = carrier_for("CPU", dtype)
            held: Carrier = kind.from_numpy(np.array(flat, copy=True), mutable=False)
            return held
        with self.stream():
            # mx.contiguous: a broadcast keeps zero strides through reshape and
            # mx.array, and the carrier's device scatter needs row-major storage.
            full = self.mx.broadcast_to(self.astype(values, dtype), shape)
            flat = self.mx.contiguous(full).reshape(-1)
        mx_device, name = _mlx_device()
        found: Metal = self._kinds[dtype].adopt_array(
            flat, mx_device, name, dtype, mutable=False, scheduled=False
        )
        return found

    # -- DLPack ----------------------------------------------------------------------------

    def dlpack(self, tensor: Tensor, consumer: str, **kwargs: Any) -> Any:
        """Return MLX's DLPack capsule of (a copy of) the Tensor's values."""
        if _held(tensor._carrier):
            return np.array(_host_view(tensor), copy=True).__dlpack__(**kwargs)
        array = self._logical(tensor, _storage(tensor._carrier, False))
        mlx_eval(array)
        return self.mx.array(array).__dlpack__(**kwargs)

    def dlpack_device(self, tensor: Tensor) -> tuple[int, int]:
        """Return MLX's DLPack device of the Tensor's values."""
        if _held(tensor._carrier):
            return (1, 0)
        array = self._logical(tensor, _storage(tensor._carrier, False))
        device: tuple[int, int] = tuple(array.__dlpack_device__())
        return device


# -- the namespace over MLX arrays --------------------------------------------------------


_INT64_MAX: Final = 2**63 - 1

#: The most values a scatter source holds on the host (:meth:`MLXBackend.write_source`).
_HOST_SOURCE_MAX: Final = 64
_STANDARD_DTYPES: Final = frozenset(_dtypes.DTYPES.values())


def _wide_int(mx: Any, value: int) -> Any:
    """Return a Python int in ``[2**63, 2**64)`` as a 0-d uint64 MLX array.

    MLX converts a Python int through int64 and raises ``std::bad_cast`` beyond it;
    a 0-d uint64 array takes part in an operation as the scalar did.
    """
    return mx.array(np.array(value, dtype=np.uint64))


def _wide_ints(mx: Any, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Return ``args`` with each Python int beyond int64 made a uint64 0-d array.

    ``None`` if there is none (an MLX error that these ints did not cause).
    """
    if not any(type(a) is int and a > _INT64_MAX for a in args):
        return None
    return tuple(_wide_int(mx, a) if type(a) is int and a > _INT64_MAX else a for a in args)


def _host_operand(backend: MLXBackend, array: Any) -> npt.NDArray[Any]:
    """Return an MLX operand of a host computation as a read-only NumPy view (no copy).

    CONTRACT section 9, version 3: an operation that runs on the host runs "over the
    same memory (NumPy on a host view, no copy where the memory is shared)". The view
    holds the MLX array, so the buffer outlives it; read-only, so no NumPy function
    writes into the device's buffer, and a result that is a view of it is copied where
    it is moved back to the device. A copy where MLX exports no buffer (bfloat16, a
    device without host views).
    """
    mlx_eval(array)
    try:
        view: npt.NDArray[Any] = np.asarray(memoryview(array))
    except (TypeError, ValueError, BufferError, RuntimeError):
        copied: npt.NDArray[Any] = backend.to_numpy(array)
        return copied
    if view.shape != tuple(array.shape):
        fallback: npt.NDArray[Any] = backend.to_numpy(array)  # (not MLX's shape: its copy)
        return fallback
    view.flags.writeable = False
    return view


#: Host functions that write into an operand (``array_api_compat.numpy.clip`` into
#: its array bounds): they compute on copies of the Metal operands, not on views.
_WRITES_ITS_OPERANDS: Final = frozenset({"clip"})


def _to_host(backend: MLXBackend, value: Any, views: bool = True) -> Any:
    """Return ``value`` with its MLX arrays on the host: read-only views, or copies."""
    mx = backend.mx
    if isinstance(value, mx.array):
        return _host_operand(backend, value) if views else backend.to_numpy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(backend, v, views) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(backend, v, views) for k, v in value.items()}
    if isinstance(value, mx.Dtype):
        return _dtypes.numpy_dtype(backend._from_mx[value])
    return value


def _to_device(backend: MLXBackend, value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        dtype = _dtypes.from_numpy(array.dtype) or _dtypes.narrow(array.dtype)
        if dtype in backend.held:
            # (a dtype MLX cannot hold on its device: kept in host memory, no narrowing)
            return np.array(array, order="C", copy=True)
        return backend.asarray(array, dtype)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_device(backend, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(backend, v) for v in value)
    return value


class _Namespace:
    """The array API functions over MLX arrays (what ``backend.ns`` is for Metal)."""

    def __init__(self, backend: MLXBackend) -> None:
        from stridewave.array_api import _mlx_linalg  # (the device factorizations)

        self._backend = backend
        self.linalg = _Sub(backend, "linalg", {**backend.shims.LINALG, **_mlx_linalg.LINALG})
        self.fft = _Sub(backend, "fft", backend.shims.FFT)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        func = _build(self._backend, name, self._backend.shims.MAIN)
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


def _implementation(backend: MLXBackend, entry: Any, name: str) -> Callable[..., Any]:
    """Return the MLX function of a table entry (a renamed ``mlx.core`` function or a shim).

    A function of :data:`_PROBES` checks its operand's dtype first: where MLX is less
    accurate than NumPy on that dtype (:func:`computes_on_host`), it raises
    ``NeedsHost`` and the call runs in NumPy on a host copy.
    """
    impl: Callable[..., Any] = getattr(backend.mx, entry) if isinstance(entry, str) else entry
    if name in backend.shims.SHARES_INPUT:
        impl = backend.shims.private(impl)
    if name in _PROBES:
        impl = _accurate(backend, name, impl)
    return impl


# -- where each function computes: MLX's accuracy against NumPy's, measured ---------------

#: The elementwise functions whose accuracy on the MLX device is measured, each with
#: the interval of its probe (the standard's names; two-operand ones take the probe
#: and its reverse).
_PROBES: Final[dict[str, tuple[float, float]]] = {
    "exp": (-20.0, 20.0),
    "expm1": (-20.0, 20.0),
    "log": (1e-3, 1e3),
    "log1p": (-0.9, 1e3),
    "log2": (1e-3, 1e3),
    "log10": (1e-3, 1e3),
    "sqrt": (0.0, 1e3),
    "sin": (-30.0, 30.0),
    "cos": (-30.0, 30.0),
    "tan": (-1.5, 1.5),
    "asin": (-0.99, 0.99),
    "acos": (-0.99, 0.99),
    "atan": (-30.0, 30.0),
    "sinh": (-10.0, 10.0),
    "cosh": (-10.0, 10.0),
    "tanh": (-10.0, 10.0),
    "asinh": (-30.0, 30.0),
    "acosh": (1.001, 100.0),
    "atanh": (-0.99, 0.99),
    "logaddexp": (-20.0, 20.0),
    "pow": (0.1, 4.0),
    "atan2": (-30.0, 30.0),
}
_BINARY_PROBES: Final = frozenset({"logaddexp", "pow", "atan2"})

#: How many units in the last place MLX may be less accurate than NumPy on the probe
#: before the function computes on the host (float32 and float64).
ULP_SLACK: Final = 2.0

#: ``(function, MLX dtype, MLX device key)`` to whether it computes on the host.
_ON_HOST: dict[tuple[str, Any, str], bool] = {}
_ON_HOST_LOCK: Final = threading.Lock()
if hasattr(os, "register_at_fork"):  # inherited held by a vanished thread: reset
    os.register_at_fork(after_in_child=getattr(_ON_HOST_LOCK, "_at_fork_reinit"))  # noqa: B009


def _ulp_error(got: Any, truth: Any, np_dtype: Any) -> float:
    """Return the largest error of ``got`` against ``truth`` in units of ``np_dtype``'s ulp."""
    wide = np.asarray(truth, dtype=np.longdouble)
    ulp = np.spacing(np.abs(np.asarray(truth, dtype=np_dtype))).astype(np.longdouble)
    finite = np.isfinite(wide) & (ulp > 0)
    error = np.abs(np.asarray(got, dtype=np.longdouble) - wide)[finite] / ulp[finite]
    return float(error.max()) if error.size else 0.0


def computes_on_host(backend: MLXBackend, name: str, mx_dtype: Any) -> bool:
    """Return whether ``name`` on ``mx_dtype`` computes in NumPy on the host (measured once).

    The standard's accuracy is NumPy's: a function whose MLX result on the probe of
    :data:`_PROBES` is more than :data:`ULP_SLACK` ulps less accurate than NumPy's
    own (both against a long-double reference) runs on the host for that dtype, on
    that MLX device (CONTRACT section 9, version 3: "an operation runs on the
    accelerator wherever MLX computes that dtype there at NumPy's accuracy"). Only
    float32 and float64 are measured; other dtypes compute on the device.

    Parameters
    ----------
    backend : MLXBackend
        The Metal backend.
    name : str
        A function of :data:`_PROBES`.
    mx_dtype : mlx.core.Dtype
        The operand's MLX dtype.

    Returns
    -------
    bool
        True where the host computes it.
    """
    mx = backend.mx
    _device_now, device_name = _mlx_device()
    key = (name, mx_dtype, device_name)
    found = _ON_HOST.get(key)
    if found is not None:
        return found
    if mx_dtype not in (mx.float32, mx.float64):
        _ON_HOST[key] = False
        return False
    with _ON_HOST_LOCK:
        found = _ON_HOST.get(key)
        if found is None:
            found = _ON_HOST[key] = _measure(backend, name, mx_dtype)
    return found


def _measure(backend: MLXBackend, name: str, mx_dtype: Any) -> bool:
    """Probe ``name`` on ``mx_dtype``: is MLX less accurate than NumPy (see computes_on_host)."""
    import array_api_compat.numpy as cnp

    mx = backend.mx
    np_dtype = np.float32 if mx_dtype == mx.float32 else np.float64
    low, high = _PROBES[name]
    x = np.linspace(low, high, 4099).astype(np_dtype)
    operands = [x, x[::-1].copy()] if name in _BINARY_PROBES else [x]
    numpy_function = getattr(cnp, name)
    with np.errstate(all="ignore"):
        truth = numpy_function(*(o.astype(np.longdouble) for o in operands))
        numpy_error = _ulp_error(numpy_function(*operands), truth, np_dtype)
    entry = backend.shims.MAIN[name]
    impl = getattr(mx, entry) if isinstance(entry, str) else entry
    device, _name = _mlx_device()
    with mx.stream(device):
        out = impl(*(mx.array(o, dtype=mx_dtype) for o in operands))
        mlx_eval(out)
    with np.errstate(all="ignore"):
        mlx_error = _ulp_error(np.array(out), truth, np_dtype)
    return bool(mlx_error > numpy_error + ULP_SLACK)


def _accurate(backend: MLXBackend, name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``impl``: raise ``NeedsHost`` for an operand dtype MLX computes less accurately."""
    array_type = backend.mx.array
    needs_host = backend.shims.NeedsHost
    on_host = _ON_HOST

    def accurate(*args: Any, **kwargs: Any) -> Any:
        for value in args:
            if type(value) is array_type:
                dtype = value.dtype
                found = on_host.get((name, dtype, _Device.name))
                if found is None:
                    found = computes_on_host(backend, name, dtype)
                if found:
                    raise needs_host
                break
        return impl(*args, **kwargs)

    accurate.__name__ = getattr(impl, "__name__", name)
    return accurate


#: Delegated functions that answer indices (NumPy's in int64), with the fields of their
#: named-tuple results that hold them (``None``: the whole result). On Metal they are
#: in the device's default indexing dtype, int64, as the device's own functions' are.
_INDEX_RESULTS: Final[dict[str, tuple[str, ...] | None]] = {
    "searchsorted": None,
    "nonzero": None,
    "unique_all": ("indices", "inverse_indices", "counts"),
    "unique_counts": ("counts",),
    "unique_inverse": ("inverse_indices",),
}


def _as_indices(result: Any, fields: tuple[str, ...] | None) -> Any:
    """Return the NumPy ``result`` with its index arrays (``fields``) in int64."""
    if fields is not None:
        return result._replace(**{f: _as_indices(getattr(result, f), None) for f in fields})
    if isinstance(result, tuple):
        return tuple(_as_indices(r, None) for r in result)
    return result.astype(np.int64) if result.dtype.kind in "iu" else result


def _build(
    backend: MLXBackend, name: str, table: dict[str, Any], sub: str | None = None
) -> Callable[..., Any]:
    """Return the MLX implementation of ``name`` (or the NumPy host delegation)."""
    mx = backend.mx
    shims = backend.shims

    def host(*args: Any, **kwargs: Any) -> Any:
        import array_api_compat.numpy as cnp

        namespace: Any = cnp if sub is None else getattr(cnp, sub)
        # (float16 and bfloat16 where NumPy lacks them, linalg's, through float32)
        function = quiet(through_float32(getattr(namespace, name)))
        views = name not in _WRITES_ITS_OPERANDS
        try:
            try:
                result = function(
                    *_to_host(backend, list(args), views), **_to_host(backend, kwargs, views)
                )
            except ValueError as exc:
                if not views or "read-only" not in str(exc):
                    raise
                # (a NumPy function that writes into an operand: on copies of them)
                result = function(
                    *_to_host(backend, list(args), False), **_to_host(backend, kwargs, False)
                )
        finally:
            _OPERATION.reads.clear()  # (computed from host values: no device read)
        if sub is None and name in _INDEX_RESULTS:
            result = _as_indices(result, _INDEX_RESULTS[name])
        return _to_device(backend, result)

    host.__name__ = name
    entry = table.get(name)
    if entry is None:
        return host
    impl = _implementation(backend, entry, name)
    array_type, stream, complete = mx.array, mx.stream, backend.complete
    needs_host, touches_empty, environ_get = shims.NeedsHost, shims.touches_empty, os.environ.get
    ndarray_type, np_dtype_type = np.ndarray, np.dtype
    transform = sub == "fft"
    float64, complex64 = getattr(mx, "float64", None), mx.complex64

    @functools.wraps(impl)
    def on_device(*args: Any, **kwargs: Any) -> Any:
        # (touches_empty, inlined for positional arrays: this runs before every launch)
        float64_seen = complex_seen = False  # (see below)
        for value in (*args, *kwargs.values()) if kwargs else args:
            if type(value) is array_type:
                if not value.size:
                    return host(*args, **kwargs)
                dtype = value.dtype  # (MLX's dtypes compare equal, never identical)
                if dtype == float64:
                    float64_seen = True
                elif dtype == complex64:
                    complex_seen = True
            elif type(value) is complex:
                complex_seen = True
            elif type(value) is ndarray_type or isinstance(value, np_dtype_type):
                return host(*args, **kwargs)  # (a host-held dtype: NumPy computes it)
            elif (type(value) is list or type(value) is tuple) and touches_empty(value, {}):
                return host(*args, **kwargs)
        if float64_seen and (complex_seen or transform):
            # float64 with complex64 or a Python complex is complex128 (the standard's
            # promotion), and so is a transform of float64, which MLX would give as
            # complex64: NumPy computes them
            return host(*args, **kwargs)
        device, device_name = _Device.device, _Device.name  # (backend.stream(), inlined)
        if device is None or environ_get(DEVICE_ENV, "") != _Device.key:
            device, device_name = _mlx_device()
        try:
            with stream(device):
                try:
                    out = impl(*args, **kwargs)
                except RuntimeError:
                    # (std::bad_cast of a uint64 Python int: checked only on failure,
                    # so no call pays for it)
                    wide = _wide_ints(mx, args)
                    if wide is None:
                        raise
                    out = impl(*wide, **kwargs)
            if type(out) is array_type and out.size:
                # Launched now, before the Python that wraps the result runs.
                return _Result(complete(out, device, device_name))
        except needs_host:
            return host(*args, **kwargs)
        except BaseException:
            _OPERATION.reads.clear()  # (failed: nothing launched reads them)
            raise
        _OPERATION.reads.clear()  # (nothing scheduled reads them)
        return out

    return on_device


#: Reductions (``axis``, ``keepdims`` and plain keywords) whose direct call reduces
#: a 1-D operand whole into the (1,)-shaped storage form of its 0-d result.
_REDUCTIONS: Final = frozenset(
    {"sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "argmax", "argmin"}
)

#: Operand types a direct call passes through unchanged (Python scalars).
_PLAIN: Final = frozenset({bool, int, float})

#: The dtypes whose sums and products MLX accumulates in themselves (the standard's
#: default for floating dtypes).
_KEEPS_ITS_DTYPE: Final = frozenset(
    d for d in _dtypes.DTYPES.values() if _dtypes.isdtype(d, ("real floating", "complex floating"))
)

#: The second operand of a one-operand direct call (a marker: None is a value).
_ABSENT: Final = object()


def _direct(backend: MLXBackend, name: str) -> Callable[..., Adopted | None] | None:
    """Build :meth:`MLXBackend.direct` for ``name`` (see there)."""
    entry = backend.shims.MAIN.get(name)
    if entry is None:
        return None  # delegated to NumPy: the general path
    mx = backend.mx
    impl = _implementation(backend, entry, name)
    array_type, stream, complete, logical = mx.array, mx.stream, backend.complete, backend._logical
    needs_host = backend.shims.NeedsHost
    forked = FORKED_AFTER_MLX  # (one flag: a direct call never reaches stream())

    def run(
        operands: tuple[Any, ...],
        kwargs: dict[str, Any],
        carrier: Metal,
        other: Metal | None,
        shape: tuple[int, ...] | None = None,
    ) -> Adopted | None:
        if forked[0]:
            require_alive("run MLX work")
        if kwargs and any(isinstance(v, np.dtype) for v in kwargs.values()):
            return None  # (a host-held dtype asked for: the general path computes it)
        mx_device = carrier.mlx_device
        try:
            with stream(mx_device):
                out = impl(*operands, **kwargs)
        except needs_host:
            return None
        except RuntimeError:
            if _wide_ints(mx, operands) is None:
                raise
            return None  # (a uint64 Python int: the general path converts it)
        if type(out) is not array_type:
            return None  # (a tuple, a list: the general path wraps each)
        return complete(out, mx_device, carrier.mlx_device_name, carrier, other, shape)

    def call(x1: Any, x2: Any = _ABSENT, /, **kwargs: Any) -> Adopted | None:
        # (one or two operands, unrolled: this runs before every launch)
        carrier: Any = None  # the first Metal operand's carrier
        other: Any = None  # the second one's
        if type(x1) in _PLAIN:
            first, a1 = None, x1
        else:
            carrier = x1._carrier
            if type(carrier) is not Metal:
                return None  # an Evictable, another kind: the general path
            storage = carrier.mlx_array
            if storage is None or not x1._layout._size:
                return None  # released (the general path raises); empty (touches_empty)
            first = x1
            a1 = logical(x1, storage)
        if x2 is _ABSENT:
            if first is None:
                return None
            return run((a1,), kwargs, carrier, None)
        if type(x2) in _PLAIN:
            if first is None:
                return None
            a2 = x2
        else:
            other = x2._carrier
            if type(other) is not Metal:
                return None
            storage = other.mlx_array
            if storage is None or not x2._layout._size:
                return None
            if first is None:
                carrier, other = other, None
            elif x2._device is not first._device:
                return None  # (the general path raises the devices' ValueError)
            a2 = logical(x2, storage)
        return run((a1, a2), kwargs, carrier, other)

    if name not in _REDUCTIONS:
        call.__name__ = name
        return call

    def reduction(
        x: Any, /, *, axis: Any = None, keepdims: bool = False, **kwargs: Any
    ) -> Adopted | None:
        # A 1-D operand reduced whole: MLX's keepdims form of the 0-d result, shape
        # (1,), is its storage form itself (no reshape in the graph, less Python).
        layout: Any = x._layout
        carrier: Any = x._carrier
        if axis is not None or keepdims or type(carrier) is not Metal or len(layout._shape) != 1:
            return call(x, axis=axis, keepdims=keepdims, **kwargs)
        storage = carrier.mlx_array
        if storage is None or not layout._size:
            return None  # released (the general path raises); empty (touches_empty)
        kwargs.update(axis=None, keepdims=True)
        return run((logical(x, storage),), kwargs, carrier, None, ())

    reduction.__name__ = name
    return reduction


_BACKEND: list[MLXBackend] = []


def backend(name: str) -> MLXBackend:
    """Return the MLX backend (built once; imports MLX).

    Parameters
    ----------
    name : str
        ``"Metal"``.

    Returns
    -------
    MLXBackend
        The backend.

    Raises
    ------
    RuntimeError
        If MLX is not installed.
    """
    if not _BACKEND:
        _BACKEND.append(MLXBackend())
    return _BACKEND[0]


def describe(name: str) -> str:
    """Return the Metal device in words: the MLX device and version, or why there is none.

    Parameters
    ----------
    name : str
        ``"Metal"``.

    Returns
    -------
    str
        E.g. ``"Metal: MLX CPU device (...), MLX 0.32.4"``.
    """
    _ok, text = runtime()
    return f"{name}: {text}"
