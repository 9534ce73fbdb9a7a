"""Processes (issue 13, CONTRACT section 7): fork, killed and terminated processes,
PID namespaces, full disks and file-size limits.

Every scenario runs in a fresh interpreter with a private ``TMPDIR`` (so session
directories of this test run and of other processes never mix), and reports ``ok``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux semantics")
has_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

_PRELUDE = """
import errno, os, signal, sys, threading, time
import numpy as np
from stridewave import CPU, DType, Evictable, FileBacked, Generic, Layout, Tensor
from stridewave.carriers._file_backed import session_directory, sweep_stale_sessions
F32 = DType.Float32

def in_child(body, timeout=30):
    # Run body() in a forked child; return its exit status (0: body returned).
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(timeout)  # a deadlocked child dies instead of hanging the test
            body()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status
"""


def run(script: str, tmp: Path, *, timeout: float = 120, prefix: list[str] | None = None) -> str:
    """Run ``script`` after the prelude in a fresh interpreter with TMPDIR=tmp."""
    env = dict(os.environ, TMPDIR=str(tmp))
    command = [*(prefix or []), sys.executable, "-c", _PRELUDE + textwrap.dedent(script)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


# -- fork ---------------------------------------------------------------------------------


@has_fork
def test_fork_while_another_thread_is_inside_evict_never_deadlocks_the_child(
    tmp_path: Path,
) -> None:
    out = run(
        """
        e = Evictable(CPU(0).new_like(np.arange(200_000, dtype=np.float32)),
                      FileBacked(dtype=F32))
        stop = threading.Event()
        def mover():
            while not stop.is_set():
                e.evict(); e.promote()
        thread = threading.Thread(target=mover)
        thread.start()
        statuses = []
        for _ in range(8):  # fork at arbitrary points of the move loop
            time.sleep(0.003)
            def child():
                e.promote(); e.evict(); e.promote()
                e[7] = 70.0
                assert e[7] == 70.0 and e[199_999] == 199_999.0 and e.size() == 200_000
            statuses.append(in_child(child))
        stop.set(); thread.join()
        assert statuses == [0] * 8, statuses
        assert e[7] == 7.0  # the children's writes stayed in the children
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


@has_fork
def test_forked_child_never_changes_the_parents_file(tmp_path: Path) -> None:
    out = run(
        """
        f = FileBacked(dtype=F32).new_like(np.arange(1000, dtype=np.float32))
        path, parent_dir = f.path, session_directory()
        def child():
            f[0] = -1.0                       # first mutation: copy into our own file
            assert f.path != path and not f.path.startswith(parent_dir)
            assert f[0] == -1.0 and f[999] == 999.0
            f.resize(10)                      # shrink, grow, fail: all in our file
            f.resize(100_000)
            try:
                f.resize(2**60)
            except OSError:
                pass
            f.release()
        assert in_child(child) == 0
        assert f.path == path and os.path.getsize(path) == 4000
        assert f[0] == 0.0 and f[999] == 999.0
        assert np.fromfile(path, "<f4")[:3].tolist() == [0.0, 1.0, 2.0]
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


@has_fork
def test_a_childs_failed_resize_never_truncates_what_the_parent_grew(tmp_path: Path) -> None:
    out = run(
        """
        f = FileBacked(dtype=F32).new_like(np.ones(10, dtype=np.float32))
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.read(read, 1)                  # wait for the parent to grow the file
            try:
                f.resize(2**40)               # fails (or succeeds) in the child's own file
            except OSError:
                pass
            os._exit(0)
        f.resize(100_000)
        f[99_999] = 5.0
        os.write(write, b"x")
        os.waitpid(pid, 0)
        assert f[99_999] == 5.0 and f[0] == 1.0   # no SIGBUS, no zeros
        assert os.path.getsize(f.path) == 400_000
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


@has_fork
def test_evictable_over_filebacked_moves_in_the_child_leave_the_parent_alone(
    tmp_path: Path,
) -> None:
    out = run(
        """
        e = Evictable(CPU(0).new_like(np.arange(100, dtype=np.float32)), FileBacked(dtype=F32))
        e.evict()
        secondary_path = e.secondary.path
        def child():
            e[3] = 33.0          # pages in: the parent's secondary file is not emptied
            e.evict()            # into a file of the child's own
            assert e.secondary.path != secondary_path
            assert e[3] == 33.0
        assert in_child(child) == 0
        assert os.path.getsize(secondary_path) == 400
        assert e.is_evicted() and e[3] == 3.0
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]
