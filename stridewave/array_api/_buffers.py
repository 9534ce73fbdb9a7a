"""The CPU device's cache of large result buffers.

NumPy writes a chain's next result into a temporary operand no one else references
(its temporary elision, a reference-count check made in C), so ``(a*2 + 1)**2 - a/3``
allocates two arrays there. Whether an Array is a temporary cannot be read safely
from Python (docs/decisions.md), so the CPU device's direct calls take their large
results from this cache instead: a buffer whose every Array, view, export and carrier
is gone is written again, its pages already mapped, where a fresh allocation of that
size (``mmap`` above glibc's threshold) would fault in every page once more. MLX's
allocator keeps freed buffers for the same reason (``mx.set_cache_limit``).

A buffer is idle when the cache holds the only reference to it: every NumPy view of
it holds it as its ``base``, and buffer-protocol and DLPack exports hold the array
they export, so no reader of its memory is missed. ``sys.getrefcount`` is read in one
function and compared with the count that function reads for a buffer only the cache
holds, so the interpreter's own reference-count conventions cancel out.

Threads: the module's ``_lock`` guards every cache's ``_entries`` and ``_bytes``; a
buffer is handed out under it, so two threads never take one idle buffer. It is never
waited for: a call that finds it held (another thread's, or this thread's own, when a
signal handler or a finalizer computes while the cache runs) lets NumPy allocate its
result, and the buffers the cache forgets are freed after it is released. A child
process made by ``fork`` gets a fresh lock (its parent's may have been held by another
thread). The cache is off on a free-threaded interpreter, where other threads'
references are counted apart from this thread's.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from typing import Any, Final

import numpy as np

#: The environment variable that sets the cache's limit in bytes (0 turns it off).
LIMIT_VARIABLE: Final = "STRIDEWAVE_HOST_CACHE_BYTES"

#: The default limit: every buffer the cache holds, in use or idle, in bytes.
DEFAULT_LIMIT: Final = 256 * 2**20

#: The smallest result taken from the cache, in bytes: glibc's allocator reuses
#: smaller freed blocks itself.
MIN_BYTES: Final = 2**20

#: The most buffers the cache holds (each allocation scans them).
MAX_ENTRIES: Final = 16


#: Guards every cache's entries (see the module's docstring).
_lock = threading.Lock()


def _reset_lock() -> None:
    """Give a forked child a free lock."""
    global _lock
    _lock = threading.Lock()


def _refs(entries: list[np.ndarray], index: int) -> int:
    """Return the reference count of ``entries[index]`` as read here."""
    return sys.getrefcount(entries[index])


#: What :func:`_refs` reads for a buffer no one but the cache's list references.
_IDLE_REFS: Final = _refs([np.empty(1, np.uint8)], 0)


def _limit_from_environment() -> int:
    """Return the limit :data:`LIMIT_VARIABLE` sets, or the default.

    Raises
    ------
    ValueError
        If the variable is set to anything but a non-negative integer.
    """
    text = os.environ.get(LIMIT_VARIABLE)
    digits = "" if text is None else text.strip()
    if not digits:
        return DEFAULT_LIMIT
    limit = int(digits) if digits.isascii() and digits.isdigit() else -1
    if limit < 0:
        raise ValueError(
            f"{LIMIT_VARIABLE}={text!r} is not a byte count: expected a non-negative "
            f"integer (0 turns the CPU device's result cache off); unset it for the "
            f"default {DEFAULT_LIMIT}"
        )
    return limit


class ResultBuffers:
    """Large result buffers of the CPU device, reused once idle.

    Parameters
    ----------
    limit : int
        The most bytes the cache holds, counting buffers in use and idle; 0 turns it
        off. A result larger than a third of it is never cached: a chain keeps
        three temporaries of its size alive at once (two operands and the result).
    """

    __slots__ = ("_bytes", "_entries", "_largest", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit if not _free_threaded() else 0
        self._largest = self.limit // 3
        self._entries: list[np.ndarray] = []  # oldest taken first
        self._bytes = 0

    def empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray | None:
        """Return an uninitialized C-ordered array for a result, or None.

        Parameters
        ----------
        shape : tuple of int
            The result's shape, in elements.
        dtype : numpy.dtype
            The result's dtype.

        Returns
        -------
        numpy.ndarray or None
            A view of an idle cached buffer of the result's size, or of a new one the
            cache now holds; None where the result is outside the cache's sizes (the
            caller lets NumPy allocate it).
        """
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes < MIN_BYTES or nbytes > self._largest:
            return None
        if not _lock.acquire(blocking=False):
            # (held: by another thread now, or by this one, in a signal handler or a
            # finalizer run inside the cache: NumPy allocates, and no call waits)
            return None
        forgotten: list[np.ndarray] = []  # (freed after the lock is released)
        try:
            entries = self._entries
            for index in range(len(entries)):
                if entries[index].nbytes == nbytes and _refs(entries, index) == _IDLE_REFS:
                    buffer = entries.pop(index)
                    entries.append(buffer)
                    return buffer.view(dtype).reshape(shape)
            buffer = np.empty(nbytes, np.uint8)
            entries.append(buffer)
            self._bytes += nbytes
            while self._bytes > self.limit or len(entries) > MAX_ENTRIES:
                # (the cache forgets its oldest buffer: freed once the lock is
                # released if idle, else when its last Array goes)
                forgotten.append(entries.pop(0))
                self._bytes -= forgotten[-1].nbytes
            return buffer.view(dtype).reshape(shape)
        finally:
            _lock.release()

    def out_for(
        self, ufunc: np.ufunc, operands: tuple[Any, ...], shape: tuple[int, ...]
    ) -> np.ndarray | None:
        """Return the ``out`` array for ``ufunc`` of ``operands``, or None.

        Parameters
        ----------
        ufunc : numpy.ufunc
            The ufunc computed, of one output.
        operands : tuple
            Its NumPy arrays and Python ``bool``, ``int`` and ``float`` scalars.
        shape : tuple of int
            The result's shape, in elements (the operands' one shape).

        Returns
        -------
        numpy.ndarray or None
            A cached array of the dtype NumPy gives the result (:meth:`empty`); None
            where :meth:`empty` gives none or NumPy finds no loop (the call without
            ``out`` then raises NumPy's own error).
        """
        try:
            dtypes = ufunc.resolve_dtypes((*map(_resolvable, operands), None))
        except (TypeError, ValueError):
            return None
        return self.empty(shape, dtypes[-1])

    def clear(self) -> None:
        """Forget every cached buffer (idle ones are freed now)."""
        with _lock:
            forgotten, self._entries = self._entries, []
            self._bytes = 0
        del forgotten  # (idle buffers freed here, outside the lock)


def _resolvable(operand: Any) -> Any:
    """Return what ``ufunc.resolve_dtypes`` takes for an operand.

    An array gives its dtype and a Python int or float its type (a weak scalar, as in
    the call); a Python bool is NumPy's ``bool``, the lowest kind, which weak or not
    leaves the other operand's dtype.
    """
    kind = type(operand)
    if kind is bool:
        return np.dtype(np.bool_)
    if kind is int or kind is float:
        return kind
    return operand.dtype


def _free_threaded() -> bool:
    """Return whether the interpreter runs without the GIL."""
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return is_gil_enabled is not None and not is_gil_enabled()


#: The CPU device's cache (the façade's one cache of memory).
RESULT_BUFFERS: Final = ResultBuffers(_limit_from_environment())

os.register_at_fork(after_in_child=_reset_lock)
