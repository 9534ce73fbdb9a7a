"""The MLX backend's namespace: the standard's functions over MLX arrays.

Where MLX has the function, the call is a rename; where it answers otherwise, a shim
of :mod:`~stridewave.array_api._mlx_shims`; where it has none with the standard's
semantics, or computes it less accurately than NumPy (measured once per function,
dtype and device: :func:`computes_on_host`), the call runs in NumPy on the host over
the operands' memory and the result returns to the device. The direct calls
(:func:`direct_call`) skip the general dispatch for the common elementwise cases.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import numpy as np

from stridewave.array_api import _dtypes
from stridewave.array_api._backend import (
    Adopted,
    quiet,
    through_float32,
)
from stridewave.array_api._numpy_namespace import NAMESPACE as NUMPY_NAMESPACE
from stridewave.carriers import Metal
from stridewave.carriers._mlx_runtime import (
    DEVICE_ENV,
    FORKED_AFTER_MLX,
    MAIN_THREAD,
    mlx_eval,
    require_alive,
)

if TYPE_CHECKING:
    import numpy.typing as npt


from stridewave.array_api._mlx_state import (
    OPERATION,
    DeviceChoice,
    Result,
    get_ident,
    mlx_device,
    record_reads,
)

#: The MLX backend (``_mlx_backend.MLXBackend``, the layer above, which builds this
#: namespace and passes itself in): typed loosely, as this module may not import it.
MLXBackend: TypeAlias = Any

__all__ = [
    "HOST_SOURCE_MAX",
    "INT64_MAX",
    "KEEPS_ITS_DTYPE",
    "STANDARD_DTYPES",
    "ULP_SLACK",
    "Namespace",
    "computes_on_host",
    "direct_call",
    "host_operand",
    "wide_int",
]


# -- the namespace over MLX arrays --------------------------------------------------------


INT64_MAX: Final = 2**63 - 1

#: The most values a scatter source holds on the host (:meth:`MLXBackend.write_source`).
HOST_SOURCE_MAX: Final = 64
STANDARD_DTYPES: Final = frozenset(_dtypes.DTYPES.values())


def wide_int(mx: Any, value: int) -> Any:
    """Return a Python int in ``[2**63, 2**64)`` as a 0-d uint64 MLX array.

    MLX converts a Python int through int64 and raises ``std::bad_cast`` beyond it;
    a 0-d uint64 array takes part in an operation as the scalar did.
    """
    return mx.array(np.array(value, dtype=np.uint64))


def _wide_ints(mx: Any, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Return ``args`` with each Python int beyond int64 made a uint64 0-d array.

    ``None`` if there is none (an MLX error that these ints did not cause).
    """
    if not any(type(a) is int and a > INT64_MAX for a in args):
        return None
    return tuple(wide_int(mx, a) if type(a) is int and a > INT64_MAX else a for a in args)


def host_operand(backend: MLXBackend, array: Any) -> npt.NDArray[Any]:
    """Return an MLX operand of a host computation as a read-only NumPy view (no copy).

    CONTRACT section 9, version 3: an operation that runs on the host runs "over the
    same memory (NumPy on a host view, no copy where the memory is shared)". The view
    holds the MLX array, so the buffer outlives it; read-only, so no NumPy function
    writes into the device's buffer, and a result that is a view of it is copied where
    it is moved back to the device. A copy where MLX exports no buffer (bfloat16, a
    device without host views).

    Parameters
    ----------
    backend : MLXBackend
        The Metal device's backend.
    array : mlx.core.array
        The operand (evaluated first: the view reads its finished values).

    Returns
    -------
    numpy.ndarray
        A read-only view of ``array``'s buffer, of its shape; or a copy (see above).
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
    canonical = np.dtype(view.dtype.str)  # (MLX's "q" is NumPy's int64 "l": see below)
    if canonical.char != view.dtype.char:
        # (C code that switches on NumPy's type number takes long long for another type)
        view = view.view(canonical)
    view.flags.writeable = False
    return view


#: Host functions that write into an operand (``array_api_compat.numpy.clip`` into
#: its array bounds): they compute on copies of the Metal operands, not on views.
_WRITES_ITS_OPERANDS: Final = frozenset({"clip"})


def _to_host(backend: MLXBackend, value: Any, views: bool = True) -> Any:
    """Return ``value`` with its MLX arrays on the host: read-only views, or copies."""
    mx = backend.mx
    if isinstance(value, mx.array):
        return host_operand(backend, value) if views else backend.to_numpy(value)
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
            # (a dtype MLX cannot hold on its device: kept in host memory, no narrowing;
            # a fresh result that owns its buffer is kept as it is, where a view, of an
            # operand's host view for one, is copied)
            flags = array.flags
            if array.base is None and flags.c_contiguous and flags.writeable:
                return array
            return np.array(array, order="C", copy=True)
        return backend.asarray(array, dtype)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_device(backend, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(backend, v) for v in value)
    return value


class Namespace:
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
    _device_now, device_name = mlx_device()
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
    device, _name = mlx_device()
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
                found = on_host.get((name, dtype, DeviceChoice.name))
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
        # (the host device's namespace: NumPy with the same corrections, e.g. complex
        # expm1's and tanh's special cases, for the dtypes Metal holds on the host)
        namespace: Any = NUMPY_NAMESPACE if sub is None else getattr(NUMPY_NAMESPACE, sub)
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
            OPERATION.reads.clear()  # (computed from host values: no device read)
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
        device, device_name = DeviceChoice.device, DeviceChoice.name  # (backend.stream(), inlined)
        if device is None or environ_get(DEVICE_ENV, "") != DeviceChoice.key:
            device, device_name = mlx_device()
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
                return Result(complete(out, device, device_name))
        except needs_host:
            return host(*args, **kwargs)
        except BaseException:
            OPERATION.reads.clear()  # (failed: nothing launched reads them)
            raise
        OPERATION.reads.clear()  # (nothing scheduled reads them)
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
KEEPS_ITS_DTYPE: Final = frozenset(
    d for d in _dtypes.DTYPES.values() if _dtypes.isdtype(d, ("real floating", "complex floating"))
)

_BOOL: Final = _dtypes.bool_
_UINT64: Final = _dtypes.DTYPES["uint64"]

#: How many views of one carrier the main thread's direct calls keep (Metal._views);
#: past it they start over.
VIEWS_KEPT: Final = 8

#: The second operand of a one-operand direct call (a marker: None is a value).
_ABSENT: Final = object()


def fresh(x: Any, token: Any, adopted: Adopted) -> None:
    """Record a direct call's read of fresh result ``x``, made without its carrier.

    Only the main thread reads a fresh result without making its carrier, so the
    token keeps one read, the latest: ``token[6][0]``, which the carrier made from it
    records at its first host access (``Metal.adopt_array``). The read is kept there
    first, then ``x`` is looked at: if its carrier was made meanwhile (on another
    thread), the read is recorded on the carrier as well. One of the two always sees
    the other, so a host write ordered after this call waits for it.
    """
    scheduled = adopted[3][1]
    token[6][0] = scheduled
    if x._native is not token:
        record_reads(x._carrier, None, scheduled)


def direct_call(backend: MLXBackend, name: str) -> Callable[..., Adopted | None] | None:
    """Build :meth:`MLXBackend.direct` for ``name`` (see there)."""
    entry = backend.shims.MAIN.get(name)
    if entry is None:
        return None  # delegated to NumPy: the general path
    mx = backend.mx
    impl = _implementation(backend, entry, name)
    # An ``mlx.core`` function itself (every one takes ``stream=``) is given the device
    # as an argument: no stream context around a call on whole operands.
    takes_stream = impl is getattr(mx, entry, None) if isinstance(entry, str) else False
    array_type, stream, complete = mx.array, mx.stream, backend.complete
    logical, logical_view = backend.logical_now, backend.logical_view
    needs_host = backend.shims.NeedsHost
    forked = FORKED_AFTER_MLX  # (one flag: a direct call never reaches stream())
    # The thread that reads fresh results without their carrier (fresh()); none on a
    # free-threaded interpreter, whose ordering of the token's record and the look at
    # the Array on two threads the argument there, made under the GIL, does not cover.
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    main_thread = MAIN_THREAD if gil else None

    def readable(x: Any) -> Any:
        # The token of a fresh, non-empty Metal result this thread reads without its
        # carrier, else None (the carrier path then).
        native = x._native
        if (
            native is not None
            and len(native) == 7
            and native[5] is Metal
            and native[0] is not None
            and x._layout._size
            and get_ident() == main_thread
        ):
            return native
        return None

    np_dtype = np.dtype

    def viewed(x: Any, owner: Metal, storage: Any) -> Any:
        # The operand of Array ``x``, a view of ``storage`` (its carrier ``owner``'s
        # stored array): the MLX view this (main) thread built before (Metal._views),
        # else ``(x, storage, owner)``, which run's stream context makes the view of
        # (view_of). The entry holds its layout (so no other layout has its id) and
        # the storage it views: one built from an array a racing move replaced is not
        # used.
        views = owner._views
        if views is not None and get_ident() == main_thread:
            entry = views.get((id(x._layout), x._offset))
            if entry is not None and entry[1] is storage:
                return entry[2]
        return (x, storage, owner)

    def view_of(x: Any, storage: Any, owner: Metal) -> Any:
        # Build the view of ``x`` (in run's stream context); keep a 1-D strided one, a
        # slice sharing the buffer (a stride of 0 may make a contiguous copy of the
        # storage, a snapshot), for the main thread's next call (Metal._views).
        view = logical_view(x, storage)
        layout = x._layout
        if len(layout._shape) == 1 and layout._strides[0] and get_ident() == main_thread:
            views = owner._views
            if views is None:
                owner._views = views = {}
            elif len(views) >= VIEWS_KEPT:
                views.clear()
            views[(id(layout), x._offset)] = (layout, storage, view)
        return view

    def run(
        operands: tuple[Any, ...],
        kwargs: dict[str, Any],
        mx_device: Any,
        device_name: str,
        carrier: Metal | None,
        other: Metal | None,
        shape: tuple[int, ...] | None = None,
        views: bool = False,
    ) -> Adopted | None:
        if forked[0]:
            require_alive("run MLX work")
        if kwargs:
            for value in kwargs.values():  # (a loop: no generator before every launch)
                if isinstance(value, np_dtype):
                    return None  # (a host-held dtype asked for: the general path computes it)
        try:
            if views:
                with stream(mx_device):
                    # (an operand's view, built in the one stream context of the call;
                    # one or two operands, unrolled: no generator before every launch)
                    a1 = operands[0]
                    if type(a1) is tuple:
                        a1 = view_of(*a1)
                    if len(operands) == 1:
                        operands = (a1,)
                    else:
                        a2 = operands[1]
                        operands = (a1, view_of(*a2) if type(a2) is tuple else a2)
                    out = impl(*operands, **kwargs)
            elif takes_stream:
                out = impl(*operands, stream=mx_device, **kwargs)
            else:
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
        adopted: Adopted = complete(out, mx_device, device_name, carrier, other, shape, True)
        return adopted

    def call(x1: Any, x2: Any = _ABSENT, /, **kwargs: Any) -> Adopted | None:
        # (one or two operands, unrolled: this runs before every launch)
        carrier: Any = None  # the first Metal operand's carrier (None: a fresh result's)
        other: Any = None  # the second one's
        token1: Any = None  # a fresh result's token (no carrier made yet), per operand
        token2: Any = None
        mx_device: Any = None
        device_name: Any = None
        if type(x1) in _PLAIN:
            if type(x1) is int and x2 is not _ABSENT:
                dtype = getattr(x2, "_dtype", None)
                if dtype is _BOOL or (x1 < 0 and dtype is _UINT64):
                    # (bool and an int: the general path computes in int64; MLX takes
                    # a negative int to uint64 modulo 2**64)
                    return None
            first, a1 = None, x1
        else:
            # (``readable`` called only where a token may be there: an Array with a
            # carrier and no cached form, the common operand, makes no call)
            native = None if x1._native is None else readable(x1)
            if native is not None:
                # A fresh result, read without making its carrier: see fresh().
                token1, a1, mx_device, device_name = native, native[0], native[3], native[4]
            else:
                carrier = x1._carrier
                if type(carrier) is not Metal:
                    return None  # an Evictable, another kind: the general path
                # (the carrier's slots, not its internal-API properties: this runs
                # before every launch)
                storage = carrier._mx_array
                if storage is None or not x1._layout._size:
                    return None  # released (the general path raises); empty (touches_empty)
                mx_device, device_name = carrier._device, carrier._device_name
                a1 = logical(x1, storage)
                if a1 is None:
                    a1 = viewed(x1, carrier, storage)
            first = x1
        if x2 is _ABSENT:
            if first is None:
                return None
            adopted = run(
                (a1,), kwargs, mx_device, device_name, carrier, None, None, type(a1) is tuple
            )
            if token1 is not None and adopted is not None:
                fresh(x1, token1, adopted)
            return adopted
        if type(x2) in _PLAIN:
            if first is None or (
                type(x2) is int and (x1._dtype is _BOOL or (x2 < 0 and x1._dtype is _UINT64))
            ):
                return None  # (bool and an int, a negative int and uint64: as above)
            a2 = x2
        else:
            if first is not None and x2._device is not first._device:
                return None  # (the general path raises the devices' ValueError)
            native = None if x2._native is None else readable(x2)
            if native is not None:
                token2, a2 = native, native[0]
                if first is None:
                    mx_device, device_name = native[3], native[4]
            else:
                other = owner = x2._carrier
                if type(other) is not Metal:
                    return None
                storage = other._mx_array
                if storage is None or not x2._layout._size:
                    return None
                if first is None:
                    carrier, other = other, None
                    mx_device, device_name = carrier._device, carrier._device_name
                elif carrier is None:
                    carrier, other = other, None  # (the first operand is a fresh result)
                a2 = logical(x2, storage)
                if a2 is None:
                    a2 = viewed(x2, owner, storage)
        adopted = run(
            (a1, a2),
            kwargs,
            mx_device,
            device_name,
            carrier,
            other,
            None,
            type(a1) is tuple or type(a2) is tuple,
        )
        if adopted is not None:
            if token1 is not None:
                fresh(x1, token1, adopted)
            if token2 is not None:
                fresh(x2, token2, adopted)
        return adopted

    if name not in _REDUCTIONS:
        call.__name__ = name
        return call

    def reduction(
        x: Any, /, *, axis: Any = None, keepdims: bool = False, **kwargs: Any
    ) -> Adopted | None:
        # A 1-D operand reduced whole: MLX's keepdims form of the 0-d result, shape
        # (1,), is its storage form itself (no reshape in the graph, less Python).
        layout: Any = x._layout
        if axis is not None or keepdims or len(layout._shape) != 1 or type(x) in _PLAIN:
            return call(x, axis=axis, keepdims=keepdims, **kwargs)
        native = None if x._native is None else readable(x)
        if native is not None:
            kwargs.update(axis=None, keepdims=True)
            adopted = run((native[0],), kwargs, native[3], native[4], None, None, ())
            if adopted is not None:
                fresh(x, native, adopted)
            return adopted
        carrier: Any = x._carrier
        if type(carrier) is not Metal:
            return call(x, axis=axis, keepdims=keepdims, **kwargs)
        storage = carrier._mx_array  # (its slots, as in call)
        if storage is None or not layout._size:
            return None  # released (the general path raises); empty (touches_empty)
        kwargs.update(axis=None, keepdims=True)
        mx_device, device_name = carrier._device, carrier._device_name
        operand = logical(x, storage)
        if operand is None:
            operand = viewed(x, carrier, storage)
        views = type(operand) is tuple
        return run((operand,), kwargs, mx_device, device_name, carrier, None, (), views)

    reduction.__name__ = name
    return reduction
