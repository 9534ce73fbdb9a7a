"""`Metal`: typed accelerator storage over one 1-D ``mlx.core.array``.

MLX is optional. Nothing here imports it at module level (ruff TID253): the first
``Metal(...)`` construction loads ``mlx.core``, so ``import stridewave`` and every
CPU carrier work without it.

Design
------
* **Device.** A GPU runtime is required: Apple's Metal (``mx.metal.is_available()``)
  or MLX's CUDA backend on Linux (``mx.cuda.is_available()``, wheel ``mlx[cuda13]``).
  ``STRIDEWAVE_METAL_DEVICE=cpu`` selects MLX's CPU device instead (a testing aid,
  so the whole contract runs in CI). Arrays and ops are placed on the chosen device
  explicitly (``stream=`` / ``with mx.stream(device)``); the process-wide default
  device is never changed.
* **Host view, taken lazily.** The carrier keeps the evaluated MLX array and takes
  ``numpy.asarray(memoryview(array))`` (a zero-copy, writable NumPy view of the MLX
  buffer: CPU device; unified memory on Apple silicon; managed memory on MLX CUDA)
  only when something first needs host access: a scalar read or write,
  ``numpy.asarray``, iteration, a NumPy-side bulk read. Construction and
  ``new_like`` never take it: on CUDA the first host access of a fresh buffer may
  synchronize or migrate its pages, which must not be paid by a carrier that stays
  on the device. Once taken, the scalar accessors are the view's own
  (``view.item(i)``, ``view[i] = v``), exactly like the NumPy carriers; before that
  they are one flag check away from it.
* **Coherence.** Host writes land in the MLX buffer itself, so MLX sees them. An MLX
  write (scatter, the no-view scalar fallback) never changes the stored array in
  place: it builds the updated array from a private handle (``_updated``), evaluates
  it, then makes it the storage (``_commit``). MLX writes it into a new buffer (the
  old one stays alive while any reader holds it), so a host view taken before is
  dropped and taken again on the next host access. A scatter that writes every slot
  makes the storage a fresh buffer holding the values (``mx.array`` copies; a
  transpose is one ``mx.contiguous`` copy), sharing nothing with the source.
* **Threads.** MLX 0.32.4 keeps one stream per thread and device: ``stream=device``
  (and ``with mx.stream(device)``) picks the calling thread's stream, and a graph
  built on one thread cannot be evaluated on another ("There is no Stream(cpu, N) in
  current thread"); an unevaluated graph that two threads schedule at once crashes
  the process (segmentation fault, ``std::bad_cast``). MLX's own indexed assignment
  ``a[i] = v`` rebinds the Python object ``a`` to such a graph, so applied to the
  stored array it exposed one to every thread reading the storage without the
  carrier's lock (``mlx.core.array(carrier)``, the array API). The rule here: **the
  stored array (``_mx_array``) is always evaluated, or scheduled with
  ``mlx.core.async_eval`` by the thread that built it** (the array API's results,
  ``_adopt(evaluate=False)``); every graph is built and evaluated on one thread,
  inside one call, before anything publishes it; a new storage array is published
  with one attribute store. Any thread may then read it, wait for it, or build on
  it. Writes hold the carrier's lock with the scalar fast path closed (a scatter is a
  move), so two writers never interleave and no write is lost. Every evaluation
  (``eval``, ``async_eval``) goes through :func:`mlx_eval`, under one process-wide
  leaf lock: on MLX's CUDA backend, threads evaluating at once at times hung for good.
* **Memory safety.** MLX checks no index bounds and converts values silently. Every
  index and value reaching MLX here has been validated and normalized in NumPy by
  the carrier core first (physical index checks, the dtype normalization table,
  scatter bounds), and values cross as NumPy arrays already in the storage dtype.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, override

from stridewave.carriers import _messages, _protocols
from stridewave.carriers._array_backed import _ArrayCarrier
from stridewave.carriers._base import Carrier, check_flag, check_size
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._mlx_runtime import (
    CUDA_DEVICE_NAME,
    FORKED_AFTER_MLX,
    GPU_BUILD,
    MAIN_THREAD,
    import_mlx,
    mlx_eval,
    require_alive,
    runtime,
    select_device,
)
from stridewave.carriers._normalize import materialize, storage_numpy_dtype
from stridewave.carriers._resources import check_host_allocation
from stridewave.carriers._scatter import (
    ScatterPlan,
    ScatterSource,
    TensorView,
    plan_scatter,
    scatter_indices,
    scatter_numpy,
    strided_view,
)
from stridewave.carriers._storage import validate_storage_dtype
from stridewave.carriers._storage_dtypes import storage_row
from stridewave.dtypes import DType
from stridewave.interop import export_dtype
from stridewave.layout import Layout

__all__ = ["Metal"]

_METAL_DTYPES: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32, DType.Bool)

#: The most slots an array API write writes through the host view where the host maps
#: the buffer in place (``Metal.writes_on_host``); a larger one is the device's.
_HOST_WRITE_MAX: Final = 4096
#: The largest buffer (bytes) whose element writes go through a host view at once even
#: where taking it moves the whole buffer to managed memory (MLX's CUDA GPU); and the
#: element writes a larger buffer takes on the device before its host view is taken:
#: moving a buffer costs at most about 70 device element writes (each an MLX update
#: of the buffer), so a run of writes then costs at most about twice the cheaper way
#: (``Metal.writes_element_on_host``).
_ELEMENT_WRITE_MOVE_MAX: Final = 64 * 2**20
_DEVICE_ELEMENT_WRITES_MAX: Final = 64


def _empty(dtype: DType) -> npt.NDArray[Any]:
    out = np.empty(0, storage_numpy_dtype(dtype))
    out.flags.writeable = False
    return out


#: The stand-in ``_array`` of a carrier with no host view yet (shared: empty, read-only).
_NO_VIEW: Final[dict[DType, npt.NDArray[Any]]] = {d: _empty(d) for d in _METAL_DTYPES}

#: Metal carriers holding a host view of memory an MLX build with a GPU runtime
#: allocated. MLX's CUDA build allocates every array (its CPU device's too) in managed
#: memory a forked child cannot touch (SIGSEGV), so the at-fork hook drops those views:
#: the child's next host access then raises the after-fork RuntimeError instead.
_GPU_VIEWS: Final[weakref.WeakSet[Metal]] = weakref.WeakSet()


def _drop_gpu_views_in_child() -> None:
    # MLX's CUDA build allocates every array in managed memory a forked child cannot
    # touch: the views go, and the next host access raises the after-fork error.
    if "mlx.core" in sys.modules:
        for carrier in list(_GPU_VIEWS):  # (single-threaded here: no lock needed)
            if carrier._viewed:
                carrier._drop_view()
                carrier._bind_backend()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_gpu_views_in_child)


#: Results below this many bytes pass :func:`check_result_size` unchecked: every bound
#: it compares with is larger (a process running MLX already maps more than this), so
#: the answer is the same, without reading the limits on every operation.
UNCHECKED_BELOW: Final = 1 << 26


def check_result_size(array: Any, dtype: DType) -> None:
    """Raise ``MemoryError`` before MLX allocates a result no process here can hold.

    MLX crashes the process (SIGSEGV) when an allocation fails: the array API's MLX
    backend calls this on every result before scheduling it, as ``Metal(n)`` checks
    its size before building its storage (:func:`check_host_allocation`).

    Parameters
    ----------
    array : mlx.core.array
        The result, not evaluated yet (its ``nbytes`` allocates nothing).
    dtype : DType
        Its dtype, for the message.

    Raises
    ------
    MemoryError
        If the result's bytes exceed the smallest of physical memory, ``RLIMIT_AS``,
        ``RLIMIT_DATA`` and the cgroup's ``memory.max``; nothing was allocated.
    """
    nbytes: int = array.nbytes
    if nbytes >= UNCHECKED_BELOW:
        shape = tuple(array.shape)
        check_host_allocation(nbytes, what=f"A Metal array of shape {shape} and dtype {dtype!r}")


def _numpy_over(array: Any, np_dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """Return NumPy over the evaluated MLX ``array``'s buffer, of ``np_dtype``.

    NumPy reads no buffer format for bfloat16 (an ml_dtypes type, kind ``"V"``): its
    bits are read through MLX's uint16 view of the same buffer, then viewed as
    ``np_dtype``. Raises what ``memoryview`` raises where the device exposes no buffer.
    """
    if np_dtype.kind != "V":
        view = np.asarray(memoryview(array))
        # (MLX's buffer format for int64 is "q", NumPy's long long, which C code that
        # switches on NumPy's type number, SciPy's ndimage, takes for another type)
        return view if view.dtype.char == np_dtype.char else view.view(np_dtype)
    bits = array.view(import_mlx().uint16)
    mlx_eval(bits)
    return np.asarray(memoryview(bits)).view(np_dtype)


def _host_view(array: Any, np_dtype: np.dtype[Any]) -> npt.NDArray[Any] | None:
    """Return a writable zero-copy NumPy view of the evaluated 1-D MLX ``array``.

    ``None`` when the device exposes no such host view (the carrier then takes the
    slower MLX path for scalars).
    """
    try:
        view: npt.NDArray[Any] = _numpy_over(array, np_dtype)
    except (TypeError, ValueError, BufferError, RuntimeError):
        return None
    if view.dtype != np_dtype or view.ndim != 1 or not view.flags.c_contiguous:
        return None
    if not view.flags.writeable:
        return None
    return view


def _store_at(mx: Any, storage: Any, index: Any, source: Any) -> Any:
    """Return ``storage`` with ``source`` written at the 1-D integer ``index``.

    Elements of 8 bytes (int64, uint64, float64, complex64) are written as pairs of
    uint32 words: MLX's GPU scatter takes no 64-bit elements ("GPU scatter does not
    yet support int64"), and the words' scatter is the same write on every device.
    """
    if storage.dtype.size != 8:
        storage[index] = source
        return storage
    words = storage.view(mx.uint32).reshape(-1, 2)
    words[index] = mx.contiguous(source.astype(storage.dtype)).view(mx.uint32).reshape(-1, 2)
    return words.reshape(-1).view(storage.dtype)


class Metal(_ArrayCarrier):
    """Typed accelerator storage: one 1-D ``mlx.core.array`` of ``size`` elements.

    Parameters
    ----------
    size : int-like
        Number of slots (elements), ``>= 0``.
    mutable : bool, optional
        Intrinsic mutability (default ``True``).
    dtype : DType, optional
        ``DType.Float32`` (default), ``DType.Int32`` or ``DType.Bool``: MLX
        ``float32``, ``int32`` and ``bool_`` (4, 4 and 1 bytes per slot).
    empty : bool, optional
        Accepted for the spec (default ``False``); MLX has no uninitialized
        allocation, so the storage is zero-filled either way.

    Raises
    ------
    TypeError
        If ``size`` has no ``__index__``, ``dtype`` is not a DType, or a flag is not a
        bool (checked before MLX is imported).
    ValueError
        If ``size`` is negative, or ``dtype`` is not Float32, Int32 or Bool
        (categories and compound dtypes included; checked before MLX is imported).
    RuntimeError
        If MLX is not installed (install ``"stridewave[mlx]"``), or no GPU runtime
        exists (Apple Metal or MLX CUDA) and ``STRIDEWAVE_METAL_DEVICE`` is not
        ``cpu``; raised before any storage exists.

    Notes
    -----
    Implements "Metal owns typed accelerator storage" (spec: carrier-storage).

    *Backend*: an evaluated ``mlx.core.array`` of shape ``(size,)`` placed on the
    GPU (Apple Metal or MLX's CUDA backend), or on MLX's CPU device when the
    environment variable ``STRIDEWAVE_METAL_DEVICE=cpu`` is set (a testing aid).

    *Zero-copy reads*: scalar reads and writes use a NumPy view of the evaluated
    buffer (host-visible on the CPU device, on Apple unified memory and on MLX CUDA
    managed memory), taken on the first host access (never by construction,
    ``new_like`` or scatter), so they cost about what ``ndarray.item`` does; no MLX
    graph is built per element. ``numpy.asarray(metal)`` is a read-only snapshot (see
    ``__array__``). Where a device gives no host view the carrier falls back to MLX
    per-element operations (correct, about 100x slower).

    *Scatter* is one MLX write followed by ``mlx.core.eval``; it completes before
    returning: a slice update for a single strided run; for a transpose (several axes
    filling one dense block) one device copy into the block's order, then a slice
    update; else fancy indexing over unique destination slots, the later logical
    index winning. A scatter covering every slot replaces the buffer with a fresh
    copy of the values instead. Each MLX write produces the storage as a new buffer
    (one device copy of the untouched slots) and publishes it only once evaluated,
    which makes device work safe from any number of threads (module notes,
    *Threads*).

    *MLX interop*: ``mlx.core.array(metal)`` returns an independent copy (a
    snapshot taken at the call), through the ``__mlx_array__`` protocol.

    *Release* drops the MLX array and the view; MLX frees the buffer once no
    exported view or array still refers to it.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _METAL_DTYPES
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _METAL_DTYPES

    #: Device scatter (MLX sources stay on the device); never a secondary (MLX may
    #: move its buffer, so it cannot take a one-move load); exports snapshots.
    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.DEVICE, secondary=False, exports_views=False, host_addressable=False
    )

    _mx_array: Any
    _device: Any
    _device_name: str
    _host: bool
    #: The array API's 1-D MLX views of this storage built on the main thread,
    #: ``{(id(layout), offset): (layout, storage, view)}``, or None: a repeated
    #: ``x[::2] * 2`` reuses its slice. Each is a view of the stored array it names
    #: (MLX slices share the buffer), used only while that is ``_mx_array``, and the
    #: whole is dropped wherever the storage is replaced or released; only the main
    #: thread reads or writes it (no lock).
    _views: dict[tuple[int, int], tuple[Any, Any, Any]] | None

    def _device_storage_dtypes(self) -> tuple[DType, ...]:
        """Return the dtypes the constructor accepts on this process's MLX device.

        The spec's three here; a kind with a wider storage set narrows it to what MLX
        has on the selected device.
        """
        return type(self)._CONSTRUCTIBLE_STORAGE or _METAL_DTYPES

    def __init__(
        self,
        size: int,
        *,
        mutable: bool = True,
        dtype: DType = DType.Float32,
        empty: bool = False,
    ) -> None:
        n = check_size(size, where="Metal")
        dtype = validate_storage_dtype(
            dtype, carrier="Metal", accepted=self._device_storage_dtypes()
        )
        flag = check_flag("mutable", mutable, where="Metal")
        check_flag("empty", empty, where="Metal")
        # MLX aborts the process if it cannot allocate: refuse a size no host can hold
        itemsize = storage_numpy_dtype(dtype).itemsize
        check_host_allocation(itemsize * n, what=f"Metal({n}, dtype={dtype!r})")
        require_alive(f"build Metal({n})")
        mx = import_mlx()
        device, name = select_device(mx)
        array = mx.zeros((n,), dtype=_mlx_dtype(mx, dtype), stream=device)
        self._adopt(array, device, name, dtype, mutable=flag)

    def _adopt(
        self,
        array: Any,
        device: Any,
        name: str,
        dtype: DType,
        *,
        mutable: bool,
        evaluate: bool = True,
    ) -> None:
        """Take ``array`` (fresh, unevaluated or evaluated) as storage; finish construction.

        Evaluates it first (on this thread, which built its graph), unless
        ``evaluate=False``: then the caller has already scheduled it on this thread
        (``mlx.core.async_eval``, the array API's results), so any thread may wait
        for it, and every host access does (``_take_view``, ``_raw_array``). An
        array whose graph is neither evaluated nor scheduled must never be adopted
        with ``evaluate=False``: another thread reading it would schedule the same
        graph a second time (see the module notes, *Threads*). It takes no host view
        (the view is lazy).
        """
        require_alive("adopt an MLX result")  # (a scheduled one would never run)
        if evaluate:
            mlx_eval(array)
        self._device = device
        self._device_name = name
        self._mx_array = array
        self._views = None
        self._dtype = dtype
        self._host = True  # presumed until a view is first asked for
        self._pending: dict[int, Any] = {}
        self._unrecorded_reads = None
        self._device_element_writes = 0  # (counted by writes_element_on_host)
        self._drop_view()
        self._init_carrier(dtype, mutable=mutable)

    # -- the array API's access (stridewave.array_api's MLX backend) -----------------------

    @classmethod
    def adopt_array(
        cls,
        array: Any,
        device: Any,
        name: str,
        dtype: DType,
        *,
        mutable: bool,
        scheduled: bool,
        unrecorded_reads: list[Any] | None = None,
    ) -> Metal:
        """Return a new carrier taking the 1-D ``array`` as its storage (no copy).

        Internal API of the package (the array API's MLX backend adopts its results).

        Parameters
        ----------
        array : mlx.core.array
            Shape ``(size,)``, in ``dtype``'s MLX dtype, computed on ``device``.
        device : mlx.core.Device
            The MLX device of the storage; ``name`` describes it.
        name : str
            The device in words (:meth:`device`).
        dtype : DType
            Float32, Int32 or Bool.
        mutable : bool
            Intrinsic mutability.
        scheduled : bool
            ``True``: the caller scheduled ``array`` on this thread
            (``mlx.core.async_eval``) and any host access waits for it; ``False``:
            it is evaluated here.
        unrecorded_reads : list, optional
            With ``scheduled`` and ``mutable``: ``[latest]``, where ``latest`` is None
            or the main thread's latest scheduled array that reads ``array`` without
            a record here (the array API's fresh result, read before its carrier was
            made; the list may still change until this carrier is published). The
            first host access records it (under the lock) and waits for it.

        Returns
        -------
        Metal
            The carrier.
        """
        carrier = cls.__new__(cls)
        if not (scheduled and mutable):
            carrier._adopt(array, device, name, dtype, mutable=mutable, evaluate=not scheduled)
            return carrier
        # A fresh, scheduled result (every array API operation makes one): the state
        # _adopt gives, set flat, as the per-call cost asks (a test holds them equal).
        if FORKED_AFTER_MLX[0]:
            require_alive("adopt an MLX result")
        carrier._device = device
        carrier._device_name = name
        carrier._mx_array = array
        carrier._views = None
        carrier._host = True
        carrier._pending = {}
        carrier._unrecorded_reads = unrecorded_reads
        carrier._device_element_writes = 0
        carrier._viewed = False
        view = _NO_VIEW.get(dtype)
        carrier._array = _NO_VIEW.setdefault(dtype, _empty(dtype)) if view is None else view
        carrier._init_fresh(dtype, array.shape[0])
        return carrier

    @property
    def mlx_array(self) -> Any:
        """The live 1-D storage, an ``mlx.core.array`` (None once released); internal API.

        For reading into device operations only: a host write must go through the
        carrier, and an operation that reads it records itself
        (:meth:`note_device_read`).
        """
        return self._mx_array

    @property
    def mlx_device(self) -> Any:
        """The MLX device of the storage (``mlx.core.Device``); internal API."""
        return self._device

    @property
    def mlx_device_name(self) -> str:
        """The MLX device of the storage in words (str); internal API."""
        return self._device_name

    def forget_reads_of(self, thread: int) -> None:
        """Wait for ``thread``'s recorded device read, then forget it (the thread ended).

        Internal API (see :meth:`_forget_reads_of`).

        Parameters
        ----------
        thread : int
            ``threading.get_ident()`` of the thread that ended.
        """
        self._forget_reads_of(thread)

    # -- the MLX buffer and its (lazy) host view ------------------------------------------

    _viewed: bool

    def _drop_view(self) -> None:
        """Forget the host view (not yet taken, or the buffer may have changed)."""
        self._viewed = False
        view = _NO_VIEW.get(self._dtype)
        self._array = (
            _NO_VIEW.setdefault(self._dtype, _empty(self._dtype)) if view is None else view
        )

    #: The operations scheduled on the device that read this storage, the latest per
    #: thread: ``{thread id: the scheduled array}``. Set by :meth:`_note_device_read`,
    #: waited for and cleared by :meth:`_take_view`.
    _pending: dict[int, Any]
    #: ``[latest]``, the main thread's latest read of the buffer not recorded in
    #: ``_pending`` (see :meth:`adopt_array`), or None: cleared by the first host
    #: access, under the lock.
    _unrecorded_reads: list[Any] | None

    def _note_device_read(self, thread: int, scheduled: Any) -> None:
        """Note that ``scheduled``, an operation launched on the device, reads this storage.

        The array API schedules its results (``mlx.core.async_eval``) and returns
        before the device has run them, while the host view writes into this very
        buffer (``set_value``, ``carrier[i] = v``): a host write after ``y = x * 2``,
        on this thread or on another one ordered after it, could change ``y``. So
        ``scheduled`` is kept here and the host view dropped (under the lock): the
        next host access waits for it, whichever thread makes it (:meth:`_take_view`).
        Called after the launch and before the operation's call returns. The record
        and the look at the view happen under the lock, and :meth:`_take_view`
        publishes a view under it only while no record is there. One array per
        thread suffices: a thread's operations run in order on its stream, so its
        latest one finishes after the others. MLX writes (scatter) need no wait: they
        build a new buffer (:meth:`_updated`).

        Parameters
        ----------
        thread : int
            ``threading.get_ident()`` of the launching thread.
        scheduled : mlx.core.array
            The array scheduled with ``mlx.core.async_eval``.
        """
        if FORKED_AFTER_MLX[0]:
            require_alive("schedule MLX work")  # (the launched work will never run)
        # (against _take_view forgetting what it waited for.) The lock itself, not
        # ``_locked()``: past the check above no fork happened since MLX was imported,
        # hence since this carrier was made, so its lock is this process's own.
        with self._lock:
            if self._released:
                # No host access will wait for the read, and a record kept here would
                # hold the scheduled result's buffer for the carrier's life (a refused
                # call on it leaves its read noted for the next launch).
                return
            self._pending[thread] = scheduled
            if self._viewed:
                self._pause_view()

    #: The internal API's name of :meth:`_note_device_read` (one frame, not two: every
    #: operation on the Metal device records its reads).
    note_device_read = _note_device_read

    def _forget_reads_of(self, thread: int) -> None:
        """Wait for ``thread``'s recorded device read, then forget it (the thread ended).

        A failed wait forgets nothing (the next host access waits again).
        """
        scheduled = self._pending.get(thread)
        if scheduled is None:
            return
        try:
            mlx_eval(scheduled)
        except RuntimeError:  # (MLX failed: keep the record, raise nothing at thread end)
            return
        with self._locked():
            if self._pending.get(thread) is scheduled:
                del self._pending[thread]

    def _pause_view(self) -> None:
        """Drop the host view under the lock; the next host access takes it again."""
        with self._locked():
            if self._viewed and self._mx_array is not None:
                self._drop_view()
                self._bind_backend()

    def _take_view(self) -> npt.NDArray[Any] | None:
        """Make sure the host view exists; return it, or None if the device gives none.

        The first call evaluates the array, takes the view and re-binds the scalar
        accessors to it (``view.item``, ``view``), so later scalar calls pay no check.
        If operations scheduled on the device read the storage (see
        :meth:`_note_device_read`), it first waits for them (``mlx.core.eval`` of
        their scheduled arrays, which works from any thread), so a host write through
        the view reaches no operation issued before it; they are forgotten only once
        the wait succeeded.

        The waits run without the carrier's lock; the view is published under it, and
        only if it is still the view of the stored array and no device read was
        recorded meanwhile (else it looks again). Published without the lock, two
        threads could interleave with each other or with a scatter's commit: a view of
        a buffer the scatter had already replaced would take writes that are then
        lost, or ``_viewed`` could be left set over the empty stand-in (size 0,
        read-only), losing every later write.
        """
        while True:
            view, viewed = self._array, self._viewed
            if viewed:
                return view
            array = self._mx_array  # one read: a release on another thread sets it to None
            if array is None:
                raise RuntimeError(_messages.released(self, "access the storage"))
            if not self._host:
                return None
            if self._unrecorded_reads is not None:
                with self._locked():
                    # The latest read of this buffer made before the carrier existed
                    # (the main thread's: no other thread reads a fresh result without
                    # its carrier). A record of that thread already here is newer.
                    unrecorded = self._unrecorded_reads
                    if unrecorded is not None:
                        self._unrecorded_reads = None
                        if unrecorded[0] is not None:
                            self._pending.setdefault(MAIN_THREAD, unrecorded[0])
            pending = self._pending
            if pending:
                waited = list(pending.items())
                mlx_eval(*(scheduled for _thread, scheduled in waited))  # (raises: forgets none)
                with self._locked():  # (a record replaced meanwhile is kept: a new read)
                    for thread, scheduled in waited:
                        if pending.get(thread) is scheduled:
                            del pending[thread]
            mlx_eval(array)
            taken = _host_view(array, storage_numpy_dtype(self._dtype))
            with self._locked():
                if taken is None:
                    self._host = False
                    return None
                if self._mx_array is not array or self._pending:
                    # A scatter replaced the buffer (or a release dropped it), or an
                    # operation recorded a device read after the wait above: look again
                    # (also when another thread published the view meanwhile).
                    continue
                if not self._viewed:  # (else another thread published this view already)
                    self._array = taken
                    self._viewed = True
                    if GPU_BUILD[0]:
                        _GPU_VIEWS.add(self)
                    self._bind_backend()
                return self._array

    def moves_to_map(self) -> bool:
        """Whether a host view of the storage moves the whole buffer first; internal API.

        True on MLX's CUDA GPU device: its buffers live in device memory, and the
        first host access of one (the buffer protocol) copies all of it to managed
        memory. False on MLX's CPU device and on Apple's unified memory, where the
        host maps the buffer in place.

        Returns
        -------
        bool
            Whether mapping the storage on the host costs the whole buffer.
        """
        return self._device_name == CUDA_DEVICE_NAME

    def writes_on_host(self, count: int) -> bool:
        """Whether a partial write of ``count`` slots goes through the host view; internal API.

        Where the host maps the buffer in place (MLX's CPU device, Apple's unified
        memory), for at most :data:`_HOST_WRITE_MAX` slots: a larger write is the
        device's (on a GPU its copy of the buffer is faster than the host's write).
        Never on MLX's CUDA GPU, where a host view moves the whole buffer to managed
        memory first.

        Parameters
        ----------
        count : int
            The slots written.

        Returns
        -------
        bool
            Whether the host writes them.
        """
        return count <= _HOST_WRITE_MAX and not self.moves_to_map()

    def writes_element_on_host(self) -> bool:
        """Whether this element write (the array API's ``x[i, j] = v``) takes the host view; internal API.

        Where the host maps the buffer in place, or the view is taken already: yes.
        On MLX's CUDA GPU, where taking the view moves the whole buffer to managed
        memory once (element writes then cost what NumPy's do, where each one on the
        device is an MLX update of the buffer): at once for a buffer of at most
        :data:`_ELEMENT_WRITE_MOVE_MAX` bytes, and for a larger one after
        :data:`_DEVICE_ELEMENT_WRITES_MAX` element writes on the device (counted here:
        a run of writes moves the buffer, a single one does not). On an H200,
        scikit-learn's diagonal fill of a 2,000 x 2,000 distance matrix took 0.12 s
        against 0.65 s on the device, of a 5,000 x 5,000 one 0.5 s against 2.0 s.

        Returns
        -------
        bool
            Whether the element write goes through the host view.
        """
        if self._viewed or not self.moves_to_map():
            return True
        if self._slots * storage_numpy_dtype(self._dtype).itemsize <= _ELEMENT_WRITE_MOVE_MAX:
            return True
        # (a count, not a guard: two threads counting at once miss one at worst)
        self._device_element_writes += 1
        return self._device_element_writes > _DEVICE_ELEMENT_WRITES_MAX

    def read_view(self) -> npt.NDArray[Any] | None:
        """Return a host view to read the storage through now, or None; internal API.

        For reads of a part of the storage (the array API's exports of a slice, its
        scalar reads): the published host view where one is taken; else, where the
        host maps the buffer in place (:meth:`moves_to_map` False), the view taken
        now, once the storage is computed: published (:meth:`_take_view`) when no
        device read is recorded, else a private one (a read need not wait for the
        operations that read the storage, only a host write does). None where taking
        a view would move the whole buffer (the caller then copies the part on the
        device first) or the device exposes no host view. The view is for reading:
        writes go through the carrier.

        Returns
        -------
        numpy.ndarray or None
            Shape ``(size(),)``, the storage's dtype; or None (see above).

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        view, viewed = self._array, self._viewed
        if viewed and view.shape[0] == self._slots and self._mx_array is not None:
            return view  # (a view published meanwhile by another thread: its own check)
        if self.moves_to_map():
            return None
        if not self._pending:
            return self._take_view()
        array = self._mx_array  # one read: a release on another thread sets it to None
        if array is None:
            raise RuntimeError(_messages.released(self, "read the storage"))
        mlx_eval(array)  # (a scheduled result may still be running)
        return _host_view(array, storage_numpy_dtype(self._dtype))

    def _updated(self, mx: Any) -> Any:
        """Return a private handle on the storage for one MLX write (never the storage).

        MLX's indexed assignment (``a[i] = v``) rebinds the Python object ``a`` to a
        new, unevaluated graph. Applied to ``_mx_array`` itself, every thread that
        reads the storage meanwhile without the carrier's lock (an MLX export, the
        array API building its graphs) would meet that graph and could schedule it a
        second time: a segmentation fault, ``std::bad_cast`` or ``There is no
        Stream`` on MLX 0.32.4. The write goes to this handle instead (a new Python
        object over the same values, no copy yet) and :meth:`_commit` publishes the
        result once it is evaluated.
        """
        return mx.stop_gradient(self._mx_array, stream=self._device)

    def _commit(self, mx: Any, array: Any) -> None:
        """Evaluate ``array`` (the new storage) on this thread, then publish it.

        Called with the carrier's lock held and the scalar fast path closed (a
        scatter is a move). The evaluation can fail (out of memory) before anything
        changed: the storage is then as it was. The new storage is published with
        one attribute store, so a reader on another thread sees the old array or the
        new one, each evaluated, never a graph still to run. MLX wrote into a new
        buffer (the old one stays alive while a reader holds it), so the host view,
        if one was taken, is dropped; the next host access takes it again.
        """
        mlx_eval(array)
        self._mx_array = array
        self._views = None  # (views of the old buffer)
        if self._viewed:
            self._drop_view()
            self._bind_backend()

    @override
    def _bind_backend(self) -> None:
        if self._viewed:
            super()._bind_backend()  # the view's own item / __setitem__
        else:
            Carrier._bind_backend(self)  # _raw_get / _raw_set: take the view first

    @override
    def _raw_size(self) -> int:
        return 0 if self._mx_array is None else int(self._mx_array.shape[0])

    def _host_array(self, action: str) -> npt.NDArray[Any] | None:
        """Return the host view to read or write through now, or None (MLX's path).

        The view :meth:`_take_view` returned, a local from then on: a scatter's commit
        or a ``_pause_view`` on another thread may drop the view right after, and the
        stand-in they leave is empty. A view of a buffer a scatter replaced is still
        valid memory; a write into it is redone by the scalar path's gate check (a
        scatter is a move), and a read returns the value from before the scatter.

        Raises
        ------
        RuntimeError
            If the carrier is released (``action`` names what was refused).
        """
        if self._mx_array is None:  # a release raced this access (another thread)
            raise RuntimeError(_messages.released(self, action))
        return self._take_view()

    @override
    def _raw_get(self, index: int) -> Any:
        # Callers checked the index against the size: a view shorter than that is the
        # empty stand-in of one dropped by another thread meanwhile (look again).
        while (view := self._host_array("read a slot")) is not None:
            if index < view.shape[0]:
                return view.item(index)
        array = self._mx_array  # one read: a release on another thread sets it to None
        if array is None:
            raise RuntimeError(_messages.released(self, "read a slot"))
        return array[index].item()  # fallback: one small MLX graph, run on this thread

    @override
    def _raw_set(self, index: int, value: Any) -> None:
        # As in _raw_get (and the stand-in is read-only: NumPy 2.0 would say so first).
        while (view := self._host_array("write a slot")) is not None:
            if index < view.shape[0]:
                view[index] = value
                return
        mx = import_mlx()
        with self._locked():  # (the fast path calls this without the lock)
            if self._mx_array is None:
                raise RuntimeError(_messages.released(self, "write a slot"))
            storage = self._updated(mx)
            with mx.stream(self._device):
                storage[index] = value  # normalized by the core already
            self._commit(mx, storage)

    @override
    def _raw_array(self) -> npt.NDArray[Any]:
        while (view := self._host_array("read the storage")) is not None:
            if view.shape[0] == self._slots:  # (else the stand-in of a dropped view)
                return view
        array = self._mx_array
        if array is None:  # released meanwhile (another thread)
            raise RuntimeError(_messages.released(self, "read the storage"))
        mlx_eval(array)  # (a scheduled result may still be running)
        copy: npt.NDArray[Any] = np.array(
            _numpy_over(array, storage_numpy_dtype(self._dtype)), copy=True
        )
        return copy

    @override
    def __array__(
        self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
    ) -> npt.NDArray[Any]:
        """Export the slots to NumPy as a copy (protocol of NumPy 2).

        Unlike the NumPy-backed kinds, Metal never exports a view: MLX may move the
        storage to a new buffer on a later write (it does on its CUDA backend), and
        the buffer protocol of an ``mlx.core.array`` pins the Python object, not the
        buffer, so an exported view could go stale or point at freed memory.

        Parameters
        ----------
        dtype : numpy dtype-like, optional
            Requested NumPy dtype (default: the storage's).
        copy : bool or None, optional
            ``None`` (default): a read-only snapshot, like the read-only views of the
            other kinds. ``True``: a writable copy. ``False``: ``ValueError``, since
            no view is possible.

        Returns
        -------
        numpy.ndarray
            Shape ``(size(),)``, the values at the time of the call.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        TypeError
            If NumPy cannot read ``dtype`` as a dtype.
        ValueError
            If ``copy=False``.
        """
        self._require_live("export to NumPy")
        requested = export_dtype(dtype, exporter=self)
        if copy is False:
            raise ValueError(
                f"numpy.asarray({self!r}, copy=False): a Metal carrier never exports a "
                f"view (MLX may move its buffer on a later write); drop copy=False to get "
                f"a read-only snapshot, or use mlx.core.array(carrier) on the device."
            )
        raw = self._raw_array()
        self._require_live("export to NumPy")  # a release that raced the line above
        out: npt.NDArray[Any] = np.array(raw, dtype=requested, copy=True)
        if copy is None:
            out.flags.writeable = False
        return out

    @override
    def _raw_release(self) -> None:
        self._mx_array = None
        self._views = None
        self._pending = {}  # (holds results of operations that read it: let them go)
        self._drop_view()
        self._viewed = True  # the empty array serves the (refused) accessors
        super()._raw_release()

    def device(self) -> str:
        """Return the MLX device holding the storage, in words.

        Returns
        -------
        str
            E.g. ``"MLX GPU device (CUDA)"`` or ``"MLX CPU device (...)"``; available
            after release too.
        """
        return self._device_name

    # -- scatter ----------------------------------------------------------------------------

    @override
    @classmethod
    def _availability(cls) -> tuple[bool, str]:
        return runtime()

    @override
    def _backend_slice(self, start: int, stop: int) -> Any:
        """Return the MLX array of slots ``[start, stop)`` (a device scatter source)."""
        array = self._mx_array
        return None if array is None else array[start:stop]

    @override
    def _raw_scatter(self, base: int, mapping: Layout, source: ScatterSource) -> None:
        """Write the source values through ``mapping`` with MLX operations.

        Everything is validated by :meth:`Carrier.scatter` before this runs. When the
        source is another Metal carrier of this dtype seen row-major
        (``source.backend(self)``: also through Evictables), its values are sliced on
        the device; otherwise the host values (``source.host()``, normalized) are
        moved to MLX. Only then is the write issued and evaluated. See
        :meth:`_scatter_mlx` for the cases.
        """
        # The scalar fast path stays closed while MLX writes: MLX may copy the storage
        # into a new buffer, and a scalar write landing in the old one meanwhile would
        # be lost. Writers that read the gate before this see it replaced and write
        # again under the lock, into the buffer the scatter left (the move protocol of
        # docs/threads-and-processes.md).
        device = source.backend(self)
        values = source.host() if device is None else np.empty(0, self._array.dtype)
        with self._move("scatter", guard=False):
            self._scatter_mlx(base, mapping, values, device)

    @override
    def _bulk_write(
        self,
        to_scatter: TensorView,
        scatter_onto: TensorView,
        mapping: Layout,
        mapping_offset: int = 0,
    ) -> None:
        # The array API's writes: a small partial one (an element, a short run) goes
        # through the host view where the host writes the buffer in place, costing
        # what it writes. MLX's slice update copies the whole buffer (the carrier's
        # own reference keeps MLX from reusing it): one full copy per element of a
        # loop of element writes, as scikit-learn's fill of a diagonal is. ``scatter``
        # itself keeps MLX's write, which takes no host view.
        host = mapping.size < self._slots and self.writes_on_host(mapping.size)
        self._scatter_template(
            to_scatter, scatter_onto, mapping, mapping_offset, self._host_scatter if host else None
        )

    def _host_scatter(self, base: int, mapping: Layout, source: ScatterSource) -> None:
        """Write the source values through ``mapping`` into the host view (see _bulk_write).

        Taking the view waits for the device reads recorded on the storage, so no
        operation issued before sees the write. Where the device gives no host view,
        MLX's write (:meth:`_raw_scatter`).
        """
        with self._move("scatter", guard=False):
            view = self._take_view()
            if view is not None and view.shape[0] == self._slots:
                scatter_numpy(view, base, mapping, source.host())
                return
        self._raw_scatter(base, mapping, source)

    def _scatter_mlx(
        self, base: int, mapping: Layout, values: npt.NDArray[Any], device: Any
    ) -> None:
        """Scatter ``values`` (host, row-major) or ``device`` (flat MLX source values).

        Cases, after dropping extent-1 axes and reducing zero-stride ones (the later
        logical index wins):

        * one strided run (contiguous, reversed, stepped; also several axes that fill
          one dense block in row-major order): a slice update, no index;
        * several axes whose destinations fill one dense block (a transpose, possibly
          with reversed axes), from a row-major source: the source is permuted into
          the block's order on the device (one copy), then written as one run;
        * any other injective mapping: destination indices built on the device from
          the strides, one indexed assignment;
        * repeats possible: unique destinations resolved in NumPy, one assignment.

        A write that covers every slot replaces the buffer with a fresh one holding
        the values (one device copy, or none for host values, whose transfer already
        made one) instead of copying into the old buffer: the same values for a
        fraction of the work and of MLX's per-call overhead. Any other write builds
        the updated storage from a private handle and publishes it once evaluated
        (:meth:`_updated`, :meth:`_commit`).
        """
        mx = import_mlx()
        if device is None:
            # The source may be a strided view (a reversed or broadcast source
            # Tensor); the windows below need one contiguous run of the values.
            values = np.ascontiguousarray(values)
        run = _one_run(base, mapping)
        if run is None:
            plan = plan_scatter(base, mapping)
            if plan.dest.size == 0:
                return
            if plan.dest.ndim <= 1:
                count = plan.dest.size
                step = plan.dest.strides[0] if plan.dest.ndim == 1 else 1
                source_step = plan.source.strides[0] if plan.dest.ndim == 1 else 1
                run = (plan.dest_base, count, step, plan.source_base, source_step)
            elif plan.injective:
                block = _dense_block(plan)
                if block is None:
                    self._write_indexed(mx, plan, values, device)
                    return
                low, order, flipped = block
                if order != tuple(range(len(order))) or flipped:
                    self._write_block(mx, plan, block, values, device)
                    return
                # A row-major block (plan_scatter keeps its axes apart): one run,
                # written as a slice update or, covering every slot, a fresh buffer
                run = (low, plan.dest.size, 1, plan.source_base, 1)
            else:
                self._write_unique(mx, base, mapping, values, device)
                return
        if run[1] == 0:
            return
        start, count, step, source_start, source_step = run
        if step < 0:  # walk the run upwards
            start += step * (count - 1)
            source_start += source_step * (count - 1)
            step, source_step = -step, -source_step
        stop = source_start + source_step * count
        window = slice(source_start, stop if stop >= 0 else None, source_step)
        if device is not None:
            source = device[window]
            fresh = False
        else:
            source = _to_mlx(mx, values[window])
            fresh = True
        self._write_run(mx, start, count, step, source, fresh=fresh)

    def _write_run(
        self, mx: Any, start: int, count: int, step: int, source: Any, *, fresh: bool
    ) -> None:
        """Write the 1-D MLX ``source`` to slots ``start, start + step, ...`` (``step > 0``).

        ``fresh``: ``source`` is a new MLX array no one else holds (moved from the
        host), which may then become the storage itself.
        """
        if count == self._slots:
            # Every slot is written: the storage becomes a fresh buffer holding the
            # values. ``mx.array`` always copies (it never aliases the source
            # carrier's buffer); a fresh source is already private.
            if not fresh:
                with mx.stream(self._device):
                    source = mx.array(source)
            self._commit(mx, source)
            return
        # Evaluate the source first: the step that can fail (out of memory) runs
        # before anything is written, so a failure leaves the stored values as
        # they were.
        mlx_eval(source)
        stop = start + step * (count - 1) + 1
        storage = self._updated(mx)
        with mx.stream(self._device):
            storage[start:stop:step] = source
        self._commit(mx, storage)

    def _write_block(
        self,
        mx: Any,
        plan: ScatterPlan,
        block: tuple[int, tuple[int, ...], tuple[int, ...]],
        values: npt.NDArray[Any],
        device: Any,
    ) -> None:
        """Write a dense block: permute the row-major source on the device, then one run."""
        low, order, flipped = block
        size = plan.dest.size
        first = plan.source_base
        with mx.stream(self._device):
            if device is not None:
                source = device[first : first + size]
            else:
                source = _to_mlx(mx, values[first : first + size])
            source = source.reshape(plan.dest.shape)
            if flipped:
                source = source[
                    tuple(
                        slice(None, None, -1) if axis in flipped else slice(None)
                        for axis in range(len(plan.dest.shape))
                    )
                ]
            # Never row-contiguous here (the block is not a plain run), so
            # ``contiguous`` makes exactly one copy, in the block's order.
            source = mx.contiguous(mx.transpose(source, order)).reshape(-1)
        self._write_run(mx, low, size, 1, source, fresh=True)

    def _write_indexed(
        self, mx: Any, plan: ScatterPlan, values: npt.NDArray[Any], device: Any
    ) -> None:
        """Injective, not a dense block: indices built on the device from the strides."""
        if device is not None:
            source = mx.as_strided(
                device,
                plan.source.shape,
                plan.source.strides,
                plan.source_base,
                stream=self._device,
            )
        else:
            source = _to_mlx(mx, strided_view(values, plan.source_base, plan.source))
        wide = self._slots >= 2**30
        itype = mx.int64 if wide else mx.int32
        ndim = plan.dest.ndim
        with mx.stream(self._device):
            index = mx.full((1,) * ndim, plan.dest_base, dtype=itype)
            for axis, (extent, stride) in enumerate(
                zip(plan.dest.shape, plan.dest.strides, strict=True)
            ):
                shape = [1] * ndim
                shape[axis] = extent
                index = index + (mx.arange(extent, dtype=itype) * stride).reshape(shape)
            index = index.reshape(-1)
            source = source.reshape(-1)
        mlx_eval(index, source)
        storage = self._updated(mx)
        with mx.stream(self._device):
            storage = _store_at(mx, storage, index, source)
        self._commit(mx, storage)

    def _write_unique(
        self, mx: Any, base: int, mapping: Layout, values: npt.NDArray[Any], device: Any
    ) -> None:
        """Repeats possible: unique destinations, the later logical index winning.

        Resolved in NumPy (MLX promises no order for repeated indices).
        """
        unique, positions = scatter_indices(base, mapping)
        index = mx.array(unique)
        if device is not None:
            source = mx.take(device, mx.array(positions), stream=self._device)
        else:
            source = _to_mlx(mx, values[positions])
        mlx_eval(index, source)
        storage = self._updated(mx)
        with mx.stream(self._device):
            storage = _store_at(mx, storage, index, source)
        self._commit(mx, storage)

    # -- MLX interop ------------------------------------------------------------------------

    @override
    def _mlx_storage(self) -> Any:
        # DLPack exports what MLX exports (a snapshot): see carriers/_protocols.py.
        return self._mx_array

    def __mlx_array__(self) -> Any:
        """Return an evaluated copy of the storage as an ``mlx.core.array`` (``mx.array(m)``).

        Returns
        -------
        mlx.core.array
            Shape ``(size,)``, the storage dtype; independent of later carrier writes.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        self._require_live("export to MLX")
        mx = import_mlx()
        with mx.stream(self._device):
            snapshot = mx.array(self._mx_array)
        mlx_eval(snapshot)
        return snapshot

    # -- factories --------------------------------------------------------------------------

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        np_dtype = storage_numpy_dtype(dtype)
        array, _fresh = materialize(values, dtype, np_dtype, where="Metal.new_like", holes=True)
        mx = import_mlx()
        device, name = select_device(mx)
        fresh = type(self).__new__(type(self))
        fresh._adopt(_to_mlx(mx, array), device, name, dtype, mutable=mutable)
        return fresh

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        return type(self)(size, mutable=mutable, dtype=dtype, empty=empty)


def _to_mlx(mx: Any, values: npt.NDArray[Any]) -> Any:
    """Copy the NumPy ``values`` (already in the storage dtype) into a new MLX array.

    MLX's own transfer is the only pass over the data when ``values`` is C-contiguous
    with positive strides (the usual case). Otherwise one host copy makes it so first:
    MLX would copy a strided input's whole span, keeping its strides, and refuses a
    negative stride (NumPy calls a one-element view with one contiguous, too).
    """
    if not values.flags.c_contiguous or any(stride < 0 for stride in values.strides):
        values = np.array(values, order="C", copy=True)
    # Name the dtype: MLX would narrow a float64 input to float32 by itself.
    return mx.array(
        values, dtype=getattr(mx, "bool_" if values.dtype.kind == "b" else values.dtype.name)
    )


def _one_run(base: int, mapping: Layout) -> tuple[int, int, int, int, int] | None:
    """Plan a one-axis mapping without building a ScatterPlan (the common, cheap case).

    Returns ``(start, count, step, source_start, source_step)`` in slots and source
    positions, or ``None`` for a mapping of several axes (then ``plan_scatter``).
    A zero stride keeps only the last source value (the later logical index wins).
    """
    shape = mapping.shape
    if len(shape) != 1:
        return None
    count = shape[0]
    step = mapping.strides[0]
    if count > 1 and step == 0:
        return (base, 1, 1, count - 1, 1)
    return (base, count, step if count > 1 else 1, 0, 1)


def _dense_block(plan: ScatterPlan) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """Return ``(low, order, flipped)`` when the plan writes one dense block of slots.

    The destinations fill ``[low, low + size)`` exactly when the destination strides,
    taken by decreasing magnitude (``order``), are the row-major strides of the
    reordered shape; ``flipped`` lists the axes with a negative stride. ``None`` when
    they do not, or when the source positions are not row-major over the plan's
    shape (zero-stride axes were reduced). A row-major block (``order`` the axes in
    turn, nothing flipped) is one plain run of slots.
    """
    shape, strides = plan.dest.shape, plan.dest.strides
    ndim = len(shape)
    step = 1
    for axis in range(ndim - 1, -1, -1):  # the source must be row-major over ``shape``
        if plan.source.strides[axis] != step:
            return None
        step *= shape[axis]
    order = tuple(sorted(range(ndim), key=lambda axis: -abs(strides[axis])))
    step = 1
    for axis in reversed(order):
        if abs(strides[axis]) != step:
            return None
        step *= shape[axis]
    flipped = tuple(axis for axis in range(ndim) if strides[axis] < 0)
    low = plan.dest_base + sum(
        (extent - 1) * stride for extent, stride in zip(shape, strides, strict=True) if stride < 0
    )
    return low, order, flipped


_protocols.MLX_IMPORTER[:] = [import_mlx]  # carriers' __mlx_array__ (CONTRACT section 8)


def _mlx_dtype(mx: Any, dtype: DType) -> Any:
    """Return the ``mlx.core`` dtype of storage dtype ``dtype`` (from the dtype table)."""
    return getattr(mx, storage_row(dtype).mlx)
