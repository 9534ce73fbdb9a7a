"""`NpyFile`: a carrier over a real ``.npy`` file, mapped without a copy (``FileBacked.open``).

CONTRACT section 8, "Opening real files". :meth:`FileBacked.open(path, mode=...)
<stridewave.FileBacked.open>` returns one. It is its own carrier kind, not a
``FileBacked``: the spec gives every FileBacked carrier a file in the hidden
per-process directory that "Releasing a FileBacked carrier SHALL remove", while a
user's file must survive its carrier. So the spec's FileBacked rules stay whole for
FileBacked, and this kind has its own (docs/decisions.md, "Opening real files"):

* ``open`` maps the data of an existing ``.npy`` file (the header is read by
  ``numpy.lib.format``), any shape read as its flat C-order data, dtype ``<f4``
  (Float32) or ``<i4`` (Int32). ``mode="r"``: an intrinsically immutable carrier over
  a read-only mapping. ``mode="r+"``: writes go to the file through a shared mapping,
  each one through the carrier's mutability and version checks.
* ``release()`` unmaps (once no exported view remains) and never deletes the file.
* It pickles **by reference** (path, mode, dtype, size): unpickling maps the same
  path again, so Dask workers on hosts that see the path read it lazily; a file
  whose dtype or size changed meanwhile is refused (``ValueError``).
* Fresh storage from its factories (``new_like``, ``allocate_like``, ``copy``) is an
  *owned* ``.npy`` file in the hidden session directory, under that directory's rules:
  removed on release, garbage collection and exit, by the creating process only.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
import stat
import uuid
import weakref
from collections.abc import Callable
from typing import Any, ClassVar, Final, SupportsIndex

import numpy as np
import numpy.typing as npt
from numpy.lib import format as npy_format
from typing_extensions import Self, override

from stridewave.carriers._array_backed import _ArrayCarrier
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._normalize import materialize, storage_numpy_dtype
from stridewave.carriers._protocols import _session_root
from stridewave.dtypes import DType

__all__ = ["NpyFile"]

_NPY_SUPPORTED: Final[tuple[DType, ...]] = (DType.Floating, DType.Float32, DType.Int32)
_NPY_CONCRETE: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32)
_FROM_FILE: Final[dict[str, DType]] = {"<f4": DType.Float32, "<i4": DType.Int32}
_MODES: Final = ("r", "r+")
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_MAX_INTP: Final = 2**63 - 1
_NOCTTY: Final = getattr(os, "O_NOCTTY", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)


def _remove_owned(path: str, pid: int) -> None:
    """Unlink an owned file (finalizer), only in the process that created it."""
    if os.getpid() != pid:
        return
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _check_mode(mode: object) -> str:
    if not isinstance(mode, str):
        raise TypeError(
            f"FileBacked.open expects mode to be 'r' or 'r+'; got {type(mode).__name__} {mode!r}."
        )
    if mode not in _MODES:
        raise ValueError(
            f"FileBacked.open expects mode 'r' (read-only) or 'r+' (read and write in "
            f"place); got {mode!r}. To create a file, build a carrier and call save(path)."
        )
    return mode


def _check_path(path: object) -> str:
    try:
        text = os.fspath(path)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(
            f"FileBacked.open expects a path (str or os.PathLike); got {type(path).__name__}."
        ) from None
    if not isinstance(text, str):
        raise TypeError(f"FileBacked.open expects a str path; got bytes {text!r}.")
    return os.path.abspath(text)


_KINDS_OF_FILE: Final[tuple[tuple[Callable[[int], bool], str], ...]] = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISSOCK, "a socket"),
)


def _require_regular(path: str, info: os.stat_result) -> None:
    """Refuse (``ValueError``) anything but a regular file: opening a FIFO blocks for ever."""
    if stat.S_ISREG(info.st_mode):
        return
    kind = next((name for test, name in _KINDS_OF_FILE if test(info.st_mode)), "special file")
    raise ValueError(
        f"FileBacked.open({path!r}): that path is {kind}, not a regular file; only a "
        f".npy file on disk can be mapped. Copy the data into a file first, e.g. "
        f"numpy.save('data.npy', numpy.load(stream))."
    )


def _open_regular(path: str, mode: str) -> int:
    """Open ``path`` for mapping; return the descriptor of a regular file.

    The path is checked with ``os.stat`` before it is opened (opening a device may have
    side effects), then opened non-blocking (a FIFO swapped in meanwhile cannot block)
    and checked again on the descriptor itself.
    """
    _require_regular(path, os.stat(path))
    flags = (os.O_RDWR if mode == "r+" else os.O_RDONLY) | _NONBLOCK | _NOCTTY | _CLOEXEC
    fd = os.open(path, flags)
    try:
        _require_regular(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_header(path: str, fd: int) -> tuple[tuple[int, ...], bool, np.dtype[Any], int]:
    """Return ``(shape, fortran_order, dtype, data offset)`` of the ``.npy`` file ``fd``.

    The header is parsed by ``numpy.lib.format`` (versions 1.0, 2.0 and 3.0).
    """
    with os.fdopen(os.dup(fd), "rb") as handle:
        try:
            version = npy_format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = npy_format.read_array_header_1_0(handle)
            else:  # 2.0 and 3.0 share the layout (3.0 allows utf-8 field names)
                shape, fortran, dtype = npy_format.read_array_header_2_0(handle)
        except ValueError as exc:
            raise ValueError(
                f"FileBacked.open({path!r}): not a readable .npy file ({exc}). Write one "
                f"with numpy.save(path, array) or carrier.save(path)."
            ) from None
        return tuple(int(n) for n in shape), bool(fortran), np.dtype(dtype), handle.tell()


def _check_extent(
    path: str, shape: tuple[int, ...], np_dtype: np.dtype[Any], offset: int, file_bytes: int
) -> int:
    """Return the number of values, refusing a header the file's length contradicts.

    Python integers, and numpy's own limit on a shape (its byte count, zero
    dimensions counted as one, within an ``intp``): a product that wraps in int64 (``(2**32, 2**32)``) cannot pass
    for an empty array. Trailing bytes are refused as well (``numpy.save`` never
    writes any), so the data is exactly what the header says.
    """
    if any(n < 0 for n in shape):
        raise ValueError(
            f"FileBacked.open({path!r}): the header gives the negative shape {shape}; "
            f"the file is damaged or not written by numpy.save. Write it again with "
            f"numpy.save(path, array)."
        )
    if math.prod(n or 1 for n in shape) * np_dtype.itemsize > _MAX_INTP:
        raise ValueError(
            f"FileBacked.open({path!r}): the header gives the shape {shape}, which no "
            f"array can have (its byte count overflows 2**63 - 1, as numpy.load also "
            f"says); the file is damaged. Write it again with numpy.save(path, array)."
        )
    size = math.prod(shape)
    expected = size * np_dtype.itemsize
    if offset + expected != file_bytes:
        raise ValueError(
            f"FileBacked.open({path!r}): the header promises a {shape} array, "
            f"{expected} bytes of data after a {offset}-byte header, but the file holds "
            f"{file_bytes} bytes in all ({file_bytes - offset} of data). The file is "
            f"truncated, padded or its header damaged; nothing was mapped or changed. "
            f"Write it again with numpy.save(path, array)."
        )
    return size


def _map_region(
    fd: int, np_dtype: np.dtype[Any], offset: int, size: int, *, writable: bool, path: str
) -> npt.NDArray[Any]:
    """Map ``size`` values at byte ``offset`` of ``fd``: a ``numpy.memmap`` that never grows.

    ``numpy.memmap(mode="r+")`` extends a file shorter than the mapping; ``mmap.mmap``
    refuses instead, so even a file truncated by someone else after the check is
    never grown.
    """
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    length = offset + size * np_dtype.itemsize - start
    access = mmap.ACCESS_WRITE if writable else mmap.ACCESS_READ
    region = mmap.mmap(fd, length, access=access, offset=start)
    array: np.memmap[Any, np.dtype[Any]] = np.ndarray.__new__(
        np.memmap, (size,), dtype=np_dtype, buffer=region, offset=offset - start
    )
    array._mmap = region  # type: ignore[attr-defined]  # numpy.memmap sets these four
    array.offset = offset
    array.mode = "r+" if writable else "r"
    array.filename = path
    return array


def _map(path: str, mode: str) -> tuple[npt.NDArray[Any], DType, tuple[int, ...]]:
    """Map the data of the ``.npy`` file at ``path``; return (flat array, DType, shape).

    Every check (regular file, header, dtype, order, length) happens before anything
    is mapped; the file is never grown, shrunk or written here.
    """
    fd = _open_regular(path, mode)
    try:
        shape, fortran, np_dtype, offset = _read_header(path, fd)
        found = _FROM_FILE.get(np_dtype.str)
        if found is None:
            raise ValueError(
                f"FileBacked.open({path!r}): the file holds {np_dtype} ({np_dtype.str!r}); "
                f"a file carrier maps little-endian float32 ('<f4', Float32) or int32 "
                f"('<i4', Int32) data. Convert it first, e.g. numpy.save(path, "
                f"numpy.load(path).astype('<f4'))."
            )
        size = _check_extent(path, shape, np_dtype, offset, os.fstat(fd).st_size)
        if fortran and sum(1 for n in shape if n != 1) > 1:
            raise ValueError(
                f"FileBacked.open({path!r}): the file stores a {shape} array in Fortran "
                f"order; its flat C-order data is not one contiguous run, so it cannot be "
                f"mapped without a copy. Rewrite it in C order: numpy.save(path, "
                f"numpy.ascontiguousarray(numpy.load(path)))."
            )
        if size == 0:
            array: npt.NDArray[Any] = np.empty(0, dtype=np_dtype)  # mmap cannot map 0 bytes
        else:
            array = _map_region(fd, np_dtype, offset, size, writable=mode == "r+", path=path)
    finally:
        os.close(fd)
    return array, found, shape


#: ``carriers._file_backed.session_directory``, registered by that module (which sits
#: above this one: ``FileBacked.open`` returns an NpyFile): it returns the session
#: directory, whose removal at exit that module owns.
SESSION_DIRECTORY: list[Callable[..., Any]] = []


def _create_owned(values: npt.NDArray[Any]) -> str:
    """Write ``values`` to a new ``.npy`` file in the session directory; return its path."""
    directory: str = SESSION_DIRECTORY[0]()
    path = os.path.join(directory, f"{uuid.uuid4().hex}.npy")
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            npy_format.write_array(handle, values, allow_pickle=False)
    except BaseException:
        _remove_owned(path, os.getpid())
        raise
    return path


def _reopen(path: str, mode: str, dtype: object, size: object) -> NpyFile:
    """Unpickle an opened file by reference, refusing a file that changed (ValueError)."""
    if not isinstance(dtype, DType) or dtype not in _NPY_CONCRETE:
        raise ValueError(f"cannot unpickle a file carrier of dtype {dtype!r}: not Float32/Int32")
    if type(size) is not int or size < 0:
        raise ValueError(f"cannot unpickle a file carrier with size {size!r}")
    carrier = NpyFile(path, mode=mode)
    if carrier.dtype() is not dtype or carrier.size() != size:
        found = (carrier.dtype(), carrier.size())
        carrier.release()
        raise ValueError(
            f"cannot unpickle the file carrier of {path!r}: it was pickled as {dtype!r} "
            f"with {size} slots, but the file now holds {found[0]!r} with {found[1]} "
            f"slots. The file changed; open it again."
        )
    return carrier


#: Live NpyFile carriers over owned session files, so that a forked child can close
#: their fast paths (as FileBacked's: the child copies before its first mutation).
_live_owned: weakref.WeakSet[NpyFile] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for carrier in list(_live_owned):
        carrier._close_fast_path()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class NpyFile(_ArrayCarrier):
    """A carrier over the data of a ``.npy`` file, mapped without a copy.

    Usually built by :meth:`FileBacked.open <stridewave.FileBacked.open>`.

    Parameters
    ----------
    path : str or os.PathLike
        An existing ``.npy`` file of dtype ``<f4`` or ``<i4``, any shape (read as its
        flat C-order data; a Fortran-ordered multi-dimensional file is refused).
    mode : {"r", "r+"}, keyword-only, default "r"
        ``"r"``: an intrinsically immutable carrier over a read-only mapping.
        ``"r+"``: a mutable carrier whose writes reach the file (shared mapping).

    Raises
    ------
    TypeError
        If ``path`` is not a path or ``mode`` not a str.
    ValueError
        If ``mode`` is not ``"r"``/``"r+"``; the path is not a regular file (a FIFO,
        a device, a directory, a socket: refused before it is opened for reading, so
        never a hang); the file is not a ``.npy`` file, holds another dtype, is
        Fortran-ordered, its header gives a negative or overflowing shape, or the
        data the header promises is not exactly what the file holds (truncated or
        padded); or it lies in a stridewave session directory (those files belong to
        FileBacked carriers). Nothing is mapped, and the file is never grown, shrunk
        or written (CONTRACT section 7, "Opened files are the user's").
    FileNotFoundError, PermissionError, OSError
        If the file cannot be opened (``"r+"`` on a read-only file: PermissionError).

    Notes
    -----
    Not a FileBacked (see the module notes): ``release()`` never deletes the file,
    pickling carries ``(path, mode, dtype, size)``. Supported storage dtypes
    (structural, as FileBacked's row): Floating, Float32, Int32. Writes through
    ``"r+"`` are shared with every other mapping of the file, other processes and
    forked children included, as with ``numpy.memmap(mode="r+")``. An owned file
    (from ``new_like``, ``allocate_like``, ``copy``) follows FileBacked's fork rule
    instead: a forked child copies it into its own session directory before its
    first write, so the parent's values never change.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _NPY_SUPPORTED
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _NPY_CONCRETE

    #: Scatter writes through to the file (mode "r+"); never an Evictable secondary: a
    #: one-move load would swap the mapping of the user's file for a copy in memory.
    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.HOST, secondary=False, exports_views=True, host_addressable=True
    )

    _path: str
    _mode: str
    _owned: bool
    _file_shape: tuple[int, ...]
    _finalizer: weakref.finalize[Any, Any] | None
    _pid: int

    def __init__(self, path: str | os.PathLike[str], *, mode: str = "r") -> None:
        chosen = _check_mode(mode)
        target = _check_path(path)
        if _session_root(target) is not None:
            raise ValueError(
                f"FileBacked.open({target!r}): that file is inside a stridewave session "
                f"directory; its files belong to FileBacked carriers (raw, removed on "
                f"release and at exit). Open a file of your own, e.g. one written by "
                f"carrier.save(path)."
            )
        array, dtype, shape = _map(target, chosen)
        self._array = array
        self._path = target
        self._mode = chosen
        self._owned = False
        self._file_shape = shape
        self._finalizer = None
        self._pid = os.getpid()
        self._init_carrier(dtype, mutable=chosen == "r+")

    @classmethod
    def _owned_file(cls, values: npt.NDArray[Any], dtype: DType, *, mutable: bool) -> Self:
        path = _create_owned(values)
        pid = os.getpid()
        try:
            array, _found, shape = _map(path, "r+" if mutable else "r")
        except BaseException:
            _remove_owned(path, pid)
            raise
        self = cls.__new__(cls)
        self._array = array
        self._path = path
        self._mode = "r+" if mutable else "r"
        self._owned = True
        self._file_shape = shape
        self._finalizer = weakref.finalize(self, _remove_owned, path, pid)
        self._pid = pid
        self._init_carrier(dtype, mutable=mutable)
        _live_owned.add(self)
        return self

    # -- fork: an owned file is copied on the child's first mutation --------------------

    def _inherited(self) -> bool:
        return self._owned and self._pid != os.getpid()

    @override
    def _fast_path_open(self) -> bool:
        return not self._inherited()

    @override
    def _before_mutation(self, action: str) -> None:
        if self._inherited():
            self._adopt_inherited()

    def _adopt_inherited(self) -> None:
        """In a forked child: copy the owned file into the child's session, then map it.

        The parent's file, its values and its cleanup stay the parent's (the rule of a
        FileBacked inherited through fork); a user's opened file is shared on purpose
        and never gets here.
        """
        path = _create_owned(np.ascontiguousarray(self._array))
        pid = os.getpid()
        try:
            array, _found, _shape = _map(path, self._mode)
        except BaseException:
            _remove_owned(path, pid)
            raise
        if self._finalizer is not None:
            self._finalizer.detach()  # the parent's file: never unlinked by the child
        self._finalizer = weakref.finalize(self, _remove_owned, path, pid)
        self._array = array
        self._path = path
        self._pid = pid
        self._bind_backend()
        self._refresh()

    # -- queries ------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The absolute path of the mapped ``.npy`` file."""
        return self._path

    @property
    def mode(self) -> str:
        """``"r"`` (read-only) or ``"r+"`` (writes reach the file)."""
        return self._mode

    @property
    def file_shape(self) -> tuple[int, ...]:
        """The array shape recorded in the file's header (the carrier is its flat data)."""
        return self._file_shape

    def owns_file(self) -> bool:
        """Return whether the file is the carrier's own (session directory, removed on release).

        Returns
        -------
        bool
            ``False`` for a file opened with :meth:`FileBacked.open`; ``True`` for the
            fresh files of ``new_like``/``allocate_like``/``copy``.
        """
        return self._owned

    def flush(self) -> None:
        """Force written slots to disk (``msync``).

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        self._require_live("flush")
        array = self._array
        if isinstance(array, np.memmap):
            array.flush()

    @override
    def _state_words(self) -> list[str]:
        return [*super()._state_words(), f"mode={self._mode!r}", f"path={self._path!r}"]

    # -- backend hooks --------------------------------------------------------------------

    @override
    def _raw_release(self) -> None:
        super()._raw_release()  # drop the mapping; exported views keep theirs
        if self._finalizer is not None:
            self._finalizer()  # only an owned session file is removed

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        np_dtype = storage_numpy_dtype(dtype, little_endian=True)
        array, _fresh = materialize(values, dtype, np_dtype, where="NpyFile.new_like", holes=True)
        return type(self)._owned_file(
            np.ascontiguousarray(array, dtype=np_dtype), dtype, mutable=mutable
        )

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        zeros = np.zeros(size, dtype=storage_numpy_dtype(dtype, little_endian=True))
        return type(self)._owned_file(zeros, dtype, mutable=mutable)

    # -- pickling and Dask ----------------------------------------------------------------

    @override
    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle an opened file by reference, an owned one by value.

        Parameters
        ----------
        protocol : int
            The pickle protocol (unused).

        Returns
        -------
        tuple
            ``(reopen, (path, mode, dtype, size))`` for an opened file (no data);
            the by-value recipe of :meth:`Carrier.__reduce_ex__` for an owned one.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        """
        if self._owned:
            return super().__reduce_ex__(protocol)
        self._require_live("pickle")
        return (_reopen, (self._path, self._mode, self._dtype, self._slots))

    @override
    def __dask_tokenize__(self) -> object:
        """Return a Dask token from the file's identity, size, version and mtime (no data)."""
        try:
            mtime = os.stat(self._path).st_mtime_ns
        except OSError:
            mtime = None
        return ("NpyFile", self._path, self._mode, self._slots, self._version, mtime)
