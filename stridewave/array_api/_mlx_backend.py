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

import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from stridewave.array_api import _dtypes, _messages
from stridewave.array_api._backend import (
    CONTIGUOUS_LAYOUTS,
    Adopted,
    check_bounds,
    contiguous_layout,
    quiet_astype,
)
from stridewave.array_api._places import carrier_for, place
from stridewave.carriers import Carrier, Evictable, Metal, _mlx_runtime
from stridewave.carriers._extension import HALF_DTYPES
from stridewave.carriers._metal import UNCHECKED_BELOW, check_result_size
from stridewave.carriers._mlx_runtime import (
    FORKED_AFTER_MLX,
    MAIN_THREAD,
    import_mlx,
    mlx_eval,
    require_alive,
    runtime,
)
from stridewave.carriers._scatter import strided_view
from stridewave.dtypes import DType

if TYPE_CHECKING:
    import numpy.typing as npt

    from stridewave.layout import Layout
    from stridewave.tensor import Tensor

from stridewave.array_api._mlx_namespace import (
    HOST_SOURCE_MAX,
    INT64_MAX,
    KEEPS_ITS_DTYPE,
    STANDARD_DTYPES,
    Namespace,
    direct_call,
    host_operand,
    wide_int,
)
from stridewave.array_api._mlx_state import (
    OPERATION,
    DeviceChoice,
    Result,
    get_ident,
    mlx_device,
    note_read,
    record_reads,
)

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
        note_read(carrier)
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


class MLXBackend:
    """Compute for the Metal device: ``mlx.core`` on the Metal carriers' MLX device.

    Notes
    -----
    Implements :class:`~stridewave.array_api._backend.Backend` for the Metal device
    (CONTRACT section 9).
    """

    name: Final = "mlx"
    host_addressable: Final = False
    #: The Metal row's (direct calls: the Python before a launch is what a GPU cannot
    #: overlap).
    has_direct: Final = place("Metal").has_direct

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
        self.ns = Namespace(self)
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
        if dtype in KEEPS_ITS_DTYPE:
            return None  # (MLX sums a floating dtype in itself: no dtype checks per call)
        return self._to_mx[_dtypes.accumulator_dtype(dtype, _INT64, _UINT64)]

    def stream(self) -> Any:
        """Return a context that runs the enclosed MLX calls on the Metal carriers' device.

        Raises ``RuntimeError`` (naming the ``spawn`` start method) in a child forked
        after MLX started, where MLX work would hang or crash.
        """
        require_alive("run MLX work")
        device, _name = mlx_device()
        return self.mx.stream(device)

    # -- reading ---------------------------------------------------------------------------

    def read(self, tensor: Tensor) -> Any:
        """Return the Tensor's values as an MLX array (no host copy); note the read."""
        require_alive("read a Metal array")
        carrier = tensor._carrier
        if type(carrier) is Metal:
            storage = carrier.mlx_array
            note_read(carrier)
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
        found = self.logical_now(tensor, storage)
        if found is not None:
            return found
        # The view's operations run on the Metal carrier's device's stream, as every
        # operation does: MLX's default device may be another (a GPU build, with Metal
        # on MLX's CPU device), which may hold no float64.
        device = getattr(tensor._carrier, "mlx_device", None)  # (an Evictable has none)
        with self.mx.stream(mlx_device()[0] if device is None else device):
            return self.logical_view(tensor, storage)

    @staticmethod
    def logical_now(tensor: Tensor, storage: Any) -> Any:
        """Return the Tensor's values over ``storage`` where no MLX operation makes them.

        The storage itself (the whole carrier, in order) or the N-d result the Array
        was adopted from; None where a view must be built (:meth:`logical_view`, in
        the carrier's device's stream).
        """
        layout = tensor._layout
        assert layout is not None
        # (Layout's slots, read directly on this per-operation path)
        if tensor._offset == 0 and layout._strides == (1,) and layout._size == storage.size:
            return storage  # the whole carrier, in order: the MLX array itself
        cache = getattr(tensor, "_native", None)
        if cache is not None and len(cache) == 7:
            return cache[0]  # (a fresh result's token: its N-d form, or None for a view)
        if cache is not None and cache[1] is storage and cache[2] == tensor._carrier.version:  # type: ignore[union-attr]
            # The N-d result this Array was adopted from (a view of the same buffer):
            # no new reshape in every graph that reads the Array.
            return cache[0]
        return None

    def logical_view(self, tensor: Tensor, storage: Any) -> Any:
        """Return the Tensor's view of ``storage`` (checked), in the caller's stream.

        Raises
        ------
        IndexError
            If the carrier shrank after the view was made.
        """
        check_bounds(tensor, storage.size)
        layout = tensor._layout
        assert layout is not None
        return self._view(storage, layout, tensor._offset)

    def _view(self, storage: Any, layout: Layout, offset: int) -> Any:
        """Return ``storage`` (1-D) viewed through ``layout`` from ``offset`` (checked)."""
        size = storage.size
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
            type(value) is Result
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
        direct: bool = False,
    ) -> Adopted:
        """Schedule an MLX result in its storage form, record its reads, return it fresh.

        The storage form (the carrier's dtype, one dimension) is built on
        ``mx_device`` and scheduled (``mlx.core.async_eval``, not waited for: the
        device computes while Python builds the Array; whoever reads the values first
        waits); the read is recorded on ``first``/``other`` (a direct call's operand
        carriers; ``direct`` True: those alone, maybe none) or on those this
        thread's ``read()`` noted. The result is fresh: its token ``(shaped, flat,
        dtype, mx_device, device_name, kind, reads)`` and no carrier, made by
        :meth:`materialize` without a copy when first asked for (``reads``: ``[None]``
        or the main thread's latest direct call that read the token, which the
        carrier records). ``shape``, when given, is the result's shape and ``out``
        its (1,)-shaped form (a 0-d reduction).
        """
        mx = self.mx
        dtype = self._from_mx.get(out.dtype)
        shaped = out
        if dtype is None:
            dtype = self.dtype(out)
            shaped = mx.astype(out, self._to_mx[dtype], stream=mx_device)
        if shaped.nbytes >= UNCHECKED_BELOW:
            check_result_size(shaped, dtype)  # (MLX crashes where an allocation fails)
        flat = shaped if shaped.ndim == 1 else mx.reshape(shaped, (-1,), stream=mx_device)
        if flat.size:
            # (``mlx_eval(flat, schedule_only=True)`` without its look-ups)
            if FORKED_AFTER_MLX[0]:
                require_alive("run MLX work")
            with _mlx_runtime.EVAL_LOCK:  # (read from its module: the one name of the lock)
                mx.async_eval(flat)
            if first is not None and get_ident() == MAIN_THREAD:
                # (record_reads' main-thread case in this frame: the main thread keeps
                # no records of its own, so the operand carriers alone take the read)
                first.note_device_read(MAIN_THREAD, flat)
                if other is not None and other is not first:
                    other.note_device_read(MAIN_THREAD, flat)
            elif first is not None or not direct:
                record_reads(first, other, flat)
        else:
            mx.eval(flat)  # an empty array is never scheduled (nothing to overlap)
            if first is None and not direct:
                OPERATION.reads.clear()
        if shape is None:
            shape = shaped.shape  # (a tuple: MLX makes a new one per access)
        else:
            shaped = None  # (the (1,)-shaped form of a 0-d result: no N-d form to read)
        token = (shaped, flat, dtype, mx_device, device_name, self._kinds[dtype], [None])
        layout = CONTIGUOUS_LAYOUTS.get(shape)
        return (None, contiguous_layout(shape) if layout is None else layout, 0, token)

    def adopt(self, result: Any, sources: tuple[Tensor, ...] = ()) -> Adopted:
        """Adopt an MLX result (or a launched one) as a fresh Metal carrier (no copy)."""
        if type(result) is Result:
            return result.adopted
        if type(result) is np.ndarray:
            return _hold(result)
        device, name = DeviceChoice.device, DeviceChoice.name
        if device is None:
            device, name = mlx_device()
        return self.complete(result, device, name)

    @staticmethod
    def materialize(native: Any) -> tuple[Carrier, Any]:
        """Make the Metal carrier of a fresh result (its storage form, no copy).

        Parameters
        ----------
        native : tuple
            The result's token, ``(shaped, flat, dtype, mx_device, device_name,
            kind, reads)`` (:meth:`complete`; ``shaped`` None for a 0-d result made
            from its (1,)-shaped form).

        Returns
        -------
        tuple
            ``(carrier, token)``: the carrier over the scheduled ``flat`` (its first
            host access records and waits for the read in ``reads``), and the Array's
            token from now on: the N-d form while the carrier is unwritten (version
            0), or None.
        """
        shaped, flat, dtype, mx_device, device_name, kind, reads = native
        carrier: Metal = kind.adopt_array(
            flat,
            mx_device,
            device_name,
            dtype,
            mutable=True,
            scheduled=True,
            unrecorded_reads=reads,
        )
        # The N-d form, kept for read() while the carrier is unwritten (version 0) and
        # holds this very array.
        return carrier, (None if shaped is None or flat is shaped else (shaped, flat, 0))

    @staticmethod
    def update_in_place(name: str, target: Tensor, operand: object) -> bool:
        """Return False: an in-place operator on Metal is a result and one scatter.

        Parameters
        ----------
        name : str
            The namespace function.
        target : Tensor
            The Array written.
        operand : object
            The other operand.

        Returns
        -------
        bool
            False.
        """
        return False

    @staticmethod
    def write_element(target: Tensor, offset: int, source: Any) -> bool:
        """Write a 0-d ``source`` into slot ``offset`` where the host writes in place.

        One element is the carrier's own element write (``Carrier.set_value``: its
        checks, one version step, a wait for the device work that reads the
        storage) where it goes through the host view (``Metal.writes_element_on_host``:
        where the host maps the buffer in place, MLX's CPU device and Apple's unified
        memory; on MLX's CUDA GPU a buffer of at most 64 MiB, and a larger one after
        its first 64 element writes) or the host holds the dtype; otherwise, where a
        host view would first move all of the buffer to managed memory, the caller
        scatters it on the device.

        Parameters
        ----------
        target : Tensor
            The Array written.
        offset : int
            The storage slot, in slots.
        source : mlx.core.array or numpy.ndarray
            A 0-d array of the target's dtype.

        Returns
        -------
        bool
            True when written; False where the device writes it (see above).

        Raises
        ------
        RuntimeError
            If the carrier refuses writes (immutable, owned, released).
        """
        carrier = target._carrier
        metal = carrier.primary if isinstance(carrier, Evictable) else carrier
        if isinstance(metal, Metal) and not metal.writes_element_on_host():
            return False
        if type(source) is np.ndarray and source.dtype.kind not in "biufc":
            return False
        carrier.set_value(offset, source.item())  # type: ignore[union-attr]
        return True

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
            found = self._directs[name] = direct_call(self, name)
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
            return self.asarray(quiet_astype(host, _dtypes.numpy_dtype(dtype), True), dtype)
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
            if type(value) is int and value > INT64_MAX:
                value = wide_int(self.mx, value)
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
        if len(key) == 1 and isinstance(key[0], mx.array) and 1 <= key[0].ndim <= array.ndim:
            mask = key[0]  # (a boolean mask over the leading axes: the rows it selects)
            if tuple(mask.shape) == tuple(array.shape[: mask.ndim]):
                return self._masked(array, mask)
        host_key = tuple(self.to_numpy(k) if isinstance(k, mx.array) else k for k in key)
        # (a boolean mask or a mixed key indexes a read-only host view of the operand,
        # not a host copy of all of it: the result is NumPy's fresh copy of the elements)
        return self.asarray(host_operand(self, array)[host_key], None)

    def _masked(self, array: Any, mask: Any) -> Any:
        """Return ``array[mask]`` for a boolean mask of ``array``'s leading axes.

        The mask's True positions are found on the host (a view of the mask, which
        is small beside the array), and the rows they select are gathered on the
        device: the array never leaves it (scikit-learn's class means, ``X[y == k]``).
        """
        mx = self.mx
        lead = int(np.prod(mask.shape))
        positions = np.flatnonzero(host_operand(self, mask))
        index_dtype = np.int32 if lead <= np.iinfo(np.int32).max else np.int64
        with self.stream():
            rows = mx.reshape(array, (lead, *array.shape[mask.ndim :]))
            return mx.take(rows, mx.array(positions.astype(index_dtype)), axis=0)

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
        (at most :data:`HOST_SOURCE_MAX`: an element write, ``x[i, j] = v``), which
        the scatter then reads on the host where it writes the buffer in place, and
        moves to the device in one small transfer otherwise, with no device carrier
        built and evaluated for them.
        """
        if (
            dtype in self.held
            or type(values) is np.ndarray
            or (
                values.size <= HOST_SOURCE_MAX
                and tuple(values.shape) == shape
                and values.dtype == self._to_mx.get(dtype)  # (one NumPy reads as it is)
                and dtype in STANDARD_DTYPES
            )
        ):
            host = values if type(values) is np.ndarray else self.to_numpy(values)
            np_dtype = _dtypes.numpy_dtype(dtype)
            if (
                host.base is None
                and host.flags.c_contiguous
                and host.dtype == np_dtype
                and host.shape == shape
            ):
                # (an array that owns its buffer, a host result or the copy just made,
                # is no view of the target: the scatter reads it as it is)
                flat = host.reshape(-1)
            else:
                flat = np.array(
                    np.broadcast_to(host.astype(np_dtype, copy=False), shape), order="C"
                ).reshape(-1)
            kind: Any = carrier_for("CPU", dtype)
            held: Carrier = kind.from_numpy(flat, mutable=False)
            return held
        with self.stream():
            # mx.contiguous: a broadcast keeps zero strides through reshape and
            # mx.array, and the carrier's device scatter needs row-major storage.
            full = self.mx.broadcast_to(self.astype(values, dtype), shape)
            flat = self.mx.contiguous(full).reshape(-1)
        mx_device, name = mlx_device()
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
