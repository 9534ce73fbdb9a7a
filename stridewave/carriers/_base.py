"""`Carrier`: the abstract storage boundary, public methods as templates over ``_raw_*`` hooks.

A carrier owns or references one 1-D homogeneous storage sequence of physical slots.
The public methods here implement the specification once; a concrete kind supplies
only the backend hooks below and never re-implements a check.

Backend hooks (override in a subclass)
--------------------------------------
``_raw_size() -> int``
    Number of physical slots of the live backend buffer.
``_raw_get(index: int) -> float | int | bool``
    Read slot ``index`` (already checked to be in range) as a Python scalar.
``_raw_set(index: int, value: float | int | bool) -> None``
    Write an already-normalized Python scalar into slot ``index``.
``_raw_array() -> numpy.ndarray``
    The live 1-D backing array for bulk work (a NumPy view for non-NumPy backends),
    ``(size,)`` in the storage NumPy dtype. Used by ``__array__``, iteration and the
    default ``_raw_scatter``. Never exposed writable to users.
``_raw_scatter(base: int, mapping: Layout, source: ScatterSource) -> None``
    Vectorized write of the source's logical value ``i`` at checked slot
    ``base + mapping.index(i)`` (later logical index wins; read before write).
    ``source.host()`` gives the values normalized, as a NumPy array (read lazily);
    ``source.backend(self)`` gives them as this backend's own array when the source
    lives on it (Metal: a device slice), else ``None``. The default runs
    :func:`stridewave.carriers._scatter.scatter_numpy` on ``_raw_array()`` (strided
    copy, no index array, for injective mappings); Metal writes with one MLX
    assignment. A kind without scatter declares ``ScatterSupport.NONE`` in its
    capability record (FileBacked): ``scatter`` then raises ``NotImplementedError``
    before any validation. ``scatter`` itself is a template no kind overrides.
``_backing() -> Carrier`` and ``_backend_slice(start, stop)``
    Optional: the carrier whose backend holds the values now (Evictable: the current
    tier), and its backend array for slots ``[start, stop)`` (Metal: an MLX slice), so
    that a scatter between carriers of one backend stays on it.
``_raw_load(values: ndarray) -> None``
    Optional (a kind with it declares ``capabilities.secondary = True``, which is
    what lets it be an Evictable secondary): replace the
    whole storage with a copy of ``values`` (normalized, storage NumPy dtype, 1-D;
    the size may change). All or nothing: on failure the old storage is unchanged.
    Views exported earlier stay valid (they keep the old buffer). A move, not a
    mutation: reached through ``_load``, which guards it like ``resize``.
``_raw_release() -> None``
    Let the backend go (unmap, unlink, drop references). Called at most once.
``_raw_new_like(values, *, mutable, dtype) -> Self`` and
``_raw_allocate_like(size, *, mutable, dtype, empty) -> Self``
    Build fresh storage of the same kind; arguments are already validated. They
    must not touch the receiver's storage (the receiver may be released).

Bookkeeping a subclass must do: at the end of ``__init__``, after every validation
and allocation, call ``self._init_carrier(dtype, mutable=...)``; whenever the backend
buffer or its size changes (``FileBacked.resize``, an Evictable residency move),
call ``self._bind_backend()`` so the cached scalar accessors follow (the default caches
``_raw_size()``, ``_raw_get`` and a ``store[i] = v`` adapter over ``_raw_set``; an
ndarray-backed kind caches ``array.item`` and the array itself). Class tables
``_SUPPORTED_STORAGE`` (the spec's structural support row) and
``_CONSTRUCTIBLE_STORAGE`` (what constructors and factories accept) declare dtype
support; ``None`` means "only the dtype currently held", the conservative answer
the spec asks of an ordinary custom carrier. A composite overrides the methods
``_supported_storage_dtypes()``/``_constructible_storage_dtypes()`` instead.

Write paths and the lifecycle: see :mod:`stridewave.carriers._lifecycle`. The scalar paths are
inlined here (one cached flag, one index check, one normalizer call, one backend
call, one version step) in ``_ScalarPath``, the pure-Python reference; where the
optional C accelerator (``_speedups.c``) is built, a C base type does their common
case in front of it and calls it for everything else (docs/architecture.md).
"""

from __future__ import annotations

import abc
import functools
import importlib
import inspect
import os
import sys
import sysconfig
import weakref
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, SupportsIndex

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from stridewave._integers import as_integer
from stridewave.carriers import _messages
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._lifecycle import _Lifecycle
from stridewave.carriers._protocols import _Protocols
from stridewave.carriers._scatter import (
    ScatterSource,
    TensorView,
    check_scatter_arguments,
    check_scatter_destination,
    scatter_numpy,
)
from stridewave.carriers._storage import accepts_storage_dtype, validate_storage_dtype
from stridewave.carriers._storage_dtypes import storage_row
from stridewave.dtypes import DType
from stridewave.interop import export_dtype
from stridewave.layout import Layout

__all__ = ["SCALAR_PATH", "Carrier", "check_flag", "check_pickled", "check_size"]


def _as_index(index: object, where: str) -> int:
    """Return a slot index (``__index__``, not a bool) off the hot path."""
    return as_integer(index, lambda value: _messages.bad_index_type(value, where=where))


class _RawAccess:
    """The ``_raw_get``/``_raw_set`` hooks in the forms the scalar paths call.

    ``store[index]`` and ``store[index] = value``. The carrier is held weakly: a
    carrier caching its own bound methods or an adapter holding it strongly would be
    a reference cycle, so its (possibly large) buffer would wait for the cyclic
    garbage collector instead of going back when the last reference goes.
    """

    __slots__ = ("_ref",)

    def __init__(self, carrier: Carrier) -> None:
        self._ref = weakref.ref(carrier)

    def _carrier(self) -> Carrier:
        carrier = self._ref()
        if carrier is None:  # unreachable through the carrier's own methods
            raise RuntimeError("the carrier behind this accessor no longer exists")
        return carrier

    def __getitem__(self, index: int) -> Any:
        return self._carrier()._raw_get(index)

    def __setitem__(self, index: int, value: Any) -> None:
        self._carrier()._raw_set(index, value)


class _ReleasedSlots:
    """Scalar accessors of a released carrier: every read or write raises RuntimeError.

    Bound by ``_unbind_backend`` so that a thread racing ``release()`` (it passed the
    released check just before) fails cleanly instead of reaching the backend.
    """

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def _refuse(self) -> NoReturn:
        raise RuntimeError(_messages.released(_Named(self._text), "access a slot"))

    def __getitem__(self, index: int) -> NoReturn:
        self._refuse()

    def __setitem__(self, index: int, value: Any) -> NoReturn:
        self._refuse()


class _Named:
    """An object whose repr is a fixed text (for messages about a released carrier)."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


def _unpickle_error(what: str, given: object, expected: str) -> ValueError:
    return ValueError(
        f"cannot unpickle a stridewave carrier: its {what} is {given!r}, expected "
        f"{expected}. The pickle was not made by this version of stridewave, or was "
        f"altered; nothing was built."
    )


def check_pickled(
    kind: object, values: object, dtype: object, mutable: object, *, composite: bool = False
) -> None:
    """Validate the parts of a pickled carrier before anything is built (CONTRACT 7).

    Parameters
    ----------
    kind : object
        Must be a concrete :class:`Carrier` subclass (``composite=True`` admits the
        kinds whose recipe is their own, like Evictable).
    values : object
        Must be a plain 1-D ``numpy.ndarray`` in the storage NumPy dtype of ``dtype``.
    dtype : object
        Must be a :class:`DType` the kind can construct.
    mutable : object
        Must be exactly ``True`` or ``False``.

    Raises
    ------
    ValueError
        On the first part that does not hold, naming it.
    """
    if not (isinstance(kind, type) and issubclass(kind, Carrier)) or inspect.isabstract(kind):
        raise _unpickle_error("kind", kind, "a concrete stridewave Carrier class")
    if not composite and kind.__reduce_ex__ is not Carrier.__reduce_ex__:
        raise _unpickle_error("kind", kind, "a kind pickled by value")
    if type(mutable) is not bool:
        raise _unpickle_error("mutability", mutable, "True or False")
    table = kind._CONSTRUCTIBLE_STORAGE
    if not isinstance(dtype, DType) or (table is not None and not any(dtype is d for d in table)):
        accepted = "a DType" if table is None else " or ".join(repr(d) for d in table)
        raise _unpickle_error(f"dtype for {kind.__name__}", dtype, accepted)
    try:
        wanted = storage_row(dtype).numpy
    except (TypeError, ValueError):
        raise _unpickle_error("dtype", dtype, "a storage dtype") from None
    if (
        type(values) is not np.ndarray
        or values.ndim != 1
        or values.dtype.newbyteorder("=") != wanted.newbyteorder("=")
    ):
        shape = getattr(values, "shape", None)
        got = f"{type(values).__name__} of shape {shape} and dtype {getattr(values, 'dtype', None)}"
        raise _unpickle_error("values", got, f"a 1-D numpy.ndarray of {wanted}")


def _rebuild_carrier(
    kind: type[Carrier], values: npt.NDArray[Any], dtype: DType, mutable: bool
) -> Carrier:
    """Unpickle a carrier: fresh storage of ``kind`` holding ``values`` (see __reduce_ex__).

    Everything is validated first (:func:`check_pickled`): ``ValueError`` otherwise.
    """
    check_pickled(kind, values, dtype, mutable)
    prototype = kind._unpickling_prototype()
    return prototype._raw_new_like(values, mutable=mutable, dtype=dtype)


def check_size(size: object, *, where: str) -> int:
    """Return ``size`` as a non-negative ``int`` slot count.

    Parameters
    ----------
    size : int-like
        A slot count supporting the integer-index protocol.
    where : str
        Caller name for diagnostics.

    Returns
    -------
    int
        The slot count.

    Raises
    ------
    TypeError
        If ``size`` has no ``__index__`` (a float, a string, None) or is a bool.
    ValueError
        If ``size`` is negative.
    """
    n = as_integer(size, lambda value: _messages.bad_size_type(value, where=where))
    if n < 0:
        raise ValueError(_messages.negative_size(n, where=where))
    return n


def check_flag(name: str, value: object, *, where: str) -> bool:
    """Return ``value`` if it is a ``bool`` (or ``numpy.bool_``), else raise ``TypeError``.

    Parameters
    ----------
    name : str
        Keyword name, e.g. ``"mutable"``.
    value : object
        The given value.
    where : str
        Caller name for diagnostics.

    Returns
    -------
    bool
        ``value`` as a Python bool.

    Raises
    ------
    TypeError
        If ``value`` is not a bool.
    """
    if value is True or value is False:
        return value
    if type(value) is np.bool_:
        return bool(value)
    raise TypeError(_messages.bad_flag(name, value, where=where))


# -- the scalar paths: pure Python (the reference), optionally the C accelerator in front --


def _load_speedups() -> tuple[ModuleType | None, str]:
    """Import the optional C accelerator (scalar paths, a CPU call); say which path is active.

    The accelerator (``stridewave/carriers/_speedups.c``, limited API 3.11, abi3) is
    left out on Python 3.10, on free-threaded builds, when it was not built (no
    compiler at install time), and when ``STRIDEWAVE_NO_SPEEDUPS`` is set to a value
    other than ``0`` at import.
    """
    if os.environ.get("STRIDEWAVE_NO_SPEEDUPS", "") not in ("", "0"):
        return None, "pure Python (STRIDEWAVE_NO_SPEEDUPS is set)"
    if sys.implementation.name != "cpython" or sys.hexversion < 0x030B0000:
        return None, "pure Python (the C accelerator needs CPython 3.11 or later)"
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None, "pure Python (a free-threaded build loads no abi3 extension)"
    try:  # by name: a compiled module, which the import contracts cannot read
        speedups = importlib.import_module("stridewave.carriers._speedups")
    except ImportError:
        return None, "pure Python (the C accelerator was not built: no compiler at install?)"
    return speedups, f"C accelerator ({os.path.basename(speedups.__file__ or '_speedups')})"


#: Which scalar path runs ``get_value``/``set_value``/``carrier[i]`` here, in words
#: (``python -m stridewave info`` prints it).
SCALAR_PATH: str
_speedups, SCALAR_PATH = _load_speedups()


class _ScalarPath(_Lifecycle):
    """The scalar paths of :class:`Carrier` in pure Python: the reference implementation.

    With the C accelerator (``_speedups``) a C base type stands in front of these four
    methods and does their common case itself (an exact ``int`` index in range of a
    cached native buffer, and for a write an open gate and a value of exactly
    ``_fast_type`` within its bounds); every other call runs the method here, which is
    also where the C methods take their docstrings from. The slow paths
    (``_get_slow``/``_set_slow``) are Python in both cases.
    """

    _slots: int
    _slot_store: Any  # ``store[index]`` reads, ``store[index] = value`` writes
    _norm: Callable[[object], Any]
    _fast_type: type | None
    _fast_low: Any
    _fast_high: Any

    def get_value(self, index: object) -> Any:
        """Return the value at physical slot ``index`` as a Python scalar.

        Parameters
        ----------
        index : int-like
            Physical slot, ``0 <= index < size()``; any object with ``__index__``.

        Returns
        -------
        float, int or bool
            ``float`` for Float32 (binary32-exact), ``int`` for Int32, ``bool`` for Bool.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        TypeError
            If ``index`` does not support the integer-index protocol.
        IndexError
            If ``index`` is negative or at least ``size()``.
        """
        if self._released:
            raise RuntimeError(_messages.released(self, "get_value"))
        i = index if type(index) is int else _as_index(index, "get_value")
        if i < 0 or i >= self._slots:
            return self._get_slow(i, "get_value")
        try:
            return self._slot_store[i]
        except (IndexError, RuntimeError):  # a move or shrink raced this read: redo it
            return self._get_slow(i, "get_value")

    def set_value(self, index: object, value: object) -> None:
        """Write one slot, normalizing ``value`` for the dtype; advance ``version`` once.

        Parameters
        ----------
        index : int-like
            Physical slot, ``0 <= index < size()``.
        value : object
            New value; must satisfy the dtype's normalization row (see
            :mod:`stridewave.carriers._normalize`).

        Raises
        ------
        RuntimeError
            If the carrier is released, intrinsically immutable, or owned by another
            carrier outside the owner's access scope.
        TypeError
            If ``index`` has no ``__index__``, or the dtype refuses ``value``'s type.
        IndexError
            If ``index`` is out of range.
        OverflowError
            If ``value`` is outside the dtype's range.

        Notes
        -----
        Checks run in that order, all before the slot is touched: a failed call
        leaves the value and ``version`` unchanged.
        """
        gate = self._gate
        if gate is None:  # closed: immutable, owned, released, moving... (slow, locked)
            self._set_slow(index, value, "set_value")
            return
        i = index if type(index) is int else _as_index(index, "set_value")
        if i < 0 or i >= self._slots:
            self._set_slow(i, value, "set_value")
            return
        if type(value) is self._fast_type and self._fast_low <= value <= self._fast_high:
            stored = value  # the common exact-type, in-range case
        else:
            stored = self._norm(value)
        try:
            self._slot_store[i] = stored
        except (IndexError, RuntimeError):  # a move or shrink raced this write: redo it
            self._set_slow(i, value, "set_value")
            return
        if self._gate is not gate:  # a move overlapped: write again where it left things
            self._set_slow(i, value, "set_value")
            return
        self._version += 1

    def __getitem__(self, index: object) -> Any:
        """Return ``get_value(index)``; slices are refused (use ``numpy.asarray``).

        Parameters
        ----------
        index : int-like
            Physical slot, ``0 <= index < size()``; any object with ``__index__``.

        Returns
        -------
        float, int or bool
            The slot's value as a Python scalar, as :meth:`get_value` returns it.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        TypeError
            If ``index`` does not support the integer-index protocol (a slice, say).
        IndexError
            If ``index`` is negative or at least ``size()``.
        """
        if self._released:
            raise RuntimeError(_messages.released(self, "read carrier[index]"))
        i = index if type(index) is int else _as_index(index, "carrier[index]")
        if i < 0 or i >= self._slots:
            return self._get_slow(i, "carrier[index]")
        try:
            return self._slot_store[i]
        except (IndexError, RuntimeError):  # a move or shrink raced this read: redo it
            return self._get_slow(i, "carrier[index]")

    # __getitem__/__setitem__ repeat the bodies of get_value/set_value on purpose: a
    # delegating call would add a Python call (~40 ns, about the whole budget) to the
    # scalar hot path, and the messages name the spelling the caller used.

    def __setitem__(self, index: object, value: object) -> None:
        """Do ``set_value(index, value)``: same checks, same single version step.

        Parameters
        ----------
        index : int-like
            Physical slot, ``0 <= index < size()``; any object with ``__index__``.
        value : object
            The value to store, normalized for the dtype as by :meth:`set_value`.

        Raises
        ------
        RuntimeError
            If the carrier is released, intrinsically immutable, or owned by another
            carrier outside the owner's access scope.
        TypeError
            If ``index`` has no ``__index__``, or the dtype refuses ``value``'s type.
        IndexError
            If ``index`` is out of range.
        OverflowError
            If ``value`` is outside the dtype's range.
        """
        gate = self._gate
        if gate is None:  # closed: immutable, owned, released, moving... (slow, locked)
            self._set_slow(index, value, "write carrier[index]")
            return
        i = index if type(index) is int else _as_index(index, "carrier[index]")
        if i < 0 or i >= self._slots:
            self._set_slow(i, value, "write carrier[index]")
            return
        if type(value) is self._fast_type and self._fast_low <= value <= self._fast_high:
            stored = value  # the common exact-type, in-range case
        else:
            stored = self._norm(value)
        try:
            self._slot_store[i] = stored
        except (IndexError, RuntimeError):  # a move or shrink raced this write: redo it
            self._set_slow(i, value, "write carrier[index]")
            return
        if self._gate is not gate:  # a move overlapped: write again where it left things
            self._set_slow(i, value, "write carrier[index]")
            return
        self._version += 1

    def _get_slow(self, i: int, where: str) -> Any:
        """Read slot ``i`` under the lock: the path for anything but a plain in-range read."""
        with self._locked():
            if self._released:
                raise RuntimeError(_messages.released(self, where))
            if i < 0 or i >= self._slots:
                raise IndexError(
                    _messages.index_out_of_range(i, self._slots, where=where, carrier=self)
                )
            return self._slot_store[i]

    def _set_slow(self, index: object, value: object, where: str) -> None:
        """Write one slot under the lock (closed gate, bounds failure, or an overlapped move).

        Same checks in the same order as the fast path (writability, index type,
        bounds, normalization), then ``_before_mutation`` (adopt inherited storage,
        page in), the write and one version step.
        """
        with self._locked():
            self._require_admitted(where)
            i = index if type(index) is int else _as_index(index, where)
            if i < 0 or i >= self._slots:
                raise IndexError(
                    _messages.index_out_of_range(i, self._slots, where=where, carrier=self)
                )
            normalized = self._norm(value)
            self._before_mutation(where)
            self._slot_store[i] = normalized
            self._version += 1


if TYPE_CHECKING or _speedups is None:
    _ScalarBase = _ScalarPath
else:
    _Core = _speedups.scalar_base(
        _ScalarPath.get_value,
        _ScalarPath.set_value,
        _ScalarPath.__getitem__,
        _ScalarPath.__setitem__,
    )

    class _ScalarBase(_ScalarPath, _Core):
        """The scalar paths with the C accelerator in front (see :class:`_ScalarPath`)."""

        get_value = vars(_Core)["get_value"]
        set_value = vars(_Core)["set_value"]
        __getitem__ = vars(_Core)["__getitem__"]
        __setitem__ = vars(_Core)["__setitem__"]


def _telling_owner(bind: Callable[[Any], None]) -> Callable[[Any], None]:
    """Wrap a kind's ``_bind_backend`` so that it ends with ``_tell_owner()``."""

    @functools.wraps(bind)
    def _bind_backend(self: Carrier) -> None:
        bind(self)
        self._tell_owner()

    _bind_backend._tells_owner = True  # type: ignore[attr-defined]
    return _bind_backend


class Carrier(_Protocols, _ScalarBase, abc.ABC):
    """One-dimensional homogeneous physical storage with a lifecycle.

    A carrier is the dtype-support, lifecycle, mutation/version and dispatch boundary
    for one storage sequence of ``size()`` slots, all of ``dtype()``. It is abstract:
    use :class:`~stridewave.Generic`, :class:`~stridewave.CPU` or
    :class:`~stridewave.FileBacked` (and, with their issues, Metal and Evictable).

    Lifecycle: *live* (reads work; writes work while ``is_mutable()``), *owned* (a
    composite claimed it: outside writes, moves and release refuse), *released*
    (terminal: storage gone; ``dtype()``, ``supports_storage_dtype()``, ``new_like()``
    and ``allocate_like()`` still work, ``size()`` reports 0). ``version`` counts
    successful value mutations.

    NumPy interop: ``numpy.asarray(carrier)`` is a read-only zero-copy view (on a
    read-only buffer, so its ``writeable`` flag cannot be turned back on);
    ``numpy.array(carrier)`` or ``copy=True`` gives a writable copy.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = None
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = None

    #: What the kind can do (see :mod:`stridewave.carriers._capabilities`), declared
    #: by every kind; the default is an ordinary host carrier that cannot be an
    #: Evictable secondary (it has no ``_raw_load``).
    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.HOST, secondary=False, exports_views=True, host_addressable=True
    )

    _dtype: DType

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Make every kind's ``_bind_backend`` tell the owning composite afterwards.

        A composite (Evictable) caches its primary tier's scalar accessor for its own
        fast path; a tier re-binds on its own (a Metal host view dropped when the
        array API records a device read, a FileBacked copied after fork), so each
        ``_bind_backend`` a kind defines ends with ``_tell_owner()``, whatever the
        kind, and the composite never writes through a stale accessor.
        """
        super().__init_subclass__(**kwargs)
        bind = cls.__dict__.get("_bind_backend")
        if bind is not None and not getattr(bind, "_tells_owner", False):
            cls._bind_backend = _telling_owner(bind)  # type: ignore[method-assign,assignment]

    #: The pure-Python scalar methods, whichever path is active (for tests and
    #: comparisons; the C methods fall back to these).
    _py_get_value = _ScalarPath.get_value
    _py_set_value = _ScalarPath.set_value
    _py_getitem = _ScalarPath.__getitem__
    _py_setitem = _ScalarPath.__setitem__

    # -- construction bookkeeping ---------------------------------------------------

    def _init_carrier(self, dtype: DType, *, mutable: bool) -> None:
        """Finish construction: dtype, normalizer, lifecycle, scalar accessors.

        The dtype's row is read once, here: the scalar paths use the cached rule and
        fast-path bounds, never a table lookup.
        """
        self._bind_dtype(dtype)
        self._init_lifecycle(mutable=mutable)
        self._bind_backend()

    def _init_fresh(self, dtype: DType, slots: int) -> None:
        """Finish construction as ``_init_carrier(dtype, mutable=True)`` does, flatter.

        For a kind's fresh results on a per-call path (the array API's Metal results):
        a new, unowned, mutable carrier of ``slots`` slots whose ``_bind_backend``
        binds the raw hooks, without the kind's ``_bind_backend`` and the owner
        notice between (an unowned carrier has no owner to tell). A test holds the
        two paths' state equal.
        """
        self._bind_dtype(dtype)
        self._init_lifecycle(mutable=True)
        self._slots = slots
        self._slot_store = _RawAccess(self)

    def _bind_dtype(self, dtype: DType) -> None:
        """Cache the dtype, its normalizer and its scalar fast-path bounds."""
        self._dtype = dtype
        row = storage_row(dtype)
        self._norm = row.normalize
        self._fast_type, self._fast_low, self._fast_high = (
            row.fast_type,
            row.fast_low,
            row.fast_high,
        )

    def _bind_backend(self) -> None:
        """Cache the slot count and scalar accessors; call after the buffer changes."""
        self._slots = self._raw_size()
        self._slot_store = _RawAccess(self)
        self._tell_owner()

    def _unbind_backend(self) -> None:
        # Bind refusers, not the raw hooks: a thread that passed the released check
        # just before release() then gets RuntimeError instead of touching the
        # released backend (see docs/threads-and-processes.md).
        self._slots = 0
        self._slot_store = _ReleasedSlots(repr(self))

    # -- backend hooks ----------------------------------------------------------------

    @abc.abstractmethod
    def _raw_size(self) -> int:
        """Return the live backend's number of slots."""

    @abc.abstractmethod
    def _raw_get(self, index: int) -> Any:
        """Return slot ``index`` (in range) as a Python scalar."""

    @abc.abstractmethod
    def _raw_set(self, index: int, value: Any) -> None:
        """Store the normalized Python scalar ``value`` into slot ``index`` (in range)."""

    @abc.abstractmethod
    def _raw_array(self) -> npt.NDArray[Any]:
        """Return the live 1-D backing array, shape ``(size,)``, for bulk work."""

    @abc.abstractmethod
    def _raw_release(self) -> None:
        """Relinquish the backend storage."""

    @abc.abstractmethod
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        """Build fresh storage of this kind holding ``values`` (validated arguments)."""

    @abc.abstractmethod
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        """Build fresh storage of this kind with ``size`` slots (validated arguments)."""

    def _raw_load(self, values: npt.NDArray[Any]) -> None:
        """Replace the whole storage with a copy of ``values`` (see the module notes)."""
        raise NotImplementedError(_messages.no_load(self))

    def _load(self, values: npt.NDArray[Any], *, action: str) -> None:
        """Replace the storage with ``values`` (a move like ``resize``: no version step).

        Guarded like a move (intrinsically mutable, live, unowned or inside the
        owner's access scope); ``values`` must already be normalized to the storage
        NumPy dtype. On any error the storage, size and version are unchanged.
        """
        with self._move(action):
            self._raw_load(values)
            self._bind_backend()

    # -- the storage sequence -----------------------------------------------------------

    def size(self) -> int:
        """Return the number of physical slots (elements); 0 once released.

        Returns
        -------
        int
            Non-negative slot count.
        """
        return self._slots

    def dtype(self) -> DType:
        """Return the single storage dtype of every slot (available after release too).

        Returns
        -------
        DType
            The storage descriptor, e.g. ``DType.Float32``.
        """
        return self._dtype

    # Array libraries (Dask, ...) read ``x.dtype`` as a NumPy dtype: NumPy then looks for
    # a ``dtype`` attribute on this bound method, and its error shows this one's text.
    dtype.dtype = _messages.DTypeIsAMethod()  # type: ignore[attr-defined]

    def __len__(self) -> int:
        """Return ``size()`` (0 once released)."""
        return self._slots

    def __iter__(self) -> Iterator[Any]:
        """Iterate over a snapshot of the slot values, as Python scalars.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        with self._locked():
            self._require_live("iterate")
            self._before_read("iterate")
            values: list[Any] = self._raw_array().tolist()
        return iter(values)

    def __repr__(self) -> str:
        """Name kind, dtype, size, state and values: ``CPU(DType.Float32, size=2, live, [0., 0.])``.

        A live carrier's values are previewed as NumPy prints them (the first and
        last three when there are more than eight; see ``_protocols.preview``).
        """
        values = self._preview_text()
        return (
            f"{type(self).__name__}({_messages.dtype_text(self._dtype)}, size={self._slots}, "
            f"{', '.join(self._state_words())}{'' if values is None else ', ' + values})"
        )

    # -- dtype support ------------------------------------------------------------------

    def _supported_storage_dtypes(self) -> tuple[DType, ...]:
        table = type(self)._SUPPORTED_STORAGE
        return (self._dtype,) if table is None else table

    def _constructible_storage_dtypes(self) -> tuple[DType, ...]:
        table = type(self)._CONSTRUCTIBLE_STORAGE
        return (self._dtype,) if table is None else table

    def supports_storage_dtype(self, dtype: DType) -> bool:
        """Return whether this carrier kind can hold homogeneous storage of ``dtype``.

        Structural and exact: answered by descriptor identity from the kind's table,
        allocating and mutating nothing, independent of the current dtype, size,
        mutability, ownership and release state. A custom carrier without a table
        reports only the dtype it holds. ``True`` is no promise that a constructor
        accepts the descriptor (categories are reported where the spec lists them, but
        constructors refuse every category).

        Parameters
        ----------
        dtype : DType
            The descriptor to ask about.

        Returns
        -------
        bool
            ``True`` if ``dtype`` is in the kind's supported set, ``False`` for any
            other valid descriptor (compound dtypes included).

        Raises
        ------
        TypeError
            If ``dtype`` is not a ``DType``.
        """
        if not isinstance(dtype, DType):
            raise TypeError(
                _messages.not_a_dtype(dtype, where=f"{type(self).__name__}.supports_storage_dtype")
            )
        return accepts_storage_dtype(dtype, self._supported_storage_dtypes())

    def _factory_dtype(self, dtype: object) -> DType:
        if dtype is None:
            return self._dtype
        return validate_storage_dtype(
            dtype, carrier=type(self).__name__, accepted=self._constructible_storage_dtypes()
        )

    # -- factories ----------------------------------------------------------------------

    def new_like(self, values: object, *, mutable: bool = True, dtype: DType | None = None) -> Self:
        """Return fresh storage of the same kind holding ``values``.

        Works on a released receiver (it reads nothing from it). ``numpy.ndarray`` and
        buffer inputs take a vectorized path (no per-element Python loop; no copy
        beyond the one into the fresh storage).

        Parameters
        ----------
        values : iterable
            Ordered slot values (``n`` of them), consumed once. ``None`` items are
            holes and read as the dtype's zero.
        mutable : bool, optional
            Intrinsic mutability of the result (default ``True``).
        dtype : DType or None, optional
            Storage dtype of the result; ``None`` (default) keeps the receiver's.

        Returns
        -------
        Carrier
            A fresh carrier of the receiver's concrete kind, ``size() == n``,
            ``version == 0``, independent of the receiver and of ``values``.

        Raises
        ------
        TypeError
            If ``dtype`` is not a DType, ``mutable`` is not a bool, ``values`` is not
            iterable, or a value's type is refused by the normalization table.
        ValueError
            If ``dtype`` is outside the kind's constructible set (categories,
            compound dtypes, other encodings).
        OverflowError
            If a value is out of the dtype's range.
        """
        target = self._factory_dtype(dtype)
        flag = check_flag("mutable", mutable, where=f"{type(self).__name__}.new_like")
        return self._raw_new_like(values, mutable=flag, dtype=target)

    def allocate_like(
        self,
        size: int,
        *,
        mutable: bool = True,
        dtype: DType | None = None,
        empty: bool = False,
    ) -> Self:
        """Return fresh storage of the same kind with ``size`` slots.

        Parameters
        ----------
        size : int-like
            Number of slots (elements), ``>= 0``.
        mutable : bool, optional
            Intrinsic mutability of the result (default ``True``).
        dtype : DType or None, optional
            Storage dtype of the result; ``None`` (default) keeps the receiver's.
        empty : bool, optional
            Allow skipping initialization (default ``False``). CPU may then return
            unspecified contents (write every slot before reading); Generic and
            FileBacked always initialize.

        Returns
        -------
        Carrier
            A fresh carrier of the receiver's kind; with ``empty=False`` every slot
            holds the dtype's zero (``0.0``, ``0``, ``False``).

        Raises
        ------
        TypeError
            If ``size`` has no ``__index__``, ``dtype`` is not a DType, or a flag is
            not a bool.
        ValueError
            If ``size`` is negative, or ``dtype`` is outside the constructible set.
        """
        where = f"{type(self).__name__}.allocate_like"
        n = check_size(size, where=where)
        target = self._factory_dtype(dtype)
        flag = check_flag("mutable", mutable, where=where)
        skip = check_flag("empty", empty, where=where)
        return self._raw_allocate_like(n, mutable=flag, dtype=target, empty=skip)

    # -- scatter --------------------------------------------------------------------------

    def _raw_scatter(self, base: int, mapping: Layout, source: ScatterSource) -> None:
        """Write the source's logical value ``i`` to slot ``base + mapping.index(i)``, vectorized.

        The backend hook of :meth:`scatter`; everything is validated before it runs
        (every destination lies in ``[0, size())``, ``mapping.size == source.size``,
        row-major) and the receiver is resident.  It must give the later logical
        index on a repeated slot and read the whole source before writing (the host
        values may be a view of this carrier's storage).  The default runs
        :func:`stridewave.carriers._scatter.scatter_numpy` on ``_raw_array()`` with
        ``source.host()``: an injective mapping is one strided copy with no index
        array.  A backend without strided writes (Metal) writes
        ``storage[unique] = values[positions]`` from ``scatter_indices(base,
        mapping)`` (no repeated index), taking ``source.backend(self)`` when the
        source lives on the same backend.
        """
        scatter_numpy(self._raw_array(), base, mapping, source.host())

    @classmethod
    def _availability(cls) -> tuple[bool, str]:
        """Return whether the kind can be constructed here, and on what, in words."""
        return True, "NumPy"

    def _backing(self) -> Carrier:
        """Return the carrier whose backend holds the values now (default: ``self``)."""
        return self

    def _backend_slice(self, start: int, stop: int) -> Any:
        """Return the backend array of slots ``[start, stop)`` (device kinds; default None)."""
        return None

    def scatter(
        self,
        to_scatter: TensorView,
        scatter_onto: TensorView,
        mapping: Layout,
        mapping_offset: int = 0,
    ) -> None:
        """Write source Tensor values into this carrier's slots through a mapping.

        For source logical index ``i`` (row-major over ``to_scatter.shape``) the value
        goes to physical slot ``scatter_onto.offset + mapping_offset +
        mapping.index(i)``, all offsets in elements (spec: "Scatter maps logical
        source values into destination storage").  When several ``i`` land on one
        slot, the **later** logical index wins; when the source views this carrier,
        the result is as if the whole source were read before the first write.

        Parameters
        ----------
        to_scatter : Tensor
            Single-subtensor source view (any carrier kind), shape ``S``.
        scatter_onto : Tensor
            Single-subtensor view of **this** carrier; only its ``offset`` is used.
        mapping : Layout
            Destination offsets, in elements, with ``mapping.shape == S``; zero and
            negative strides allowed.
        mapping_offset : int, optional
            Extra offset in elements, ``>= 0`` (default 0).

        Raises
        ------
        TypeError
            If ``to_scatter``/``scatter_onto`` is not a Tensor, ``mapping`` not a
            Layout, ``mapping_offset`` not an integer (``bool`` is refused), or the
            receiver's normalization refuses the source values (e.g. Float32 or Bool
            values into Int32 storage).
        ValueError
            If an argument is a multi-subtensor (compound) Tensor, ``scatter_onto``
            views another carrier, ``mapping.shape != to_scatter.shape``, or
            ``mapping_offset`` is negative.
        IndexError
            If a destination slot is outside ``[0, size())``; the message names the
            slot, the source element and the receiver size.
        RuntimeError
            If the receiver is released, immutable, or owned outside its owner's
            scope (or the source's carrier is released).
        OverflowError
            If a source value is outside the receiver dtype's range.
        NotImplementedError
            If the kind does not implement scatter (``capabilities.scatter`` is
            ``ScatterSupport.NONE``: FileBacked), before any other check.

        Notes
        -----
        A template no kind overrides: the capability check, the argument checks, the
        source read (host values normalized, or the backend's own array for a source
        on the receiver's backend), then under the receiver's lock the write guard,
        one page-in (``_before_mutation``: an evicted Evictable promotes), the
        destination checked again against a racing release or shrink, and the one
        backend write (``_raw_scatter``). A failed call changes neither values nor
        ``version``; a successful call advances ``version`` by exactly one.
        """
        if self.capabilities.scatter is ScatterSupport.NONE:
            raise NotImplementedError(_messages.scatter_unsupported(self))
        self._scatter_template(to_scatter, scatter_onto, mapping, mapping_offset)

    def _bulk_write(
        self,
        to_scatter: TensorView,
        scatter_onto: TensorView,
        mapping: Layout,
        mapping_offset: int = 0,
    ) -> None:
        """Write as :meth:`scatter` does, on every kind with host storage views.

        The array-API façade's write path (CONTRACT section 9, version 3: every
        listed device takes writes). The same checks, lock, page-in and single
        version step as ``scatter``; a kind without a scatter of its own
        (``ScatterSupport.NONE``: FileBacked, which the carrier spec leaves without
        one) writes through its host storage (``_raw_array()``), so ``scatter``
        itself keeps raising ``NotImplementedError`` there.

        Raises
        ------
        TypeError, ValueError, IndexError, RuntimeError, OverflowError
            As :meth:`scatter`.
        NotImplementedError
            If the kind has neither a scatter nor host storage views.
        """
        if self.capabilities.scatter is ScatterSupport.NONE and not (
            self.capabilities.exports_views and self.capabilities.host_addressable
        ):
            raise NotImplementedError(_messages.scatter_unsupported(self))
        self._scatter_template(to_scatter, scatter_onto, mapping, mapping_offset)

    def _export_storage(self, action: str) -> npt.NDArray[Any]:
        """Return the host storage array itself, writable, as one write (a version step).

        The array-API façade's writable export (CONTRACT section 9, version 3: a
        writable Array exports a writable zero-copy view; taking it counts as one
        write). Under the lock: the write guard, one page-in (``_before_mutation``),
        then ``version`` advances by one; later writes through the array are the
        consumer's, outside the counter. A ``resize`` or a move later replaces the
        storage, and the exported array keeps the old buffer.

        Parameters
        ----------
        action : str
            The verb for a refusal's message.

        Returns
        -------
        numpy.ndarray, shape ``(size(),)``
            The storage, writable.

        Raises
        ------
        RuntimeError
            If the carrier is released, immutable, or owned outside its owner's scope.
        TypeError
            If the kind's storage is not host addressable (``capabilities``).
        """
        caps = self.capabilities
        if not (caps.exports_views and caps.host_addressable):
            raise TypeError(f"{self!r} has no host storage to export as a writable view.")
        with self._mutation(action):
            raw = self._raw_array()
            if not raw.flags.writeable:
                raise RuntimeError(
                    _messages.not_writable(self, action, intrinsic=False, owner=None)
                )
        return raw

    def _update_storage(self, update: Callable[[npt.NDArray[Any]], None]) -> None:
        """Run ``update`` on the host storage array as one write (one version step).

        The array-API façade's in-place operators on host storage (``x += y``
        computed into the carrier, as NumPy's in-place operators compute): under the
        lock, the write guard and one page-in as for ``scatter``; ``version`` advances
        by one when ``update`` returns, and stays where it was if it raises.

        Parameters
        ----------
        update : callable
            Called with the storage, shape ``(size(),)`` and writable; it writes the
            new values into it.

        Raises
        ------
        RuntimeError
            If the carrier is released, immutable, or owned outside its owner's scope
            (``scatter``'s refusals and messages).
        TypeError
            If the kind's storage is not host addressable (``capabilities``).
        """
        caps = self.capabilities
        if not (caps.exports_views and caps.host_addressable):
            raise TypeError(
                f"{self!r} has no host storage to update in place; an in-place update "
                f"needs a carrier whose capabilities say host_addressable and "
                f"exports_views (CPU, FileBacked, Generic): use scatter for this kind."
            )
        self._require_admitted("scatter")
        with self._mutation("scatter"):
            raw = self._raw_array()
            if not raw.flags.writeable:
                raise RuntimeError(
                    _messages.not_writable(self, "scatter", intrinsic=False, owner=None)
                )
            update(raw)

    def _scatter_template(
        self,
        to_scatter: TensorView,
        scatter_onto: TensorView,
        mapping: Layout,
        mapping_offset: int,
        write: Callable[[int, Layout, ScatterSource], None] | None = None,
    ) -> None:
        """Run :meth:`scatter`'s checks and its one write, after its capability check.

        ``write``: the backend write to run instead of :meth:`_raw_scatter` (a kind's
        own path for the array API's writes, ``_bulk_write``).
        """
        host_only = self.capabilities.scatter is ScatterSupport.NONE
        base = check_scatter_arguments(self, to_scatter, scatter_onto, mapping, mapping_offset)
        self._require_admitted("scatter")  # refusals first, as documented (rechecked below)
        # The source is read under its own lock, before the receiver's is taken: two
        # unrelated carriers are never locked together (docs/threads-and-processes.md).
        # Host values are read now; a source on the receiver's own backend (a Metal
        # device slice) is handed over as it is.
        source = ScatterSource(to_scatter, self._dtype)
        source.prefetch(self._backing())
        with self._mutation("scatter"):  # pages an evicted Evictable in (_before_mutation)
            # Under the lock: the receiver may have shrunk or been released meanwhile
            # (the arguments themselves were checked once, above).
            check_scatter_destination(self, base, mapping, onto_offset=scatter_onto.offset)
            if host_only:
                scatter_numpy(self._raw_array(), base, mapping, source.host())
            elif write is not None:
                write(base, mapping, source)
            else:
                self._raw_scatter(base, mapping, source)

    # -- release --------------------------------------------------------------------------

    def release(self) -> None:
        """Release the storage for good; idempotent.

        Raises
        ------
        RuntimeError
            If another carrier owns this one and its access scope is not open (the
            owner releases it). Immutability does not prevent release.

        Notes
        -----
        NumPy views exported earlier keep their buffer alive; the carrier's own
        accessors fail with ``RuntimeError`` from now on, and ``size()`` is 0.
        """
        with self._locked():
            if self._released:
                return
            self._require_releasable()
            self._gate = None  # close the scalar fast path before the backend goes
            self._raw_release()
            self._mark_released()
            self._unbind_backend()

    # -- copying and pickling -------------------------------------------------------------

    def _before_read(self, action: str) -> None:
        """Prepare a bulk read, under the lock (a hook: an evicted Evictable pages in)."""

    def _recheck_live(self) -> None:
        """On an error path only: raise RuntimeError if a release raced this call."""
        if self._released:
            raise RuntimeError(_messages.released(self, "access a slot"))

    @classmethod
    def _unpickling_prototype(cls) -> Self:
        """Return a receiver for ``_raw_new_like`` in the unpickling process.

        The default is a bare instance (``cls.__new__(cls)``), enough for kinds whose
        ``_raw_new_like`` reads no instance state (Generic, CPU, FileBacked). A kind
        that needs state to build storage (a device, tier kinds) overrides this, or
        overrides ``__reduce_ex__``.
        """
        return cls.__new__(cls)

    def _snapshot(self, action: str) -> npt.NDArray[Any]:
        """Return a private copy of the live values (a plain ndarray), for copies."""
        with self._locked():
            self._require_live(action)
            self._before_read(action)
            return np.array(self._raw_array(), copy=True)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle as an independent copy: the kind, a copy of the values, dtype, mutability.

        Unpickling calls the kind's value factory (``_raw_new_like``) in the receiving
        process, so the result owns fresh storage of the same kind (FileBacked: a new
        file in the receiver's session directory; a wrapped CPU pointer: an owned
        copy). Ownership, version and file name are not carried over: the copy is
        unowned, its ``version`` is 0.

        Parameters
        ----------
        protocol : int
            The pickle protocol (unused; every protocol gets the same recipe).

        Returns
        -------
        tuple
            ``(rebuild, (kind, values, dtype, mutable))``.

        Raises
        ------
        RuntimeError
            If the carrier is released (there are no values to copy).
        """
        values = self._snapshot("pickle the values")
        return (_rebuild_carrier, (type(self), values, self._dtype, self._intrinsic_mutable))

    def __copy__(self) -> Self:
        """Return an independent carrier of the same kind, dtype, mutability and values.

        ``copy.copy`` and ``copy.deepcopy`` agree: a carrier's values are its state, so
        a shallow copy that shared the buffer would let writes through one bypass the
        other's version. Built with ``new_like``, so any kind (composites included)
        gets its own factory's storage.

        Returns
        -------
        Carrier
            Fresh, unowned, ``version == 0``.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        values = self._snapshot("copy the values")
        return self.new_like(values, mutable=self._intrinsic_mutable, dtype=self._dtype)

    def __deepcopy__(self, memo: dict[int, object] | None) -> Self:
        """Return ``copy.copy(self)`` (see :meth:`__copy__`); registers it in ``memo``.

        Parameters
        ----------
        memo : dict or None
            ``copy.deepcopy``'s memo (id -> copy).

        Returns
        -------
        Carrier
            Fresh, unowned, ``version == 0``, same kind, dtype, mutability and values.

        Raises
        ------
        TypeError
            If ``memo`` is neither a dict nor None (checked before anything is copied).
        RuntimeError
            If the carrier is released.
        """
        if memo is not None and not isinstance(memo, dict):
            raise TypeError(_messages.bad_memo(memo))
        result = self.__copy__()
        if memo is not None:
            memo[id(self)] = result
        return result

    # -- NumPy interop ------------------------------------------------------------------

    def __array__(
        self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
    ) -> npt.NDArray[Any]:
        """Export the slots to NumPy (protocol of NumPy 2).

        Parameters
        ----------
        dtype : numpy dtype-like, optional
            Requested NumPy dtype; a different one than the storage's needs a copy.
        copy : bool or None, optional
            ``None`` (default): a read-only zero-copy view when possible, else a
            converted copy. ``True``: always a fresh writable copy. ``False``: a view
            or ``ValueError``.

        Returns
        -------
        numpy.ndarray
            Shape ``(size(),)``. Views sit on a read-only buffer, so no write can
            bypass mutability or the version counter.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        TypeError
            If NumPy cannot read ``dtype`` as a dtype.
        ValueError
            If ``copy=False`` and ``dtype`` needs a conversion.
        """
        requested = export_dtype(dtype, exporter=self)
        with self._locked():
            self._require_live("export to NumPy")
            self._before_read("export to NumPy")
            raw = self._raw_array()
            if copy:
                return np.array(raw, dtype=requested, copy=True)
        if requested is not None and requested != raw.dtype:
            if copy is False:
                raise ValueError(_messages.copy_impossible(self, requested))
            return raw.astype(requested)
        return self._readonly_view(raw)

    @staticmethod
    def _readonly_view(raw: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Return a zero-copy view of ``raw`` on a read-only buffer (cannot be re-enabled)."""
        if not raw.flags.c_contiguous:
            raw = np.ascontiguousarray(raw)
        # (ml_dtypes' bfloat16 has no buffer-protocol format: its bytes are exported)
        data = raw.view(np.uint8) if raw.dtype.kind == "V" else raw
        view: npt.NDArray[Any] = np.frombuffer(
            memoryview(data).toreadonly(),  # type: ignore[arg-type,unused-ignore]
            dtype=raw.dtype,
        )
        return view
