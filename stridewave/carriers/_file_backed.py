"""`FileBacked`: a raw little-endian numeric file in a hidden per-process directory.

Files and cleanup (CONTRACT section 7; docs/threads-and-processes.md)
---------------------------------------------------------------------
Each process that creates FileBacked storage gets one hidden session directory,
``<tempfile.gettempdir()>/.stridewave-<pid>-<random>`` (mode 0700), made on first use.
The process holds an exclusive ``flock`` on the file ``lock`` inside it for as long as
it lives: the kernel drops that lock when the process dies, whatever the death, so
the lock (never the pid in the name) tells a live directory from a stale one. The
directory is built under a temporary name (``.stridewave~...``) and renamed only once
its lock is held. Before making it, the process removes every session directory
whose lock it can take (:func:`sweep_stale_sessions`).

Files are created and reopened relative to the directory's file descriptor with
``O_NOFOLLOW`` (a symlink put in place of the directory or of a file is never
followed); names are exact ``str``. A carrier's file holds ``size * 4`` bytes: slot
``i`` at byte ``4 * i``, ``<f4`` or ``<i4``.

The file is removed when the carrier is released, when it is garbage collected
(``weakref.finalize``), and at interpreter exit; the directory is removed at exit
(``atexit``, and ``multiprocessing``'s exit finalizers for a multiprocessing child,
which leaves through ``os._exit``). A directory made while the exit hooks run (by a
hook registered before ``import stridewave``, which runs after ours) works as any; it
is removed when this module is torn down, after every exit hook (:class:`_Reaper`). Only the process that created a file or the
directory deletes it. A FileBacked inherited by a forked child copies its values into
the child's own session directory on the child's first mutation or move, so the
child never writes, resizes or truncates the parent's file.

Memory safety: unlinking a file does not unmap it, and the library never shrinks in
place a file another mapping may use: shrinking writes the kept prefix to a new file
that replaces the name; a failed growth gives back only what it added, beyond every
mapping of the file.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import multiprocessing.util
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
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
from stridewave.carriers._npy_file import SESSION_DIRECTORY, NpyFile
from stridewave.carriers._storage import validate_storage_dtype
from stridewave.dtypes import DType

if TYPE_CHECKING:
    from stridewave.carriers._scatter import ScatterSource
    from stridewave.layout import Layout

__all__ = ["FileBacked", "session_directory", "sweep_stale_sessions"]

_FILE_SUPPORTED: Final[tuple[DType, ...]] = (DType.Floating, DType.Float32, DType.Int32)
_FILE_CONCRETE: Final[tuple[DType, ...]] = (DType.Float32, DType.Int32)

_PREFIX: Final = ".stridewave-"
_STAGING_PREFIX: Final = ".stridewave~"
_LOCK_NAME: Final = "lock"
#: A directory still under construction is left alone for this long (seconds).
_STAGING_GRACE: Final = 300.0
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
#: The largest file, in bytes, a FileBacked may ask for (an ``off_t``).
_MAX_BYTES: Final = 2**63 - 1


class _Session:
    """One process's session directory: path, an fd on it, and the fd holding its lock."""

    __slots__ = ("closed", "fd", "lock_fd", "path", "pid")

    def __init__(self, path: str, fd: int, lock_fd: int) -> None:
        self.path = path
        self.fd = fd
        self.lock_fd = lock_fd
        self.pid = os.getpid()
        self.closed = False

    def usable(self) -> bool:
        """Whether new files may go here: ours, open, still named ``path``, not deleted."""
        if self.closed or self.pid != os.getpid():
            return False
        try:
            held = os.fstat(self.fd)
            named = os.lstat(self.path)
        except OSError:
            return False
        return held.st_nlink > 0 and os.path.samestat(held, named)

    def close(self) -> None:
        """Remove the directory (only in the process that made it) and let its lock go."""
        if self.closed:
            return
        self.closed = True
        if self.pid == os.getpid():
            with contextlib.suppress(OSError):
                if os.path.samestat(os.fstat(self.fd), os.lstat(self.path)):
                    shutil.rmtree(self.path, ignore_errors=True)
        for fd in (self.lock_fd, self.fd):
            with contextlib.suppress(OSError):
                os.close(fd)


_lock = threading.Lock()  # guards _session and _swept (reset in a forked child)
_session: _Session | None = None
_swept = False
_shutting_down = False


class _Reaper:
    """Removes every session directory this process made when the module is torn down.

    ``atexit`` never runs a hook registered while the hooks run, so a session made by
    an exit hook (one registered before ``import stridewave`` runs after ours) has no
    hook of its own. Interpreter finalization drops this module's globals after every
    exit hook has run; this object's ``__del__`` then removes the directories still
    there (a no-op for those the exit hooks removed, and in a forked child for the
    parent's). By then module globals may be gone, so it uses only the system calls it
    captured when it was made. Files still mapped stay readable and writable in memory.
    """

    __slots__ = ("_calls", "sessions")

    def __init__(self) -> None:
        self.sessions: list[_Session] = []
        self._calls = (os.getpid, os.fstat, os.lstat, os.listdir, os.unlink, os.rmdir, os.close)

    def __del__(self) -> None:
        getpid, fstat, lstat, listdir, unlink, rmdir, close = self._calls
        for session in self.sessions:
            if session.closed:
                continue
            session.closed = True
            try:
                if session.pid == getpid():
                    held, named = fstat(session.fd), lstat(session.path)
                    if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                        for name in listdir(session.fd):  # files only: the layout is flat
                            unlink(name, dir_fd=session.fd)
                        rmdir(session.path)
            except OSError:
                pass
            for fd in (session.lock_fd, session.fd):
                try:  # (contextlib may be gone by now)  # noqa: SIM105
                    close(fd)
                except OSError:
                    pass


_reaper = _Reaper()
#: Live FileBacked carriers, so that a forked child can close their fast paths.
_live: weakref.WeakSet[FileBacked] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    global _lock, _session, _swept
    _lock = threading.Lock()
    inherited = _session
    _session = None
    _swept = True  # the parent swept; the child need not
    if inherited is not None:
        # The parent's lock stays held through the parent's own descriptor: closing
        # the child's copy keeps the parent's directory's liveness the parent's alone.
        with contextlib.suppress(OSError):
            os.close(inherited.lock_fd)
    for carrier in list(_live):
        # Writes and moves take the locked path, which copies the file first; so do
        # those through every composite above it (whose fast path writes into this
        # carrier's mapping directly).
        carrier._close_fast_path()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _at_exit(session: _Session) -> None:
    """Exit hook: remove the session directory (only in the process that made it)."""
    global _shutting_down
    if session.pid != os.getpid():
        return
    _shutting_down = True
    session.close()


def _exit_started() -> None:
    """Exit hook registered at import: from here on, a new session is the reaper's alone.

    ``atexit`` runs its hooks last registered first, so this one runs before every
    hook registered before ``import stridewave``. Such a hook may make a FileBacked
    after every cleanup hook of ours has run (or before any was registered: a
    session directory made during ``atexit`` registers hooks that never run); its
    session is removed by :class:`_Reaper` when the module is torn down. Hooks
    registered after the import run before this one; a session they make is removed
    by ``multiprocessing``'s exit hook, which runs after this one.
    """
    global _shutting_down
    _shutting_down = True


atexit.register(_exit_started)


def _remove_file(session: _Session, name: str, pid: int) -> None:
    """Unlink one carrier file (finalizer), only in the process that created it."""
    if os.getpid() != pid or session.closed:
        return
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=session.fd)


def _open_dir(path: str) -> int:
    return os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)


def _try_remove_stale(root: str, name: str) -> bool:
    """Remove ``root/name`` if its lock can be taken (its process is gone)."""
    path = os.path.join(root, name)
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    if name.startswith(_STAGING_PREFIX) and time.time() - info.st_mtime < _STAGING_GRACE:
        return False  # maybe still being built by a live process
    try:
        fd = _open_dir(path)
    except OSError:
        return False
    try:
        try:
            lock_fd = os.open(_LOCK_NAME, os.O_RDWR | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
        except OSError:
            return False  # no lock file: not provably stale (an old or foreign layout)
        try:
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # held: the directory is live
            if not os.path.samestat(os.fstat(fd), os.lstat(path)):
                return False  # replaced meanwhile
            shutil.rmtree(path, ignore_errors=True)
            return not os.path.lexists(path)
        finally:
            os.close(lock_fd)
    finally:
        os.close(fd)


def sweep_stale_sessions(directory: str | None = None) -> list[str]:
    """Remove session directories whose process is gone (e.g. killed by SIGKILL).

    Called once per process, when FileBacked storage first needs a session
    directory. A directory is stale when the exclusive lock its process held on the
    file ``lock`` inside it can be taken: the kernel released it when that process
    died, whatever the death (SIGKILL, SIGTERM, ``os._exit``, a terminated
    ``multiprocessing.Pool`` worker). Process ids are never consulted, so PID
    namespaces, containers sharing the directory, reused ids and stray names cannot
    make it delete a live directory or fail. Directories of other users, symlinks,
    and directories without a lock file are skipped; a directory under
    construction (``.stridewave~...``) is skipped for its first five minutes.

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
    for name in names:
        if not name.startswith((_PREFIX, _STAGING_PREFIX)):
            continue
        if _try_remove_stale(root, name):
            removed.append(os.path.join(root, name))
    return removed


def _new_session() -> _Session:
    """Create, lock and publish a fresh session directory (see the module notes)."""
    root = tempfile.gettempdir()
    staging = tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=root)  # mode 0700
    fd = lock_fd = -1
    try:
        fd = _open_dir(staging)
        lock_fd = os.open(
            _LOCK_NAME, os.O_CREAT | os.O_EXCL | os.O_RDWR | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=fd
        )
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        final = os.path.join(root, f"{_PREFIX}{os.getpid()}-{os.path.basename(staging)[12:]}")
        os.rename(staging, final)
    except BaseException:
        for held in (lock_fd, fd):
            if held >= 0:
                os.close(held)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _Session(final, fd, lock_fd)


def _current_session() -> _Session:
    """Return this process's usable session, creating it (and sweeping once) if needed."""
    global _session, _swept
    with _lock:
        session = _session
        if session is not None and session.usable():
            return session
        if not _swept:
            _swept = True
            sweep_stale_sessions()
        session = _new_session()
        _session = session
        _reaper.sessions.append(session)  # whatever runs at exit, the teardown removes it
        if _shutting_down or sys.is_finalizing():
            return session  # exit hooks registered now never run
        atexit.register(_at_exit, session)
        # multiprocessing children leave through os._exit after running only
        # multiprocessing's own finalizers: register there as well.
        multiprocessing.util.Finalize(None, _at_exit, args=(session,), exitpriority=0)
        return session


def session_directory() -> str:
    """Return this process's hidden FileBacked directory, creating it on first use.

    The name is ``.stridewave-<pid>-<random>`` (the pid is for people; liveness is
    the lock, see :func:`sweep_stale_sessions`); before creating it, the process
    sweeps stale directories of dead processes.

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
    return _current_session().path


SESSION_DIRECTORY[:] = [session_directory]  # NpyFile's owned files too


def _reserve(fd: int, old_bytes: int, new_bytes: int) -> None:
    """Grow the open file ``fd`` to ``new_bytes``, reserving the disk blocks (zero-filled).

    ``posix_fallocate`` makes a full disk fail here, with ``OSError(ENOSPC)``, instead
    of as SIGBUS on a later write into a sparse mapping; a file system without it
    falls back to ``ftruncate`` (sparse).
    """
    if hasattr(os, "posix_fallocate"):
        try:
            os.posix_fallocate(fd, old_bytes, new_bytes - old_bytes)
            return
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                raise
    os.ftruncate(fd, new_bytes)


def _write_all(fd: int, data: npt.NDArray[Any]) -> None:
    """Write ``data``'s bytes to the start of the open file ``fd`` in large system calls.

    Unlike ``ndarray.tofile`` (which reports a short write without an errno), a failing
    write raises ``OSError`` with the system's errno (``ENOSPC``, ``EFBIG``).
    """
    # (its bytes, through a uint8 view: ml_dtypes' bfloat16 has no buffer format)
    remaining = memoryview(data.reshape(-1).view(np.uint8))  # type: ignore[arg-type,unused-ignore]
    offset = 0
    while remaining:
        written = os.pwrite(fd, remaining[: 1 << 30], offset)
        if not written:  # a regular file never returns 0 unless the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        remaining = remaining[written:]
        offset += written


def _storage_error(exc: BaseException, action: str, path: str, nbytes: int) -> OSError:
    """Return a file-system failure as the same errno with a message that says what to do.

    A non-``OSError`` (``OverflowError``, ``MemoryError`` of a size too large for the
    file system or the address space) becomes ``EFBIG``.
    """
    if isinstance(exc, OSError):
        code, reason = exc.errno, exc.strerror or str(exc)
    else:
        code, reason = errno.EFBIG, f"file too large ({type(exc).__name__}: {exc})"
    hint = {
        errno.ENOSPC: "the disk is full: free space in the temporary directory",
        errno.EFBIG: "the file would exceed the file-size limit (ulimit -f / RLIMIT_FSIZE) "
        "or what the file system can hold",
        errno.EDQUOT: "the disk quota is exhausted",
        errno.EMFILE: "the process is out of file descriptors (each live, non-empty "
        "FileBacked maps its file: release carriers you no longer need, or raise ulimit -n)",
    }.get(code or 0, "check the temporary directory (TMPDIR)")
    return OSError(
        code,
        f"FileBacked could not {action} ({nbytes} bytes): {reason}; {hint}. Existing "
        f"carriers and their values are unchanged",
        path,
    )


def _too_large(nbytes: int, action: str, path: str) -> OSError:
    return _storage_error(OverflowError(f"{nbytes} bytes exceed 2**63 - 1"), action, path, nbytes)


def _deleted(path: str, action: str) -> FileNotFoundError:
    return FileNotFoundError(
        errno.ENOENT,
        f"cannot {action}: the FileBacked file was deleted or replaced behind the "
        f"library's back. Its values are still readable and writable in memory (the "
        f"mapping outlives the name); copy them with carrier.new_like(numpy.asarray("
        f"carrier)) and release this carrier",
        path,
    )


def _check_filename(filename: object) -> str | None:
    if filename is None:
        return None
    if type(filename) is not str:  # exact str: a subclass could lie about its contents
        raise TypeError(
            f"FileBacked expects filename to be a str or None; got {type(filename).__name__}. "
            f"Pass a bare name like 'weights.f32' (an exact str, not a subclass)."
        )
    name = str.__str__(filename)
    separators = {"/", "\\", os.sep} | ({os.altsep} if os.altsep else set())
    if (
        not name
        or name in (".", "..", _LOCK_NAME)
        or "\0" in name
        or any(str.__contains__(name, sep) for sep in separators)
    ):
        raise ValueError(_messages.path_component(name))
    return name


def _create_file(name: str | None, session: _Session) -> tuple[str, int]:
    """Create a new empty file in the session (never replacing one, never following links).

    Returns the name and an open read-write descriptor (the caller closes it).
    """
    chosen = name if name is not None else f"{uuid.uuid4().hex}.raw"
    flags = os.O_CREAT | os.O_EXCL | os.O_RDWR | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(chosen, flags, 0o600, dir_fd=session.fd)
    except FileExistsError:
        if name is None:  # practically impossible; try a fresh name once more
            return _create_file(None, session)
        raise FileExistsError(_messages.duplicate_file(name, session.path)) from None
    return chosen, fd


def _map_fd(fd: int, np_dtype: np.dtype[Any], size: int, writable: bool) -> npt.NDArray[Any]:
    """Map ``size`` slots of the open file ``fd`` (an empty array for size 0)."""
    if size == 0:  # numpy.memmap cannot map an empty file
        return np.empty(0, dtype=np_dtype)
    with os.fdopen(os.dup(fd), "r+b" if writable else "rb") as handle:
        return np.memmap(handle, dtype=np_dtype, mode="r+" if writable else "r", shape=(size,))


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

    _session: _Session
    _name: str
    _pid: int
    _identity: tuple[int, int]
    _finalizer: weakref.finalize[Any, Any]

    def __init__(self, filename: str | None = None, *, mutable: bool = True, dtype: DType) -> None:
        if isinstance(filename, DType):
            raise TypeError(_messages.dtype_positional(filename, where="FileBacked"))
        dtype = validate_storage_dtype(
            dtype,
            carrier="FileBacked",
            accepted=type(self)._CONSTRUCTIBLE_STORAGE or _FILE_CONCRETE,
        )
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
        if data is not None:
            size = data.shape[0]
        nbytes = size * np_dtype.itemsize
        if nbytes > _MAX_BYTES:  # before anything is created
            raise _too_large(nbytes, "create its file", tempfile.gettempdir())
        session = _current_session()
        self._place(session, name, np_dtype, data=data, size=size, writable=mutable)
        self._init_carrier(dtype, mutable=mutable)

    def _place(
        self,
        session: _Session,
        name: str | None,
        np_dtype: np.dtype[Any],
        *,
        data: npt.NDArray[Any] | None,
        size: int,
        writable: bool,
    ) -> None:
        """Create a file in ``session`` holding ``data`` (or ``size`` zeros) and bind it.

        All or nothing: on failure the new file is removed and the carrier's current
        file, mapping and cleanup are untouched.
        """
        if data is not None:
            size = data.shape[0]
        chosen, fd = _create_file(name, session)
        pid = os.getpid()
        nbytes = size * np_dtype.itemsize
        path = os.path.join(session.path, chosen)
        try:
            try:
                if data is not None:
                    _write_all(fd, np.ascontiguousarray(data, dtype=np_dtype))
                elif size:
                    _reserve(fd, 0, nbytes)
                array = _map_fd(fd, np_dtype, size, writable)
                info = os.fstat(fd)
            finally:
                os.close(fd)
        except (OSError, OverflowError, MemoryError) as exc:
            _remove_file(session, chosen, pid)
            raise _storage_error(exc, "create its file", path, nbytes) from exc
        except BaseException:
            _remove_file(session, chosen, pid)
            raise
        old = getattr(self, "_finalizer", None)
        self._array = array
        self._session = session
        self._name = chosen
        self._pid = pid
        self._identity = (info.st_dev, info.st_ino)
        self._finalizer = weakref.finalize(self, _remove_file, session, chosen, pid)
        if old is not None:
            old.detach()  # the previous file is another process's (fork) or replaced
        _live.add(self)

    @property
    def path(self) -> str:
        """The absolute path of the carrier's file (``str``; the file is gone once released).

        After a fork, the child's first mutation moves the carrier to a file in the
        child's own session directory, and ``path`` names that file from then on.
        """
        return os.path.join(self._session.path, self._name)

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
        with self._move("resize"):
            self._resize(n)

    def _resize(self, n: int) -> None:
        """Resize under the lock, the fast path closed, this thread admitted, adopted."""
        old = self._slots
        if n == old:
            return
        self._check_file("resize")
        np_dtype = self._array.dtype
        nbytes = n * np_dtype.itemsize
        session, name = self._session, self._name
        if nbytes > _MAX_BYTES:
            raise _too_large(nbytes, "grow its file", self.path)
        if n > old:
            # Grow in place (the file only ever grows in place: mappings of it, the
            # carrier's and exported views', all lie within its committed length).
            # Reserve and map before anything is committed; on failure give back only
            # what this call added, beyond every mapping.
            old_bytes = old * np_dtype.itemsize
            fd = os.open(name, os.O_RDWR | _NOFOLLOW | _CLOEXEC, dir_fd=session.fd)
            try:
                try:
                    _reserve(fd, old_bytes, nbytes)
                    mapped = _map_fd(fd, np_dtype, n, True)
                except (OSError, OverflowError, MemoryError) as exc:
                    with contextlib.suppress(OSError):
                        if os.fstat(fd).st_size > old_bytes:
                            os.ftruncate(fd, old_bytes)
                    raise _storage_error(exc, "grow its file", self.path, nbytes) from exc
            finally:
                os.close(fd)
            self._array = mapped
        else:
            # Shrink through a new file that replaces the name: mappings held by
            # exported views (and by a forked parent or child) keep the old file's
            # pages. The new file is mapped before it replaces the name.
            self._replace_file(self._array[:n], "shrink its file")
        self._bind_backend()

    def _check_file(self, action: str) -> None:
        """Raise FileNotFoundError if the file was deleted or replaced by someone else."""
        try:
            info = os.stat(self._name, dir_fd=self._session.fd, follow_symlinks=False)
            same = (info.st_dev, info.st_ino) == self._identity
        except (OSError, ValueError):
            same = False
        if not same:
            raise _deleted(self.path, action)

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
        with self._locked():
            self._require_live("flush")
            array = self._array
            if isinstance(array, np.memmap):
                array.flush()
            self._check_file("flush")

    # -- fork: copy on the child's first mutation ---------------------------------------

    def _inherited(self) -> bool:
        return self._pid != os.getpid()

    @override
    def _fast_path_open(self) -> bool:
        return not self._inherited()

    @override
    def _before_mutation(self, action: str) -> None:
        if self._inherited():
            self._adopt_inherited(copy=True)

    def _adopt_inherited(self, *, copy: bool) -> None:
        """In a forked child: move to a file of our own (a copy of the values, if asked).

        The parent's file is never written, resized or unlinked by the child; the
        child's mapping of it is dropped from the carrier (views keep theirs).
        """
        values = self._array if copy else self._array[:0]
        self._place(
            _current_session(),
            None,
            self._array.dtype,
            data=np.ascontiguousarray(values),
            size=0,
            writable=True,
        )
        self._bind_backend()
        self._refresh()

    @override
    def _raw_load(self, values: npt.NDArray[Any]) -> None:
        # Write a staging file completely with the careful writer (a full disk or the
        # file-size limit fails here with OSError(ENOSPC/EFBIG), never later as SIGBUS
        # on a mapped page), then put it in place with os.replace: the old file and
        # mappings held by exported views are untouched until the new file is complete.
        if self._inherited():
            self._adopt_inherited(copy=False)
        self._replace_file(values, "write its file")

    def _replace_file(self, values: npt.NDArray[Any], action: str) -> None:
        """Write ``values`` to a staging file, map it, then rename it over this file.

        The one way the file is rewritten (a shrink, a secondary's load): the old file,
        and every mapping of it held by exported views or another process, stay intact
        until the new one is complete and mapped. On failure the staging file is removed
        and nothing changes; ``action`` names the step in the ``OSError`` message.
        """
        np_dtype = self._array.dtype
        session, name = self._session, self._name
        nbytes = values.shape[0] * np_dtype.itemsize
        staging, fd = _create_file(None, session)
        try:
            try:
                if values.shape[0]:
                    _write_all(fd, np.ascontiguousarray(values, dtype=np_dtype))
                array = _map_fd(fd, np_dtype, values.shape[0], True)
                info = os.fstat(fd)
            finally:
                os.close(fd)
            os.replace(staging, name, src_dir_fd=session.fd, dst_dir_fd=session.fd)
        except (OSError, OverflowError, MemoryError) as exc:
            _remove_file(session, staging, os.getpid())
            raise _storage_error(exc, action, self.path, nbytes) from exc
        except BaseException:
            _remove_file(session, staging, os.getpid())
            raise
        self._identity = (info.st_dev, info.st_ino)  # the file is ours, just replaced by us
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
