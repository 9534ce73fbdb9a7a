"""Interop protocols of every carrier (CONTRACT section 8): the `_Protocols` mixin.

Mixed into :class:`~stridewave.Carrier`, so every kind gets, with no per-kind code:

* **array-likeness**: ``shape == (size,)``, ``ndim == 1``, ``itemsize``, ``nbytes``
  (properties; the spec's ``size()`` and ``dtype()`` stay methods);
* **DLPack**: ``__dlpack__(*, stream=None, max_version=None, dl_device=None,
  copy=None)`` and ``__dlpack_device__()``, see :func:`export_dlpack`;
* **the buffer protocol** (``__buffer__``, read-only; Python 3.12+ calls it);
* ``__mlx_array__`` (``mlx.core.array(c)``: a copy), ``__jax_array__``
  (``jax.numpy.asarray(c)``: a copy) and ``__arrow_array__`` (``pyarrow.array(c)``
  keeps float32, int32 and bool, vectorized);
* ``__dask_tokenize__`` (Dask names a graph without pickling the values);
* notebook niceties: a ``repr`` tail previewing the values as NumPy does, ``_repr_html_``,
  and the context-manager protocol (``with sw.CPU(n) as c:`` releases on exit);
* :meth:`_Protocols.save`: write the values to a ``.npy`` file that plain NumPy loads.

Every export goes through the kind's own ``__array__`` (the one reviewed place that
decides view or copy), so the rules are the NumPy ones of CONTRACT section 3: host
kinds export a zero-copy view on a read-only buffer, Metal a read-only snapshot.

The one promise, restated for DLPack: nothing that honours DLPack's read-only flag or
NumPy's ``writeable`` flag can write through an export. A consumer that cannot honour
the flag gets a copy, never a writable alias. Which consumers cannot: every one that
asks for a legacy capsule (``max_version`` missing or below ``(1, 0)``: JAX, MLX,
older NumPy), and the DLPack 1.x consumers listed in :data:`IGNORES_READ_ONLY`, which
accept a versioned capsule but drop its read-only flag (PyTorch 2.13 does:
``torch.from_dlpack`` of a read-only NumPy array returns a writable alias).
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import sys
import tempfile
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt
from typing_extensions import CapsuleType, Self

from stridewave.carriers import _messages

if TYPE_CHECKING:
    from stridewave.carriers._capabilities import Capabilities
    from stridewave.dtypes import DType

__all__ = [
    "IGNORES_READ_ONLY",
    "NUMPY_EXPORTS_READ_ONLY",
    "export_dlpack",
    "preview",
    "write_npy",
]

#: Top-level modules of DLPack consumers that ask for a DLPack 1.x capsule but ignore
#: its read-only flag (checked by test: a write through their result would reach the
#: carrier). They always get a copy. PyTorch up to at least 2.13.
IGNORES_READ_ONLY: Final[frozenset[str]] = frozenset({"torch"})

_KDL_CPU: Final = 1  # DLPack device type of host memory

#: The one function that imports MLX (``carriers._mlx_runtime.import_mlx``), registered by
#: that module: only the Metal module imports mlx (import contracts).
MLX_IMPORTER: list[Callable[[], Any]] = []

#: NumPy 2.1 added DLPack 1.x export (``max_version``, ``copy``) with the read-only flag;
#: before it, host carriers export through DLPack only as copies.
NUMPY_EXPORTS_READ_ONLY: Final[bool] = np.lib.NumpyVersion(np.__version__) >= "2.1.0"

#: How many values the ``repr`` shows at each end when it summarizes (NumPy's
#: ``edgeitems`` default); up to ``_PREVIEW_ALL`` values are all shown.
_EDGE: Final = 3
_PREVIEW_ALL: Final = 8


def _caller_module(depth: int) -> str:
    """Return the top-level module name of the Python frame ``depth`` levels up, or ``""``."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return ""
    name = frame.f_globals.get("__name__", "")
    return name.partition(".")[0] if isinstance(name, str) else ""


def _major(max_version: object) -> int:
    """Return the major DLPack version a consumer understands (0: legacy capsules only)."""
    if max_version is None:
        return 0
    try:
        return int(max_version[0])  # type: ignore[index]
    except (TypeError, ValueError, IndexError):
        return 0


def _honours_read_only(max_version: object, consumer: str) -> bool:
    """Whether a consumer asking with ``max_version`` can be given a read-only capsule."""
    return _major(max_version) >= 1 and consumer not in IGNORES_READ_ONLY


def export_dlpack(
    view: Callable[[], npt.NDArray[Any]],
    *,
    what: object,
    stream: object,
    max_version: object,
    dl_device: object,
    copy: bool | None,
    consumer: str,
) -> CapsuleType:
    """Export a host array through DLPack: zero-copy read-only, or a copy.

    Parameters
    ----------
    view : callable
        Returns the read-only NumPy export (a zero-copy view on a read-only buffer,
        or a read-only snapshot); called once.
    what : object
        The exporting object, named by its ``repr`` in messages (only on errors).
    stream, max_version, dl_device, copy
        The arguments of ``__dlpack__`` (DLPack's Python specification).
    consumer : str
        Top-level module of the caller (see :data:`IGNORES_READ_ONLY`).

    Returns
    -------
    PyCapsule
        ``"dltensor_versioned"`` (DLPack 1.x, read-only flag set on a zero-copy
        export) when ``max_version >= (1, 0)``, else a legacy ``"dltensor"``
        capsule of a private writable copy.

    Raises
    ------
    BufferError
        If ``copy=False`` but the consumer cannot honour the read-only flag (a
        zero-copy export would be a writable alias), or ``dl_device`` is not the
        host (``(1, 0)``).
    """
    if dl_device is not None and tuple(dl_device) != (_KDL_CPU, 0):  # type: ignore[call-overload,arg-type,unused-ignore]
        raise BufferError(
            f"{what!r} lives in host memory, DLPack device (1, 0); dl_device={dl_device!r} "
            f"was asked for. Import it on the CPU, then move it with the consumer "
            f"(e.g. torch.from_dlpack(c).to('cuda'))."
        )
    array = view()
    if not NUMPY_EXPORTS_READ_ONLY:  # NumPy 2.0: legacy capsules of writable arrays only
        if copy is False:
            raise BufferError(
                f"cannot export {what!r} through DLPack without a copy: NumPy "
                f"{np.__version__} cannot flag an export read-only (NumPy 2.1 can), and a "
                f"writable alias would bypass the carrier's version. Drop copy=False."
            )
        return np.array(array, copy=True).__dlpack__(stream=stream)  # type: ignore[arg-type,unused-ignore]
    if copy is True or not _honours_read_only(max_version, consumer):
        if copy is False:
            raise BufferError(
                f"cannot export {what!r} through DLPack without a copy to this consumer "
                f"(max_version={max_version!r}, caller {consumer or '?'}): it cannot "
                f"honour DLPack's read-only flag, so a zero-copy export would be a "
                f"writable alias that bypasses the carrier's version. Drop copy=False "
                f"to get a private copy."
            )
        private = np.array(array, copy=True)
        if _major(max_version) >= 1:
            return private.__dlpack__(max_version=max_version, stream=stream)  # type: ignore[arg-type]
        return private.__dlpack__(stream=stream)
    if array.flags.writeable:  # a kind whose export is writable must not leak it
        array = array.view()
        array.flags.writeable = False
    return array.__dlpack__(max_version=max_version, stream=stream, copy=copy)  # type: ignore[arg-type]


def preview(values: npt.NDArray[Any]) -> str:
    """Return NumPy's text for ``values``, summarized to the first and last few.

    Uses NumPy's own formatter (``numpy.array2string``) with the current print
    options' precision, showing every value up to 8 and otherwise the first and last
    three around ``...``; reads only the values shown.
    """
    wide = {"separator": ", ", "threshold": _PREVIEW_ALL, "max_line_width": sys.maxsize}
    if values.shape[0] <= _PREVIEW_ALL:
        return np.array2string(values, **wide)  # type: ignore[arg-type]
    shown = np.concatenate((values[:_EDGE], values[-_EDGE:]))
    parts = np.array2string(shown, **wide)[1:-1].split(", ")  # type: ignore[arg-type]
    return "[" + ", ".join([*parts[:_EDGE], "...", *parts[_EDGE:]]) + "]"


_SESSION_DIR = re.compile(r"^\.stridewave-\d+-")


def _session_root(path: str) -> str | None:
    """Return the stridewave session directory containing ``path``, if any."""
    real = os.path.realpath(path)
    parent = os.path.dirname(real)
    while True:
        if _SESSION_DIR.match(os.path.basename(parent)):
            return parent
        up = os.path.dirname(parent)
        if up == parent:
            return None
        parent = up


def write_npy(values: npt.NDArray[Any], path: str | os.PathLike[str], *, what: str) -> str:
    """Write ``values`` to ``path`` as a ``.npy`` file, all or nothing.

    The data goes to a temporary file in the target directory first (header by
    ``numpy.lib.format.write_array``), which then replaces ``path`` with
    ``os.replace``: a failure leaves no file behind and any old ``path`` unchanged.

    Parameters
    ----------
    values : numpy.ndarray
        1-D values to write.
    path : str or os.PathLike
        Target file; written exactly there (no ``.npy`` suffix is added).
    what : str
        The carrier, for messages.

    Returns
    -------
    str
        The absolute path written.

    Raises
    ------
    TypeError
        If ``path`` is not a str or path-like.
    ValueError
        If ``path`` lies inside a stridewave session directory (its files belong
        to carriers and are deleted when they are released or the process exits).
    OSError
        If the file cannot be written (full disk: ``errno.ENOSPC``).
    """
    from numpy.lib import format as npy_format

    try:
        target = os.path.abspath(os.fspath(path))
    except TypeError:
        raise TypeError(
            f"{what}.save expects a file path (str or os.PathLike); got "
            f"{type(path).__name__}. Pass e.g. 'values.npy'."
        ) from None
    if _session_root(target) is not None:
        raise ValueError(
            f"{what}.save({target!r}): that path is inside a stridewave session directory, "
            f"whose files belong to FileBacked carriers and are removed when they are "
            f"released or the process exits. Save to a directory of your own."
        )
    directory = os.path.dirname(target)
    fd, staging = tempfile.mkstemp(prefix=".stridewave-save-", suffix=".npy", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            npy_format.write_array(handle, values, allow_pickle=False)
        os.chmod(staging, 0o666 & ~_umask())
        os.replace(staging, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging)
        raise
    return target


def _umask() -> int:
    """Return the process umask, read once (``os.umask`` can only be read by setting it)."""
    if not _UMASK:
        mask = os.umask(0o022)
        os.umask(mask)
        _UMASK.append(mask)
    return _UMASK[0]


_UMASK: list[int] = []


class _Protocols:
    """Interop protocols for every carrier (see the module docstring).

    Relies on the carrier's ``__array__`` (the read-only export), ``_dtype``,
    ``_slots``, ``release()`` and the lifecycle's ``_require_live``.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _dtype: DType
        _slots: int
        _released: bool
        _version: int
        capabilities: Capabilities

        def __array__(
            self, dtype: npt.DTypeLike | None = None, copy: bool | None = None
        ) -> npt.NDArray[Any]: ...

        def release(self) -> None: ...

        def _require_live(self, action: str) -> None: ...

    # -- array-likeness -------------------------------------------------------------

    def _numpy_dtype(self) -> np.dtype[Any]:
        from stridewave.carriers._normalize import storage_numpy_dtype

        return storage_numpy_dtype(self._dtype)

    @property
    def shape(self) -> tuple[int]:
        """``(size(),)``: the carrier as a 1-D array; ``(0,)`` once released."""
        return (self._slots,)

    @property
    def ndim(self) -> int:
        """``1``: a carrier is one-dimensional storage."""
        return 1

    @property
    def itemsize(self) -> int:
        """Bytes per slot of the storage NumPy dtype (4 for Float32 and Int32, 1 for Bool)."""
        return int(self._numpy_dtype().itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of the live storage, ``size() * itemsize`` (0 once released)."""
        return self._slots * self.itemsize

    # -- DLPack -----------------------------------------------------------------------

    def _mlx_storage(self) -> Any:
        """Return the backing ``mlx.core.array`` of a device kind (Metal), else ``None``."""
        return None

    def __dlpack__(
        self,
        *,
        stream: object = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> CapsuleType:
        """Export the storage through DLPack (``numpy.from_dlpack(c)``, ``torch.from_dlpack``).

        Host kinds (CPU, Generic, FileBacked, Evictable over them) export a zero-copy
        view with DLPack 1.x's read-only flag set, to every consumer that asks for a
        versioned capsule (``max_version >= (1, 0)``) and honours that flag. Any other
        consumer (a legacy capsule; PyTorch, which drops the flag) gets a private
        copy, never a writable alias. Metal exports what MLX exports for a snapshot
        of its values (on the MLX device: a CUDA consumer reads it there).

        Parameters
        ----------
        stream : int or None, optional
            Consumer stream (DLPack); ``None`` for host memory.
        max_version : tuple of (int, int) or None, optional
            Highest DLPack version the consumer understands.
        dl_device : tuple of (int, int) or None, optional
            Device the consumer wants; only the producer's own device is served.
        copy : bool or None, optional
            ``None``: zero-copy where the read-only flag can be honoured, else a copy.
            ``True``: always a private copy. ``False``: zero-copy or ``BufferError``.

        Returns
        -------
        PyCapsule
            A DLPack capsule of shape ``(size(),)``.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        BufferError
            If ``copy=False`` cannot be honoured, or ``dl_device`` is another device.
        """
        self._require_live("export through DLPack")
        mlx_array = self._mlx_storage()
        if mlx_array is not None:
            return self._mlx_dlpack(stream, max_version, dl_device, copy)
        return export_dlpack(
            self.__array__,
            what=self,
            stream=stream,
            max_version=max_version,
            dl_device=dl_device,
            copy=copy,
            consumer=_caller_module(1),
        )

    def _mlx_dlpack(
        self, stream: object, max_version: object, dl_device: object, copy: bool | None
    ) -> CapsuleType:
        if copy is False:
            raise BufferError(
                f"{self!r} exports through DLPack only a snapshot (a copy), like "
                f"numpy.asarray: MLX may move the storage on a later write. Drop copy=False."
            )
        snapshot = self.__mlx_array__()
        capsule: CapsuleType = snapshot.__dlpack__(
            stream=stream, max_version=max_version, dl_device=dl_device
        )
        return capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        """Return the DLPack device ``(device_type, device_id)`` of the storage.

        Returns
        -------
        tuple of (int, int)
            ``(1, 0)`` (``kDLCPU``) for host kinds; for Metal, what MLX reports for its
            array (``(1, 0)`` on the CPU device, a CUDA device type on MLX's CUDA
            backend).

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        self._require_live("ask for the DLPack device")
        mlx_array = self._mlx_storage()
        if mlx_array is not None:
            device_type, device_id = mlx_array.__dlpack_device__()
            return (int(device_type), int(device_id))
        return (_KDL_CPU, 0)

    # -- buffer protocol, MLX, Arrow ------------------------------------------------------

    def __buffer__(self, flags: int) -> memoryview:
        """Export a read-only buffer (PEP 688: ``memoryview(c)`` on Python 3.12+).

        Python 3.11 and older do not call ``__buffer__``: use
        ``memoryview(numpy.asarray(c))`` there.

        Parameters
        ----------
        flags : int
            ``inspect.BufferFlags`` of the request.

        Returns
        -------
        memoryview
            Read-only, 1-D, ``size()`` items of the storage format, zero-copy, for a
            request that asks for the format (``memoryview(c)``, NumPy). A raw-bytes
            request (``PyBUF_SIMPLE``, as ``hashlib`` and PyTorch's
            ``asarray``) gets a private copy of the bytes instead: PyTorch wraps such
            a buffer in a writable tensor whatever its read-only flag says.

        Raises
        ------
        BufferError
            If a writable buffer is requested, or the carrier exports no views (Metal,
            and an Evictable over Metal: the storage is on the MLX device;
            ``numpy.asarray`` gives a snapshot).
        RuntimeError
            If the carrier is released.
        """
        self._require_live("export a buffer")
        if not self.capabilities.exports_views or self._mlx_storage() is not None:
            # Not a host carrier: refusing keeps numpy.asarray on Metal's own __array__
            # (a snapshot; copy=False refused), which NumPy reaches when this fails.
            raise BufferError(
                f"{self!r} keeps its storage on the MLX device and exports no buffer; "
                f"numpy.asarray(c) gives a read-only snapshot, mlx.core.array(c) a copy."
            )
        if flags & 0x1:  # PyBUF_WRITABLE
            raise BufferError(
                f"{self!r} exports read-only buffers only (every write goes through "
                f"set_value / scatter, which keep the version); use numpy.array(c) for "
                f"a writable copy."
            )
        if flags == 0:  # PyBUF_SIMPLE: raw bytes, no format, and no read-only promise
            # kept by the one consumer known to ask this way (PyTorch's asarray wraps
            # the buffer in a writable tensor): a private copy of the bytes.
            return memoryview(np.array(self.__array__(), copy=True))  # type: ignore[arg-type,unused-ignore]
        return memoryview(self.__array__())  # type: ignore[arg-type,unused-ignore]

    def __mlx_array__(self) -> Any:
        """Return the values as a new ``mlx.core.array`` (``mlx.core.array(c)``): a copy.

        Returns
        -------
        mlx.core.array
            Shape ``(size(),)``, the storage dtype; independent of later writes.

        Raises
        ------
        RuntimeError
            If the carrier is released, or MLX is not installed.
        """
        mx = MLX_IMPORTER[0]()  # registered by carriers/_metal.py (lazy mlx import)
        return mx.array(np.array(self.__array__(), copy=True))

    def __jax_array__(self) -> Any:
        """Return the values as a new ``jax.Array`` (``jax.numpy.asarray(c)``): a copy.

        JAX reads an input's ``dtype`` attribute as a NumPy dtype, which a carrier's
        spec-fixed ``dtype()`` method is not; ``jax.numpy`` asks ``__jax_array__``
        first, so this hands it the values instead.

        Returns
        -------
        jax.Array
            Shape ``(size(),)``, the storage's NumPy dtype (as ``numpy.asarray(c)``,
            narrowed by JAX where its 64-bit mode is off); on JAX's default device;
            independent of later writes to the carrier.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        ImportError
            If JAX is not installed.
        """
        import jax.numpy as jnp  # optional consumer: only JAX calls this

        # A private copy: JAX may wrap host memory without copying, and a JAX array
        # must not change when the carrier is written later.
        return jnp.asarray(np.array(self.__array__(), copy=True))

    def __arrow_array__(self, type: Any = None) -> Any:
        """Return the values as a ``pyarrow.Array`` (``pyarrow.array(c)``), types kept.

        Float32 stays ``float32``, Int32 ``int32``, Bool ``bool`` (bit-packed by
        pyarrow, vectorized); numeric storage is wrapped without a copy where pyarrow
        can (its arrays are immutable).

        Parameters
        ----------
        type : pyarrow.DataType or None, optional
            Requested Arrow type; ``None`` keeps the storage's.

        Returns
        -------
        pyarrow.Array
            ``size()`` values, no nulls.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        ImportError
            If pyarrow is not installed.
        """
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]  # optional

        return pa.array(self.__array__(), type=type)

    def __dask_tokenize__(self) -> object:
        """Return a cheap Dask token: the object, its kind and its version (no values read).

        Returns
        -------
        tuple
            Changes whenever a public write changes the values.
        """
        return (type(self).__qualname__, id(self), self._version, self._slots)

    # -- files ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> str:
        """Write the values to a ``.npy`` file that plain ``numpy.load`` reads.

        All or nothing: the file is written beside ``path`` and moved into place, so a
        failure (a full disk) leaves ``path`` as it was. Reading an Evictable does
        not promote it first only if the values are already resident.

        Parameters
        ----------
        path : str or os.PathLike
            Target file, written exactly there (no suffix is added).

        Returns
        -------
        str
            The absolute path written.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        TypeError
            If ``path`` is not a path.
        ValueError
            If ``path`` is inside a stridewave session directory.
        OSError
            If the file cannot be written.
        """
        self._require_live("save")
        return write_npy(self.__array__(), path, what=type(self).__name__)

    # -- notebook niceties ----------------------------------------------------------------

    def _preview_text(self) -> str | None:
        """Return the values as NumPy would print them (first and last few), or None."""
        if self._released:
            return None
        try:
            # The backing array itself, not __array__: no lock, no paging in (an
            # evicted Evictable shows its secondary's values), since messages call repr.
            values = self._raw_array()  # type: ignore[attr-defined]
            return preview(values) if values.ndim == 1 else None
        except Exception:  # noqa: BLE001 (a repr must not fail: a race with release, say)
            return None

    def _repr_html_(self) -> str:
        """Return an HTML summary for Jupyter: kind, dtype, size, state, version, values.

        Returns
        -------
        str
            A small HTML table (escaped).
        """
        rows = [
            ("dtype", _messages.dtype_text(self._dtype)),
            ("size", f"{self._slots} slots ({self.nbytes} bytes)"),
            ("state", ", ".join(self._state_words())),  # type: ignore[attr-defined]
            ("version", str(self._version)),
        ]
        values = self._preview_text()
        if values is not None:
            rows.append(("values", values))
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'><code>{html.escape(v)}</code></td></tr>"
            for k, v in rows
        )
        return f"<b>{html.escape(type(self).__name__)}</b><table>{body}</table>"

    def __enter__(self) -> Self:
        """Enter a ``with`` block; returns the carrier itself."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Release the carrier on leaving the ``with`` block (also on an exception).

        Raises
        ------
        RuntimeError
            If another carrier owns this one (the owner releases it).
        """
        self.release()
