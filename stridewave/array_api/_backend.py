"""The backend protocol: how a device of :mod:`stridewave.array_api` computes.

A backend is the one object through which the namespace reaches a device's compute
library. The layers above it (the array object, the functions, indexing) ask it,
never which device they run on; it reaches the carriers below it. A backend never
imports the array object (an import-linter contract keeps it so): it hands results
back as :data:`Adopted` geometry, which the array module turns into an ``Array``.

Two backends implement the protocol: :mod:`~stridewave.array_api._host` (NumPy
through ``array_api_compat``; the CPU, FileBacked and Generic devices) and
:mod:`~stridewave.array_api._mlx_backend` (``mlx.core``; the Metal device).
docs/architecture.md says how a third one plugs in.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

import ml_dtypes
import numpy as np

from stridewave.array_api import _messages
from stridewave.layout import Layout

if TYPE_CHECKING:
    import numpy.typing as npt

    from stridewave.carriers import Carrier
    from stridewave.dtypes import DType
    from stridewave.tensor import Tensor

__all__ = [
    "CONTIGUOUS_LAYOUTS",
    "ERRSTATE",
    "QUIET",
    "UNSET_ERRSTATE",
    "Adopted",
    "Backend",
    "QuietNamespace",
    "check_bounds",
    "contiguous_layout",
    "quiet",
    "quiet_astype",
    "strided_layout",
    "through_float32",
]

#: A backend result as the array object takes it: ``(carrier, layout, offset, native)``,
#: where ``native`` is the backend's own cached form of the values (or ``None``): an
#: opaque token only that backend's :meth:`Backend.read` interprets. ``carrier`` is
#: ``None`` for a fresh result whose carrier the backend makes when first asked for
#: (:meth:`Backend.materialize`); its token then names the dtype at index 2.
Adopted = tuple["Carrier | None", Layout, int, Any]


class Backend(Protocol):
    """What a device computes with: a namespace, and the bridge to its carriers.

    Attributes
    ----------
    name : str
        The compute library (``"numpy"``, ``"mlx"``).
    ns : object
        The array API namespace it computes with: functions of the standard's names
        over native arrays (``array_api_compat.numpy``; the MLX shims).
    host_addressable : bool
        Whether a NumPy array can share the device's memory (``asarray(copy=False)``,
        ``__array__`` views, ``from_dlpack(copy=False)``).
    has_direct : bool
        Whether :meth:`direct` offers fast calls (the dispatch skips the look-up
        otherwise).

    Notes
    -----
    Implements the array API's delegation of compute (CONTRACT section 9): every
    device-specific decision of the namespace is one of these methods.
    """

    name: str
    ns: Any
    host_addressable: bool
    has_direct: bool

    def describe(self) -> str:
        """Return the device in words (``Device.describe``)."""
        ...

    def dtypes(self) -> Mapping[DType, Any]:
        """Return the dtypes this device stores, each with its native dtype."""
        ...

    def default_dtypes(self) -> Mapping[str, DType]:
        """Return the default dtypes (``"real floating"``, ``"integral"``, ``"indexing"``)."""
        ...

    def native_dtype(self, dtype: DType) -> Any:
        """Return the native dtype of a namespace dtype."""
        ...

    def accumulator(self, dtype: DType, requested: DType | None) -> Any:
        """Return the ``dtype`` argument of ``sum``/``prod``/cumulative ones (None: native)."""
        ...

    def read(self, tensor: Tensor) -> Any:
        """Return the Tensor's values as a native array (no copy where the device allows)."""
        ...

    def export(self, tensor: Tensor) -> npt.NDArray[Any]:
        """Return the Tensor's values as NumPy for a host export (launches nothing)."""
        ...

    def export_writable(self, tensor: Tensor) -> npt.NDArray[Any] | None:
        """Return a writable zero-copy NumPy view of a writable Tensor (one version step).

        None where the storage cannot be viewed from the host writably, or the
        carrier refuses writes: the caller then exports read-only (:meth:`export`).
        """
        ...

    def is_native(self, value: object) -> bool:
        """Return whether ``value`` is a native result (adopted by :meth:`adopt`)."""
        ...

    def adopt(self, result: Any, sources: tuple[Tensor, ...]) -> Adopted:
        """Adopt a native result as a carrier of this device (a view of a source's if it is one)."""
        ...

    def materialize(self, native: Any) -> tuple[Carrier, Any]:
        """Make the carrier of a fresh result from its token; return it and the new token."""
        ...

    def update_in_place(self, name: str, target: Tensor, operand: object) -> bool:
        """Compute ``target = name(target, operand)`` into its storage, or return False.

        True when done (one write, one version step); False where the backend does
        not take the call (the caller computes a result and scatters it).
        """
        ...

    def write_element(self, target: Tensor, offset: int, source: Any) -> bool:
        """Write a 0-d native ``source`` into storage slot ``offset``, or return False.

        True when done (the carrier's element write: its checks, one version step);
        False where the backend does not take the call (the caller scatters it).
        """
        ...

    def direct(self, name: str) -> Callable[..., Adopted | None] | None:
        """Return a fast call of ``name`` on this device's Arrays, or None if there is none."""
        ...

    def asarray(self, values: npt.NDArray[Any], dtype: DType | None) -> Any:
        """Return NumPy ``values`` as a native array of ``dtype`` on the device."""
        ...

    def share(self, values: npt.NDArray[Any]) -> Adopted:
        """Adopt NumPy ``values`` without a copy (``asarray(copy=False)``); ValueError if impossible."""
        ...

    def cast(self, array: Any, dtype: DType) -> Any:
        """Return a new native array of ``array`` cast to ``dtype``."""
        ...

    def astype(self, array: Any, dtype: DType) -> Any:
        """Return ``array`` as ``dtype`` (itself when it already is)."""
        ...

    def scalar(self, value: object, dtype: DType) -> Any:
        """Return a 0-d native array of ``dtype`` holding ``value``."""
        ...

    def broadcast_to(self, array: Any, shape: tuple[int, ...]) -> Any:
        """Broadcast ``array`` to ``shape`` (ValueError if it cannot)."""
        ...

    def getitem(self, array: Any, key: tuple[Any, ...]) -> Any:
        """Return the native result of advanced indexing ``array[key]``."""
        ...

    def set_advanced(self, array: Any, key: tuple[Any, ...], values: Any) -> Any:
        """Return a copy of ``array`` with ``values`` written at the advanced ``key``."""
        ...

    def write_source(self, values: Any, shape: tuple[int, ...], dtype: DType) -> Carrier:
        """Return a carrier of ``values`` broadcast to ``shape``, the source of a scatter."""
        ...

    def dlpack(self, tensor: Tensor, consumer: str, **kwargs: Any) -> Any:
        """Return the DLPack capsule of the Tensor's values (``__dlpack__``)."""
        ...

    def dlpack_device(self, tensor: Tensor) -> tuple[int, int]:
        """Return the DLPack device of the Tensor's values."""
        ...


# -- geometry every backend shares ------------------------------------------------------


#: The row-major Layout of each shape seen (layouts are immutable), read directly by
#: the per-call paths; bounded, as a loop over ever new shapes must not grow it.
CONTIGUOUS_LAYOUTS: Final[dict[tuple[int, ...], Layout]] = {}
_CONTIGUOUS_LIMIT: Final = 4096


def contiguous_layout(shape: tuple[int, ...]) -> Layout:
    """Return the row-major Layout of ``shape`` (cached: layouts are immutable).

    Parameters
    ----------
    shape : tuple of int
        The extents, in elements.

    Returns
    -------
    Layout
        ``Layout(shape)``, the same object for the same shape while the cache has room.

    Raises
    ------
    ValueError
        If ``shape`` is not a valid shape (Layout's own check).
    """
    found = CONTIGUOUS_LAYOUTS.get(shape)
    if found is None:
        found = Layout(shape)
        if len(CONTIGUOUS_LAYOUTS) < _CONTIGUOUS_LIMIT:
            CONTIGUOUS_LAYOUTS[shape] = found
    return found


@functools.lru_cache(maxsize=1024)
def strided_layout(shape: tuple[int, ...], strides: tuple[int, ...]) -> Layout:
    """Return ``Layout(shape, strides)`` (cached: a loop slicing alike validates once)."""
    return Layout(shape, strides)


def check_bounds(tensor: Tensor, size: int) -> None:
    """Raise IndexError when the Tensor's slots do not all lie in a carrier of ``size`` slots.

    Parameters
    ----------
    tensor : Tensor
        A single-subtensor Tensor (its layout and offset are read).
    size : int
        The number of slots of its carrier's storage now.

    Raises
    ------
    IndexError
        If the carrier shrank after the view was made.
    """
    layout = tensor._layout
    assert layout is not None
    offset = tensor._offset
    # (Layout's slots, read directly on this per-operation path)
    if layout._size and (offset + layout._min_index < 0 or offset + layout._max_index >= size):
        raise IndexError(_messages.outside_carrier(tensor, size))


#: The layout of an empty scatter target (``Carrier.scatter``'s unused argument).
EMPTY_LAYOUT: Final = Layout((0,))


# -- floating-point warnings -----------------------------------------------------------

#: NumPy's floating-point error state (what ``numpy.errstate`` and ``numpy.seterr``
#: set): a context variable, private to NumPy, so looked up with a fallback.
_ERRSTATE: Final[contextvars.ContextVar[Any] | None] = getattr(
    importlib.import_module("numpy._core.umath"), "_extobj_contextvar", None
)


def _ignoring_state() -> Any:
    with np.errstate(all="ignore"):
        return _ERRSTATE.get() if _ERRSTATE is not None else None


#: The state NumPy starts with (nothing set), and that state with every floating-point
#: exception ignored; each read in a fresh context, whatever the importer had set.
_UNSET: Final = contextvars.Context().run(_ERRSTATE.get) if _ERRSTATE is not None else None
_IGNORING: Final = contextvars.Context().run(_ignoring_state)
_DEFAULT_ERR: Final = contextvars.Context().run(np.geterr)


def quiet(func: Callable[..., Any]) -> Callable[..., Any]:
    """Return ``func`` computing with NumPy's floating-point warnings off.

    The standard defines no floating-point warnings, and its consumers cannot silence
    a namespace's (scikit-learn's ``numpy.errstate`` covers NumPy arrays only): the
    host devices answer ``nan`` and infinities silently, as Metal's MLX does. A state
    the caller set (``numpy.errstate``, ``numpy.seterr``) is NumPy's own choice and is
    kept. The cost is one context-variable step per call, no ``errstate`` object.

    Parameters
    ----------
    func : callable
        A function computing with NumPy.

    Returns
    -------
    callable
        ``func`` under NumPy's "ignore" state where the caller set none.
    """
    state = _ERRSTATE
    if state is None:  # (a NumPy without the context variable: the public, slower way)

        @functools.wraps(func)
        def public(*args: Any, **kwargs: Any) -> Any:
            if np.geterr() != _DEFAULT_ERR:
                return func(*args, **kwargs)
            with np.errstate(all="ignore"):
                return func(*args, **kwargs)

        return public
    get, put, reset, unset, ignoring = state.get, state.set, state.reset, _UNSET, _IGNORING

    @functools.wraps(func)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        if get() is not unset:
            return func(*args, **kwargs)
        token = put(ignoring)
        try:
            return func(*args, **kwargs)
        finally:
            reset(token)

    return quiet


def _quiet_context() -> contextvars.Context:
    context = contextvars.Context()
    if _ERRSTATE is not None:
        context.run(_ERRSTATE.set, _IGNORING)
    return context


#: ``QUIET(ufunc, *operands)`` computes in a context where NumPy ignores floating-point
#: exceptions, for a caller that found ``ERRSTATE.get() is UNSET_ERRSTATE`` (no state
#: of its own): one C call, where setting and resetting NumPy's context variable
#: around the call are two more. The context holds NumPy's state and nothing else, so
#: it serves only functions that read no other context variable (NumPy's ufuncs over
#: numeric arrays). A context is entered by one thread at a time: while another
#: thread computes in it (NumPy releases the GIL in long loops), ``QUIET`` raises
#: ``RuntimeError`` and the caller computes under :func:`quiet` instead. Inside it
#: the state reads as set, so a nested call runs its function directly.
QUIET: Final = _quiet_context().run
#: NumPy's error-state context variable (None on a NumPy without one: use :func:`quiet`)
#: and its value where nothing was set.
ERRSTATE: Final = _ERRSTATE
UNSET_ERRSTATE: Final = _UNSET


class QuietNamespace:
    """A namespace whose functions compute without floating-point warnings (:func:`quiet`).

    Parameters
    ----------
    namespace : module or object
        The namespace whose functions to wrap, each once, on first use.
    """

    def __init__(self, namespace: Any) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._namespace, name)
        if callable(found) and not isinstance(found, type):
            found = quiet(found)
        setattr(self, name, found)
        return found


#: NumPy's half-precision dtypes (float16, ml_dtypes' bfloat16), and their type codes
#: (a code is one attribute read: cheaper than hashing a dtype before every product).
_HALF_NUMPY: Final = frozenset({np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)})
_HALF_CODES: Final = "".join(sorted(d.char for d in _HALF_NUMPY))


def _round_back(out: Any, half: np.dtype[Any]) -> Any:
    """Return ``out`` with its wider real floating arrays rounded to ``half``."""
    if isinstance(out, tuple):
        fields = [_round_back(o, half) for o in out]
        return type(out)(*fields) if hasattr(out, "_fields") else type(out)(fields)
    if isinstance(out, (np.ndarray, np.generic)) and out.dtype.kind == "f":
        return np.asarray(out).astype(half)
    return out


def _astype(array: npt.NDArray[Any], dtype: np.dtype[Any], copy: bool) -> npt.NDArray[Any]:
    """Return ``array.astype(dtype, copy=copy)`` with the namespace's quiet floating-point state.

    NumPy warns "overflow encountered in cast" where a value leaves a narrower dtype's
    range; the standard's cast of such a value is undefined and warns of nothing, so
    every device's casts (the host's, and Metal's of a dtype held in host memory) go
    through this one.

    Parameters
    ----------
    array : numpy.ndarray
        The values, any shape.
    dtype : numpy.dtype
        The dtype to cast to.
    copy : bool
        Whether a cast to ``array``'s own dtype copies (NumPy's ``copy``).

    Returns
    -------
    numpy.ndarray
        The cast values, ``array``'s shape.
    """
    return array.astype(dtype, copy=copy)


#: NumPy's cast with the namespace's quiet floating-point state (``_astype`` wrapped
#: once: no second call layer on the per-call path).
quiet_astype: Final[Callable[[npt.NDArray[Any], np.dtype[Any], bool], npt.NDArray[Any]]] = quiet(
    _astype
)


def through_float32(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``func`` to compute a half-precision call in float32 and round back once.

    Where NumPy has no loop for float16 or bfloat16 (``linalg``'s LAPACK routines) or
    answers in a wider dtype (ml_dtypes' bfloat16 ``matmul`` gives float32, its norms
    float64), the operands of the half dtype are widened to float32 and the real
    floating results rounded to it: the dtype the standard's promotion gives is kept.
    Calls without a half-precision operand run as they are.

    Parameters
    ----------
    func : callable
        A NumPy (``array_api_compat.numpy``) function.

    Returns
    -------
    callable
        ``func`` with the half-precision rule; it raises what ``func`` raises.
    """
    ndarray, codes = np.ndarray, _HALF_CODES

    def call(*args: Any, **kwargs: Any) -> Any:
        # (one look at each operand's dtype: the products run this before every call)
        for a in args:
            if type(a) is ndarray and a.dtype.char in codes and a.dtype in _HALF_NUMPY:
                break
        else:
            return func(*args, **kwargs)
        target = np.result_type(*(a for a in args if isinstance(a, np.ndarray)))
        if target not in _HALF_NUMPY:
            return func(*args, **kwargs)
        widened = [
            a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == target else a
            for a in args
        ]
        return _round_back(func(*widened, **kwargs), target)

    call.__name__ = getattr(func, "__name__", "call")
    call.__doc__ = func.__doc__
    return call
