"""Resources: create/write/release cycles leave no file descriptors, no
mappings, no files and flat memory; dropped FileBacked carriers are collected; stale
session directories of killed processes are swept, live ones never."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from stridewave import Carrier, DType, FileBacked
from stridewave.carriers._file_backed import session_directory, sweep_stale_sessions

from ..conftest import KINDS, Kind  # noqa: TID252  (the shared Kind table)

linux_only = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _maps(directory: str) -> int:
    with open("/proc/self/maps") as handle:
        return sum(directory in line for line in handle)


def _rss_kib() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _cycle(kind: Kind, prototype: Carrier, i: int) -> None:
    carrier = prototype.new_like(np.arange(64, dtype=np.float32))
    carrier[i % 64] = 2.5
    carrier.set_value(0, 1.0)
    view = np.asarray(carrier)
    assert view[0] == 1.0
    del view
    if isinstance(carrier, FileBacked):
        carrier.resize(128)
    grown = carrier.allocate_like(32)
    grown.release()
    carrier.release()


def _soak(kind: Kind, cycles: int) -> None:
    prototype = kind.make([0.0], DType.Float32, True)
    directory = session_directory()
    for i in range(200):  # warm up caches and allocator pools
        _cycle(kind, prototype, i)
    gc.collect()
    fds, maps, files, rss = _fds(), _maps(directory), os.listdir(directory), _rss_kib()
    for i in range(cycles):
        _cycle(kind, prototype, i)
    gc.collect()
    assert _fds() == fds
    assert _maps(directory) == maps
    assert sorted(os.listdir(directory)) == sorted(files)
    assert _rss_kib() - rss < 16 * 1024, "RSS grew by more than 16 MiB"
    prototype.release()


@linux_only
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_cycles_leak_nothing(kind: Kind) -> None:
    _soak(kind, 2_000)


@linux_only
@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_cycles_leak_nothing_soak(kind: Kind) -> None:
    _soak(kind, 100_000)


@linux_only
def test_dropped_file_backed_carriers_are_collected() -> None:
    directory = session_directory()
    before, fds = set(os.listdir(directory)), _fds()
    carriers = [FileBacked(dtype=DType.Int32).new_like(range(100)) for _ in range(50)]
    views = [np.asarray(c) for c in carriers[:5]]
    cycle: list[object] = [carriers[0]]
    cycle.append(cycle)  # a reference cycle: only the cycle collector frees it
    paths = [c.path for c in carriers]
    del carriers, cycle
    gc.collect()
    if sys.version_info >= (3, 12):
        # numpy.asarray takes the buffer protocol, whose export holds the carrier: the
        # five carriers with views go when their views go (docs/interop.md).
        assert not any(os.path.exists(p) for p in paths[5:])
        assert views[0].tolist() == list(range(100))
        del views
        gc.collect()
    assert set(os.listdir(directory)) == before
    assert not any(os.path.exists(p) for p in paths)
    if sys.version_info < (3, 12):
        assert views[0].tolist() == list(range(100))  # views keep their mapping
        del views
    gc.collect()
    assert _fds() == fds and _maps(directory) == 0


# -- stale session directories -----------------------------------------------------------


def _session_like(path: os.PathLike[str], *, lock: bool) -> None:
    os.mkdir(path, 0o700)
    with open(os.path.join(path, "data.raw"), "wb") as handle:
        handle.write(b"1234")
    if lock:
        open(os.path.join(path, "lock"), "wb").close()


@linux_only
def test_sweep_goes_by_the_lock_never_by_process_ids(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import fcntl

    me = os.getpid()
    names = {
        # a process id of our own, of a process that never existed, one too large for
        # any parser: none of them matters, only whether the lock can be taken
        "stale_my_pid": f".stridewave-{me}-abc123",
        "stale_huge": ".stridewave-99999999999-old",
        "live_dead_pid": ".stridewave-1-def456",
        "no_lock": ".stridewave-2-ghi789",
        "unrelated": "stridewave-123-1-x",
    }
    for key, name in names.items():
        _session_like(tmp_path / name, lock=key != "no_lock")
    held = os.open(tmp_path / names["live_dead_pid"] / "lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # as its (live) process would
    (tmp_path / ".stridewave-3-file").write_text("not a directory")
    os.symlink(tmp_path / names["live_dead_pid"], tmp_path / ".stridewave-4-link")
    try:
        removed = sweep_stale_sessions(str(tmp_path))
    finally:
        os.close(held)
    assert sorted(os.path.basename(p) for p in removed) == sorted(
        [names["stale_my_pid"], names["stale_huge"]]
    )
    left = set(os.listdir(tmp_path))
    assert {names["live_dead_pid"], names["no_lock"], names["unrelated"]} <= left
    assert {".stridewave-3-file", ".stridewave-4-link"} <= left
    assert os.listdir(tmp_path / names["live_dead_pid"])  # untouched


_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from stridewave import DType, FileBacked
    from stridewave.carriers._file_backed import session_directory
    carrier = FileBacked(dtype=DType.Float32).new_like([1.0, 2.0])
    print(session_directory(), flush=True)
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.readline()  # "wait": stay alive until told
    """
)


@linux_only
def test_a_killed_process_directory_is_swept_by_the_next_process() -> None:
    killed = subprocess.run(
        [sys.executable, "-c", _SCRIPT, "kill"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL
    stale = killed.stdout.strip()
    assert os.path.isdir(stale)  # SIGKILL ran no cleanup
    live = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert live.stdout is not None
        live_dir = live.stdout.readline().strip()
        assert not os.path.exists(stale)  # swept by the waiting process on first use
        subprocess.run(
            [sys.executable, "-c", _SCRIPT, "kill"], capture_output=True, timeout=60, check=False
        )  # a third process sweeps too, but leaves the live one's directory alone
        assert os.path.isdir(live_dir) and os.listdir(live_dir)
    finally:
        assert live.stdin is not None
        live.communicate("\n", timeout=60)
    assert not os.path.exists(live_dir)
    sweep_stale_sessions()
