"""`FileBacked`: a raw little-endian numeric file in a hidden per-process directory.

Files and cleanup
-----------------
Each process that creates FileBacked storage gets one hidden session directory,
``<tempfile.gettempdir()>/.stridewave-<pid>-<start time>-<random>``, made on first
use with ``tempfile.mkdtemp`` (mode 0700). Before making it, the process removes the
directories of processes that are gone (killed with SIGKILL, say; the start time
from ``/proc/<pid>/stat`` tells a reused pid apart), never a live process's. A carrier's file lives in it and holds
``size * 4`` bytes: slot ``i`` at byte ``4 * i``, ``<f4`` or ``<i4``.

The file is removed when the carrier is released, when it is garbage collected
(``weakref.finalize``), and at interpreter exit; the directory is removed at exit
(``atexit``, and ``multiprocessing``'s exit finalizers for a multiprocessing
child, which leaves through ``os._exit``). Every cleanup path first compares ``os.getpid()`` with the pid that
created the file or directory, so a forked child (``os.fork`` or ``multiprocessing``
with the fork start method, whose exit handlers and finalizers run on recent
Pythons) never deletes its parent's files; a child that needs FileBacked storage
makes its own session directory.

Memory safety: unlinking a file does not unmap it. A NumPy view exported before
``release()`` or before a shrinking ``resize()`` keeps its mapping valid (shrinking
writes the kept prefix to a new file that replaces the old name, so the old
mapping never loses pages under it).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import multiprocessing.util
import os
import re
import shutil
import stat
import tempfile
import threading
import uuid
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from typing_extensions import Self, override

from stridewave.carriers import _messages
from stridewave.carriers._array_backed import _ArrayCarrier
from stridewave.carriers._base import check_flag, check_size
from stridewave.carriers._capabilities import Capabilities, ScatterSupport
from stridewave.carriers._normalize import materialize, storage_numpy_dtype
from stridewave.carriers._storage import validate_storage_dtype
from stridewave.dtypes import DType

if TYPE_CHECKING:
    from stridewave.carriers._npy_file import NpyFile
    from stridewave.carriers._scatter import ScatterSource
    from stridewave.layout import Layout

__all__ = ["FileBacked", "session_directory", "sweep_stale_sessions"]

_FILE_SUPPORTED: Final[tuple[DType, ...]] = (DType.Floating, DType.Float32, DType.Int32)
_FILE_CONCRETE: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32)

_lock = threading.Lock()
_session: tuple[int, str] | None = None  # (pid, directory) of this process


def _remove_session(directory: str, pid: int) -> None:
    """At-exit hook: remove the session directory, only in the process that made it."""
    if os.getpid() != pid:
        return
    shutil.rmtree(directory, ignore_errors=True)


def _remove_file(path: str, pid: int) -> None:
    """Unlink one carrier file (finalizer), only in the process that created it."""
    if os.getpid() != pid:
        return
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _start_time(pid: int) -> str | None:
    """Return process ``pid``'s start time (clock ticks since boot) or None if unknown.

    Read from field 22 of ``/proc/<pid>/stat`` (Linux). Together with the pid it names
    one process for good: a reused pid has another start time.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) "
    return fields[19].decode() if len(fields) > 19 else None


def _is_alive(pid: int, start: str | None) -> bool:
    """Return whether the process that made a session directory may still be running."""
    if start is not None and os.path.isdir("/proc"):
        return _start_time(pid) == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but belongs to someone else
        return True
    return True


_SESSION_NAME = re.compile(r"^\.stridewave-(\d+)-(?:(\d+)-)?")


def sweep_stale_sessions(directory: str | None = None) -> list[str]:
    """Remove session directories whose process is gone (e.g. killed by SIGKILL).

    Called once per process, when FileBacked storage first needs a session
    directory. A directory is stale when the process named in it is not running:
    its name encodes ``<pid>-<start time>`` (from ``/proc/<pid>/stat``), so a
    reused pid does not keep a dead process's files alive, and a live process's
    directory is never touched. Directories of other users are skipped.

    Parameters
    ----------
    directory : str or None, optional
        Where to look; ``None`` (default) means ``tempfile.gettempdir()``.

    Returns
    -------
    list of str
        The directories removed.
    """
    root = tempfile.gettempdir() if directory is None else directory
    removed: list[str] = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    me = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        match = _SESSION_NAME.match(name)
        if match is None:
            continue
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (me is not None and info.st_uid != me):
            continue
        if _is_alive(int(match.group(1)), match.group(2)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            removed.append(path)
    return removed


def session_directory() -> str:
    """Return this process's hidden FileBacked directory, creating it on first use.

    The name is ``.stridewave-<pid>-<start time>-<random>``; before creating it, the
    process sweeps stale directories of dead processes (:func:`sweep_stale_sessions`).

    Returns
    -------
    str
        Absolute path of a dot-prefixed directory under ``tempfile.gettempdir()``,
        removed at interpreter exit by the process that created it.

    Raises
    ------
    OSError
        If the directory cannot be created.
    """
    global _session
    with _lock:
        pid = os.getpid()
        if _session is None or _session[0] != pid or not os.path.isdir(_session[1]):
            if _session is None or _session[0] != pid:
                sweep_stale_sessions()
            start = _start_time(pid) or "0"
            directory = tempfile.mkdtemp(prefix=f".stridewave-{pid}-{start}-")
            atexit.register(_remove_session, directory, pid)
            # multiprocessing children leave through os._exit after running only
            # multiprocessing's own finalizers: register there as well.
            multiprocessing.util.Finalize(
                None, _remove_session, args=(directory, pid), exitpriority=0
            )
            _session = (pid, directory)
        return _session[1]


def _reserve(path: str, old_bytes: int, new_bytes: int) -> None:
    """Grow ``path`` to ``new_bytes``, reserving the disk blocks (zero-filled).

    ``posix_fallocate`` makes a full disk fail here, with ``OSError(ENOSPC)``, instead
    of as SIGBUS on a later write into a sparse mapping; a file system without it
    falls back to ``truncate`` (sparse).
    """
    fd = os.open(path, os.O_RDWR)
    try:
        if hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, old_bytes, new_bytes - old_bytes)
                return
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    raise
        os.ftruncate(fd, new_bytes)
    finally:
        os.close(fd)


def _write_all(path: str, data: npt.NDArray[Any]) -> None:
    """Write ``data``'s bytes to the start of ``path`` in a few large system calls.

    Unlike ``ndarray.tofile`` (which reports a short write without an errno), a failing
    write raises ``OSError`` with the system's errno (``ENOSPC``, ``EFBIG``).
    """
    remaining = memoryview(data).cast("B")  # type: ignore[arg-type,unused-ignore]
    with open(path, "r+b", buffering=0) as handle:
        while remaining:
            written = handle.write(remaining)
            if not written:  # a regular file never returns 0 unless the disk is full
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            remaining = remaining[written:]


def _storage_error(exc: OSError, action: str, path: str, nbytes: int) -> OSError:
    """Re-raise a file-system failure as the same errno with a message that says what to do."""
    reason = exc.strerror or str(exc)
    hint = {
        errno.ENOSPC: "the disk is full: free space in the temporary directory",
        errno.EFBIG: "the file would exceed the file-size limit (ulimit -f / RLIMIT_FSIZE)",
        errno.EDQUOT: "the disk quota is exhausted",
        errno.EMFILE: "the process is out of file descriptors (each live, non-empty "
        "FileBacked maps its file: release carriers you no longer need, or raise ulimit -n)",
    }.get(exc.errno or 0, "check the temporary directory (TMPDIR)")
    error = OSError(
        exc.errno,
        f"FileBacked could not {action} ({nbytes} bytes): {reason}; {hint}. Existing "
        f"carriers and their values are unchanged",
        path,
    )
    return error


def _deleted(path: str, action: str) -> FileNotFoundError:
    return FileNotFoundError(
        errno.ENOENT,
        f"cannot {action}: the FileBacked file was deleted or replaced behind the "
        f"library's back. Its values are still readable and writable in memory (the "
        f"mapping outlives the name); copy them with carrier.new_like(numpy.asarray("
        f"carrier)) and release this carrier",
        path,
    )


def _as_os_error(exc: BaseException) -> OSError:
    """Return ``exc`` if it is an OSError, else an ``EFBIG`` OSError (a size too large)."""
    if isinstance(exc, OSError):
        return exc
    return OSError(errno.EFBIG, f"file too large ({type(exc).__name__}: {exc})")


def _check_filename(filename: object) -> str | None:
    if filename is None:
        return None
    if not isinstance(filename, str):
        raise TypeError(
            f"FileBacked expects filename to be a str or None; got {type(filename).__name__}. "
            f"Pass a bare name like 'weights.f32'."
        )
    separators = {"/", "\\", os.sep} | ({os.altsep} if os.altsep else set())
    if (
        not filename
        or filename in (".", "..")
        or "\0" in filename
        or any(sep in filename for sep in separators)
    ):
        raise ValueError(_messages.path_component(filename))
    return filename


def _create_file(name: str | None, directory: str) -> str:
    """Create a new empty file (never replacing one) and return its path."""
    generated = name is None
    path = os.path.join(directory, name if name is not None else f"{uuid.uuid4().hex}.raw")
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    except FileExistsError:
        if generated:  # practically impossible; try a fresh name once more
            return _create_file(None, directory)
        raise FileExistsError(_messages.duplicate_file(name or "", directory)) from None
    os.close(fd)
    return path


def _identity(path: str) -> tuple[int, int]:
    """Return ``(st_dev, st_ino)`` of ``path``: which file the carrier mapped."""
    info = os.stat(path)
    return (info.st_dev, info.st_ino)


class FileBacked(_ArrayCarrier):
    """Storage in a raw little-endian file: a 1-D ``numpy.memmap``, one element per slot.

    Parameters
    ----------
    filename : str or None, optional
        Bare file name inside the hidden session directory (see
        :func:`session_directory`); ``None`` (default) generates a unique one.
    mutable : bool, optional
        Intrinsic mutability (default ``True``). An immutable carrier maps its file
        read-only.
    dtype : DType
        Required, keyword-only: ``DType.Float32`` (``<f4``) or ``DType.Int32``
        (``<i4``), 4 bytes per slot.

    Raises
    ------
    TypeError
        If ``dtype`` is missing, positional, or not a DType; ``filename`` is not a
        str; a flag is not a bool.
    ValueError
        If ``dtype`` is another descriptor (categories, Bool, compound dtypes), or
        ``filename`` has path components (a separator, ``.``, ``..``, empty).
    FileExistsError
        If ``filename`` already exists; that file is left untouched.

    Notes
    -----
    Implements "FileBacked owns a temporary raw numeric file". The carrier starts
    empty (size 0, a zero-byte file). Writes go to a shared mapping, so another
    reader of :attr:`path` sees them through the page cache; :meth:`flush` forces
    them to disk. ``release()`` unmaps (once no exported view remains) and unlinks
    the file. Every validation happens before the file is created. Supported
    storage dtypes (structural, per the spec): Floating, Float32, Int32.
    """

    _SUPPORTED_STORAGE: ClassVar[tuple[DType, ...] | None] = _FILE_SUPPORTED
    _CONSTRUCTIBLE_STORAGE: ClassVar[tuple[DType, ...] | None] = _FILE_CONCRETE

    #: No scatter (the spec: FileBacked SHALL raise NotImplementedError).
    capabilities: Capabilities = Capabilities(
        scatter=ScatterSupport.NONE, secondary=True, exports_views=True, host_addressable=True
    )

    _path: str
    _identity: tuple[int, int]
    _finalizer: weakref.finalize[Any, Any]

    def __init__(self, filename: str | None = None, *, mutable: bool = True, dtype: DType) -> None:
        if isinstance(filename, DType):
            raise TypeError(_messages.dtype_positional(filename, where="FileBacked"))
        dtype = validate_storage_dtype(dtype, carrier="FileBacked", accepted=_FILE_CONCRETE)
        flag = check_flag("mutable", mutable, where="FileBacked")
        name = _check_filename(filename)
        self._setup(name, dtype, flag, data=None, size=0)

    def _setup(
        self,
        name: str | None,
        dtype: DType,
        mutable: bool,
        *,
        data: npt.NDArray[Any] | None,
        size: int,
    ) -> None:
        """Create the file, fill it (``data``) or size it (zeros), map it, register cleanup."""
        np_dtype = storage_numpy_dtype(dtype, little_endian=True)
        path = _create_file(name, session_directory())
        pid = os.getpid()
        if data is not None:
            size = data.shape[0]
        nbytes = size * np_dtype.itemsize
        try:
            if data is not None:
                _write_all(path, np.ascontiguousarray(data, dtype=np_dtype))
            elif size:
                _reserve(path, 0, nbytes)
            self._array = self._map(path, np_dtype, size, mutable)
            self._identity = _identity(path)
        except OSError as exc:
            _remove_file(path, pid)
            raise _storage_error(exc, "create its file", path, nbytes) from exc
        except BaseException:
            _remove_file(path, pid)
            raise
        self._path = path
        self._finalizer = weakref.finalize(self, _remove_file, path, pid)
        self._init_carrier(dtype, mutable=mutable)

    @staticmethod
    def _map(path: str, np_dtype: np.dtype[Any], size: int, writable: bool) -> npt.NDArray[Any]:
        if size == 0:  # numpy.memmap cannot map an empty file
            return np.empty(0, dtype=np_dtype)
        return np.memmap(path, dtype=np_dtype, mode="r+" if writable else "r", shape=(size,))

    @property
    def path(self) -> str:
        """The absolute path of the carrier's file (``str``; the file is gone once released)."""
        return self._path

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, mode: str = "r") -> NpyFile:
        """Map an existing ``.npy`` file without a copy (CONTRACT section 8).

        The file stays the user's: ``release()`` unmaps it and never deletes it, and
        the carrier pickles by reference. The result is a :class:`NpyFile`, a kind of
        its own (docs/decisions.md, "Opening real files"): the spec's FileBacked rules
        (a file in the hidden session directory, removed on release) stay whole.

        Parameters
        ----------
        path : str or os.PathLike
            A ``.npy`` file of dtype ``<f4`` or ``<i4``, any shape (read as its flat
            C-order data).
        mode : {"r", "r+"}, keyword-only, default "r"
            Read-only (an immutable carrier), or read and write in place.

        Returns
        -------
        NpyFile
            ``size()`` is the number of elements in the file.

        Raises
        ------
        TypeError, ValueError, OSError
            As :class:`NpyFile`.
        """
        from stridewave.carriers._npy_file import NpyFile  # the kind lives there

        return NpyFile(path, mode=mode)

    def resize(self, size: int) -> None:
        """Grow or shrink the file to ``size`` slots; counts as allocation, not mutation.

        New slots read as zero; shrinking drops the trailing slots. ``version`` does
        not change.

        Parameters
        ----------
        size : int-like
            New number of slots (elements), ``>= 0``; the file holds ``4 * size`` bytes.

        Raises
        ------
        TypeError
            If ``size`` has no ``__index__``.
        ValueError
            If ``size`` is negative.
        RuntimeError
            If the carrier is released, immutable, or owned outside the owner's scope.
        FileNotFoundError
            If the file was deleted or replaced behind the library's back (nothing
            changes; the values stay readable in memory).
        OSError
            If the file cannot be resized: a full disk (``errno.ENOSPC``; growth
            reserves the blocks with ``posix_fallocate``, so it fails here rather than
            on a later write) or the file-size limit (``errno.EFBIG``). The carrier and
            its values are unchanged then.
        """
        n = check_size(size, where="FileBacked.resize")
        self._require_writable("resize")
        old = self._slots
        if n == old:
            return
        self._check_file("resize")
        np_dtype = self._array.dtype
        nbytes = n * np_dtype.itemsize
        if n > old:
            # Reserve and map before anything is committed: on any failure the file
            # goes back to its old length and the carrier keeps its old mapping.
            try:
                _reserve(self._path, old * np_dtype.itemsize, nbytes)
                mapped = self._map(self._path, np_dtype, n, True)
            except (OSError, OverflowError, MemoryError) as exc:
                with contextlib.suppress(OSError):  # give back what was reserved
                    os.truncate(self._path, old * np_dtype.itemsize)
                raise _storage_error(
                    _as_os_error(exc), "grow its file", self._path, nbytes
                ) from exc
        else:
            # Shrink through a new file that replaces the name: mappings held by
            # exported views keep the old (now unlinked) file's pages. The new file is
            # mapped before it replaces the name, so a failure (e.g. out of file
            # descriptors) leaves the carrier on its own, still-named file.
            directory = os.path.dirname(self._path)
            staging = _create_file(None, directory)
            try:
                _write_all(staging, np.ascontiguousarray(self._array[:n]))
                mapped = self._map(staging, np_dtype, n, True)
                os.replace(staging, self._path)
            except OSError as exc:
                _remove_file(staging, os.getpid())
                raise _storage_error(exc, "shrink its file", staging, nbytes) from exc
            except BaseException:
                _remove_file(staging, os.getpid())
                raise
            self._identity = _identity(self._path)
        self._array = mapped
        self._bind_backend()

    def _check_file(self, action: str) -> None:
        """Raise FileNotFoundError if the file was deleted or replaced by someone else."""
        try:
            same = _identity(self._path) == self._identity
        except FileNotFoundError:
            same = False
        if not same:
            raise _deleted(self._path, action)

    def flush(self) -> None:
        """Force written slots to disk (``msync``); a no-op for an empty file.

        Raises
        ------
        RuntimeError
            If the carrier is released.
        FileNotFoundError
            If the file was deleted or replaced behind the library's back (the
            values live on only in memory; nothing reaches :attr:`path`).
        """
        self._require_live("flush")
        array = self._array
        if isinstance(array, np.memmap):
            array.flush()
        self._check_file("flush")

    @override
    def _raw_load(self, values: npt.NDArray[Any]) -> None:
        # Write a staging file with one write() (a full disk fails here with
        # OSError(ENOSPC), never later as SIGBUS on a mapped page), then put it in
        # place with os.replace: the old file and mappings held by exported views are
        # untouched until the new file is complete.
        np_dtype = self._array.dtype
        staging = _create_file(None, os.path.dirname(self._path))
        try:
            if values.shape[0]:
                with open(staging, "r+b") as handle:
                    np.ascontiguousarray(values, dtype=np_dtype).tofile(handle)
            array = self._map(staging, np_dtype, values.shape[0], True)
            os.replace(staging, self._path)
        except BaseException:
            _remove_file(staging, os.getpid())
            raise
        self._identity = _identity(self._path)  # the file is ours, just replaced by us
        self._array = array

    @override
    def _raw_scatter(self, base: int, mapping: Layout, source: ScatterSource) -> None:
        raise NotImplementedError(
            "FileBacked does not implement scatter (spec: carrier-storage); scatter into a "
            "CPU carrier and copy with FileBacked.new_like(numpy.asarray(cpu))."
        )

    @override
    def _raw_release(self) -> None:
        super()._raw_release()
        self._finalizer()

    @override
    def _raw_new_like(self, values: object, *, mutable: bool, dtype: DType) -> Self:
        np_dtype = storage_numpy_dtype(dtype, little_endian=True)
        array, _fresh = materialize(
            values, dtype, np_dtype, where="FileBacked.new_like", holes=True
        )
        result = type(self).__new__(type(self))
        result._setup(None, dtype, mutable, data=array, size=0)
        return result

    @override
    def _raw_allocate_like(self, size: int, *, mutable: bool, dtype: DType, empty: bool) -> Self:
        # FileBacked always initializes (a sparse zero-filled file), even with empty=True.
        result = type(self).__new__(type(self))
        result._setup(None, dtype, mutable, data=None, size=size)
        return result
