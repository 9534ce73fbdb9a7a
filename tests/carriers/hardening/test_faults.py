"""Faults: a file-size limit or a full disk while creating or resizing
FileBacked storage gives a clear OSError and leaves every existing value intact; a
file deleted behind the library's back gives a clear FileNotFoundError on resize and
flush, while reads and writes go on in memory."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable

import numpy as np
import pytest

from stridewave import DType, FileBacked
from stridewave.carriers._file_backed import session_directory

F32 = DType.Float32

_LIMITED = textwrap.dedent(
    """
    import errno, os, resource, signal
    import numpy as np
    from stridewave import DType, FileBacked
    from stridewave.carriers._file_backed import session_directory

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
    LIMIT = 1 << 16  # bytes: 16384 Float32 slots
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))
    keep = FileBacked(dtype=DType.Float32).new_like(np.arange(1000, dtype=np.float32))
    keep[3] = 42.0
    directory = session_directory()
    files = sorted(os.listdir(directory))

    def expect_efbig(action):
        try:
            action()
        except OSError as exc:
            assert exc.errno == errno.EFBIG, exc
            assert "file-size limit" in str(exc) and "unchanged" in str(exc), exc
        else:
            raise AssertionError("no OSError")
        assert sorted(os.listdir(directory)) == files, "a file was left behind"
        assert keep.size() == 1000 and keep[3] == 42.0 and keep[999] == 999.0
        assert keep.version == 1
        assert os.path.getsize(keep.path) == 4000

    expect_efbig(lambda: keep.new_like(np.zeros(1 << 15, dtype=np.float32)))
    expect_efbig(lambda: keep.new_like([0.0] * (1 << 15)))
    expect_efbig(lambda: keep.allocate_like(1 << 15))
    expect_efbig(lambda: keep.resize(1 << 15))
    keep.resize(2000)  # within the limit: still works
    assert keep[3] == 42.0 and keep[1999] == 0.0
    print("ok")
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE semantics of Linux")
def test_file_size_limit_gives_efbig_and_keeps_values() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok"]


def _full_disk(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_on_allocate_and_resize_keeps_values(monkeypatch: pytest.MonkeyPatch) -> None:
    keep = FileBacked(dtype=F32).new_like([1.0, 2.0, 3.0])
    files = sorted(os.listdir(session_directory()))
    monkeypatch.setattr(os, "posix_fallocate", _full_disk)
    for action in (lambda: keep.allocate_like(10), lambda: keep.resize(10)):
        with pytest.raises(OSError, match="disk is full") as info:
            action()
        assert info.value.errno == errno.ENOSPC
        assert list(keep) == [1.0, 2.0, 3.0] and keep.size() == 3
        assert os.path.getsize(keep.path) == 12
        assert sorted(os.listdir(session_directory())) == files
    keep.release()


def test_file_deleted_behind_the_library() -> None:
    carrier = FileBacked(dtype=DType.Int32).new_like([1, 2, 3])
    view = np.asarray(carrier)
    os.unlink(carrier.path)
    carrier[0] = 7  # reads and writes go on in the mapping (documented)
    assert list(carrier) == [7, 2, 3] and view[0] == 7
    actions: tuple[tuple[Callable[[], object], str], ...] = (
        (lambda: carrier.resize(5), "resize"),
        (carrier.flush, "flush"),
    )
    for action, name in actions:
        with pytest.raises(FileNotFoundError, match="deleted or replaced") as info:
            action()
        assert info.value.errno == errno.ENOENT and name in str(info.value)
        assert carrier.size() == 3 and not os.path.exists(carrier.path)
    assert list(carrier.new_like(np.asarray(carrier))) == [7, 2, 3]
    carrier.release()  # still fine: nothing to unlink
    assert carrier.is_released()


def test_file_replaced_behind_the_library_is_detected() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.0])
    os.unlink(carrier.path)
    with open(carrier.path, "wb") as handle:  # someone else's file under the same name
        handle.write(b"\0" * 64)
    with pytest.raises(FileNotFoundError, match="replaced"):
        carrier.resize(2)
    assert os.path.getsize(carrier.path) == 64  # the stranger's file is untouched
    carrier.release()
