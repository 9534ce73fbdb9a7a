"""Processes (CONTRACT section 7): fork, killed and terminated processes,
PID namespaces, full disks and file-size limits.

Every scenario runs in a fresh interpreter with a private ``TMPDIR`` (so session
directories of this test run and of other processes never mix), and reports ``ok``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.metal_scripts import in_child_source

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux semantics")
has_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

_PRELUDE = (
    in_child_source(timeout=30)
    + """
import errno, os, signal, sys, threading, time
import numpy as np
from stridewave import CPU, DType, Evictable, FileBacked, Generic, Layout, Tensor
from stridewave.carriers._file_backed import session_directory, sweep_stale_sessions
F32 = DType.Float32

def _fail_growth_beyond(nbytes):
    # A growth that fails at once (EFBIG under RLIMIT_FSIZE, SIGXFSZ ignored) and
    # reserves nothing: a multi-TiB resize would fill the disk while posix_fallocate
    # runs, failing every other process's writes on it
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
"""
)


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
            _fail_growth_beyond(1 << 20)
            try:
                f.resize(2**20)               # 4 MiB past the 1 MiB limit: EFBIG
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
            _fail_growth_beyond(1 << 20)
            try:
                f.resize(2**20)               # fails in the child's own file (EFBIG)
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


@has_fork
def test_fork_with_no_thread_in_flight_keeps_every_kind_usable(tmp_path: Path) -> None:
    out = run(
        """
        carriers = [CPU(4), Generic([1.0, 2.0], dtype=F32), FileBacked(dtype=F32).new_like([1.0]),
                    Evictable(CPU(2), FileBacked(dtype=F32))]
        def child():
            for c in carriers:
                c[0] = 9.0
                assert c[0] == 9.0 and c.version == 1
                c.release()
        assert in_child(child) == 0
        assert [c[0] for c in carriers] == [0.0, 1.0, 1.0, 0.0]
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


# -- deaths and the sweep -------------------------------------------------------------------

_HOLD = """
from stridewave import DType, FileBacked
from stridewave.carriers._file_backed import session_directory
carrier = FileBacked(dtype=DType.Float32).new_like([1.0, 2.0])
print(session_directory(), flush=True)
import sys
sys.stdin.readline()
"""


def _start_holder(tmp: Path, prefix: list[str] | None = None) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, TMPDIR=str(tmp))
    holder = subprocess.Popen(
        [*(prefix or []), sys.executable, "-c", _HOLD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert holder.stdout is not None
    return holder, holder.stdout.readline().strip()


@linux_only
@pytest.mark.parametrize("death", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_process_leaves_its_directory_to_the_next_sweep(
    tmp_path: Path, death: signal.Signals
) -> None:
    holder, directory = _start_holder(tmp_path)
    assert os.path.isdir(directory)
    holder.send_signal(death)
    holder.communicate(timeout=60)  # waits, and closes the pipes
    assert os.path.isdir(directory)  # no cleanup ran
    out = run("FileBacked(dtype=F32); print(sorted(os.listdir(os.environ['TMPDIR'])))", tmp_path)
    assert os.path.basename(directory) not in out
    assert not os.path.exists(directory)


@linux_only
def test_terminated_pool_workers_leave_directories_that_the_sweep_removes(tmp_path: Path) -> None:
    out = run(
        """
        import multiprocessing
        def work(_):
            FileBacked(dtype=F32).new_like([1.0])
            time.sleep(60)
        if __name__ == "__main__":
            ctx = multiprocessing.get_context("fork")
            pool = ctx.Pool(2)
            pool.map_async(work, range(2))
            root = os.environ["TMPDIR"]
            deadline = time.time() + 30
            while time.time() < deadline:
                found = [n for n in os.listdir(root) if n.startswith(".stridewave-")]
                if len(found) >= 2:
                    break
                time.sleep(0.05)
            pool.terminate(); pool.join()
            left = [n for n in os.listdir(root) if n.startswith(".stridewave-")]
            assert len(left) >= 2, left   # SIGTERM ran no cleanup in the workers
            removed = sweep_stale_sessions()
            assert sorted(os.path.basename(p) for p in removed) == sorted(left)
            print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


@linux_only
def test_a_process_in_another_pid_namespace_never_sweeps_a_live_directory(
    tmp_path: Path,
) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--pid", "--fork", "true"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"unshare --pid is not allowed here: {probe.stderr!r}")
    holder, directory = _start_holder(tmp_path)
    try:
        # pid 1, 2... in the namespace: ids mean nothing across it; only the lock counts
        out = run(
            "FileBacked(dtype=F32); print(os.getpid(), sweep_stale_sessions())",
            tmp_path,
            prefix=["unshare", "--user", "--map-root-user", "--pid", "--fork"],
        )
        assert directory not in out
        assert os.path.isdir(directory) and os.listdir(directory)
    finally:
        assert holder.stdin is not None
        holder.communicate("\n", timeout=60)
    assert not os.path.exists(directory)


def test_stray_names_never_break_the_sweep_or_filebacked(tmp_path: Path) -> None:
    (tmp_path / ".stridewave-99999999999-old").mkdir()
    (tmp_path / ".stridewave-x").write_text("a file")
    os.symlink("/", tmp_path / ".stridewave-1-root")
    out = run("f = FileBacked(dtype=F32).new_like([1.0]); print('ok', f[0])", tmp_path)
    assert out.split() == ["ok", "1.0"]
    assert (tmp_path / ".stridewave-99999999999-old").is_dir()  # no lock: not provably stale


# -- paths ------------------------------------------------------------------------------------


def test_a_lying_str_subclass_is_refused(tmp_path: Path) -> None:
    out = run(
        """
        class Name(str):
            def __contains__(self, item):
                return False
        outside = os.path.join(os.environ["TMPDIR"], "x.raw")
        try:
            FileBacked(Name(outside), dtype=F32)
        except TypeError as exc:
            assert "exact str" in str(exc)
        assert not os.path.exists(outside)
        try:
            FileBacked("../x.raw", dtype=F32)
        except ValueError:
            pass
        assert not os.path.exists(outside)
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


def test_a_session_directory_replaced_by_a_symlink_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = run(
        f"""
        import shutil
        keep = FileBacked(dtype=F32).new_like([1.0])
        directory = session_directory()
        os.rename(directory, directory + ".moved")
        os.symlink({str(elsewhere)!r}, directory)      # the attacker's redirect
        fresh = FileBacked("b.raw", dtype=F32).new_like([2.0, 3.0])
        assert os.listdir({str(elsewhere)!r}) == [], os.listdir({str(elsewhere)!r})
        assert not os.path.islink(os.path.dirname(fresh.path))
        assert fresh[1] == 3.0 and keep[0] == 1.0
        keep[0] = 4.0; keep.resize(3); keep.flush()  # stays in its own (moved) directory
        assert os.listdir({str(elsewhere)!r}) == []
        os.unlink(directory)
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


# -- full disk and file-size limit ------------------------------------------------------------


@linux_only
def test_file_size_limit_on_every_path_is_efbig(tmp_path: Path) -> None:
    out = run(
        """
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))
        e = Evictable(CPU(0).new_like(np.arange(1 << 15, dtype=np.float32)), FileBacked(dtype=F32))
        keep = FileBacked(dtype=F32).new_like(np.ones(10, np.float32))
        actions = {
            "evict": e.evict,
            "new_like": lambda: keep.new_like(np.zeros(1 << 15, np.float32)),
            "allocate_like": lambda: keep.allocate_like(1 << 15),
            "resize": lambda: keep.resize(1 << 15),
            "allocate_like(2**61)": lambda: keep.allocate_like(2**61),
        }
        for name, action in actions.items():
            try:
                action()
            except OSError as exc:
                assert exc.errno == errno.EFBIG, (name, exc)
                assert "FileBacked could not" in str(exc), (name, exc)
            else:
                raise AssertionError(name)
        assert not e.is_evicted() and e[(1 << 15) - 1] == (1 << 15) - 1
        assert keep.size() == 10 and keep[9] == 1.0
        print("ok")
        """,
        tmp_path,
    )
    assert out.split() == ["ok"]


@linux_only
def test_a_full_disk_on_every_path_is_enospc(tmp_path: Path) -> None:
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    mounted = (
        subprocess.run(
            ["unshare", "--user", "--map-root-user", "--mount", "true"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
        and shutil.which("unshare") is not None
    )
    if not mounted:
        pytest.skip("cannot mount a tiny tmpfs here (no user namespaces)")
    script = f"""
        mount -t tmpfs -o size=256k tmpfs {tiny} && exec env TMPDIR={tiny} "$@"
    """
    out = run(
        """
        e = Evictable(CPU(0).new_like(np.arange(1 << 17, dtype=np.float32)), FileBacked(dtype=F32))
        keep = FileBacked(dtype=F32).new_like(np.ones(10, np.float32))
        actions = {
            "evict": e.evict,
            "new_like": lambda: keep.new_like(np.zeros(1 << 17, np.float32)),
            "allocate_like": lambda: keep.allocate_like(1 << 17),
            "resize": lambda: keep.resize(1 << 17),
        }
        for name, action in actions.items():
            try:
                action()
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, (name, exc)
                assert "disk is full" in str(exc), (name, exc)
            else:
                raise AssertionError(name)
        assert not e.is_evicted() and e[5] == 5.0 and keep.size() == 10
        print("ok")
        """,
        tmp_path,
        prefix=["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"],
    )
    assert out.split() == ["ok"]


def test_a_filebacked_made_during_shutdown_leaves_nothing(tmp_path: Path) -> None:
    run(
        """
        import atexit
        def late():
            f = FileBacked(dtype=F32).new_like([1.0, 2.0])
            assert f[1] == 2.0
        atexit.register(late)                 # runs after the session hook below
        FileBacked(dtype=F32)                 # registers the session's exit hook
        """,
        tmp_path,
    )
    assert [n for n in os.listdir(tmp_path) if "stridewave" in n] == []


_LATE_STORAGE = """
def late():
    import numpy as np
    from stridewave import DType, FileBacked
    global kept
    f = FileBacked(dtype=DType.Float32).new_like([1.0, 2.0])
    assert f[1] == 2.0 and os.path.exists(f.path)
    f.resize(5)                                  # storage as any: grow, shrink, flush
    assert f.size() == 5 and f[1] == 2.0 and f[4] == 0.0
    f.resize(1)
    f.flush()
    assert list(f) == [1.0] and os.path.exists(f.path)
    g = FileBacked(dtype=DType.Int32)
    g.resize(3)
    g.resize(0)
    kept = (f, g)                                # still alive when the hooks are done
    np.save(sys.argv[1] + "/mine.npy", np.arange(3, dtype=np.float32))
    owned = FileBacked.open(sys.argv[1] + "/mine.npy").new_like([5.0])
    assert owned[0] == 5.0 and owned.owns_file() and os.path.exists(owned.path)
    print("late storage worked")
"""


@pytest.mark.parametrize(
    "order",
    [
        "atexit.register(late)\nimport stridewave",  # before the import: after our hooks
        "import stridewave\natexit.register(late)",  # after it, with no session yet
        (  # before the import, with a session made meanwhile
            "atexit.register(late)\nimport stridewave\n"
            "stridewave.FileBacked(dtype=stridewave.DType.Int32)"
        ),
    ],
    ids=["registered-before-import", "registered-after-import", "session-already-made"],
)
def test_storage_made_by_an_exit_hook_works_and_leaves_nothing_whenever_registered(
    tmp_path: Path, order: str
) -> None:
    script = "import atexit, os, sys\n" + _LATE_STORAGE + order + "\n"
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert done.stdout == "late storage worked\n"
    assert sorted(os.listdir(tmp_path)) == ["mine.npy"]


@linux_only
def test_sizes_no_process_can_hold_are_memory_errors_before_allocating(tmp_path: Path) -> None:
    out = run(
        """
        import importlib.util, resource
        limit = 3 << 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        cases = {
            "CPU": lambda: CPU(2**31 - 1),
            "CPU.allocate_like": lambda: CPU(0).allocate_like(2**40),
            "new_like(range)": lambda: CPU(0).new_like(range(10**12)),
        }
        if importlib.util.find_spec("mlx") is not None:
            from stridewave import Metal
            cases["Metal"] = lambda: Metal(2**31 - 1)
        for name, action in cases.items():
            try:
                action()
            except MemoryError as exc:
                assert "more than this process can ever hold" in str(exc), (name, exc)
            else:
                raise AssertionError(name)
        print("ok")
        """,
        tmp_path,
        timeout=60,
    )
    assert out.split() == ["ok"]
