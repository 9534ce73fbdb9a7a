"""The fork rule through every wrapper (CONTRACT section 7, "Fork").

A FileBacked inherited by a forked child behaves as a CPU carrier does after fork,
and the same holds through every wrapper: an Evictable over a FileBacked (as primary
over each secondary kind, and as secondary), a Tensor and an array-API Array over
such an Evictable. The child's writes, scatters and moves stay in the child; the
parent's values and file bytes never change. Each scenario runs in a fresh
interpreter with a private ``TMPDIR``, with the C scalar paths and without them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.metal_scripts import in_child_source

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

_PRELUDE = (
    in_child_source(timeout=60)
    + """
import os
import numpy as np
from stridewave import CPU, DType, Evictable, FileBacked, Generic, Layout, Tensor
F32 = DType.Float32
SECONDARIES = {
    "CPU": lambda: CPU(0),
    "Generic": lambda: Generic([], dtype=F32),
    "FileBacked": lambda: FileBacked(dtype=F32),
}

def file_values(path):
    return np.fromfile(path, "<f4").tolist()
"""
)


@pytest.fixture(params=["C", "pure Python"])
def scalar_path(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment for one scalar path (the C accelerator, or without it)."""
    if request.param == "C":
        return {"STRIDEWAVE_NO_SPEEDUPS": "0"}
    return {"STRIDEWAVE_NO_SPEEDUPS": "1"}


def run(script: str, tmp: Path, extra: dict[str, str]) -> str:
    """Run ``script`` after the prelude in a fresh interpreter with TMPDIR=tmp."""
    env = dict(os.environ, TMPDIR=str(tmp), **extra)
    done = subprocess.run(
        [sys.executable, "-c", _PRELUDE + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("secondary", ["CPU", "Generic", "FileBacked"])
def test_writes_through_an_evictable_over_a_filebacked_primary_stay_in_the_child(
    tmp_path: Path, scalar_path: dict[str, str], secondary: str
) -> None:
    out = run(
        f"""
        values = np.arange(10, dtype=np.float32)
        primary = FileBacked(dtype=F32).new_like(values)
        path = primary.path
        ev = Evictable(primary, SECONDARIES[{secondary!r}]())
        ev[0] = 0.5                                   # the wrapper's fast path is warm
        def child():
            ev[3] = 42.0                              # fast-path spelling
            ev.set_value(4, 43.0)
            assert ev.primary.path != path            # the child copied the file first
            assert (ev[3], ev[4], ev[0]) == (42.0, 43.0, 0.5)
            view = np.asarray(Tensor(ev, Layout((10,))))
            assert view[3] == 42.0 and view[4] == 43.0
            ev.evict()
            ev[5] = 44.0                              # pages in, in the child
            ev.promote()
            ev[6] = 45.0
            assert [ev[i] for i in (3, 4, 5, 6)] == [42.0, 43.0, 44.0, 45.0]
            ev.release()
        assert in_child(child) == 0
        expected = [0.5, *range(1, 10)]
        assert file_values(path) == expected          # the parent's file bytes
        assert [ev[i] for i in range(10)] == expected and ev.version == 1
        ev[3] = 7.0                                   # the parent's own path still writes
        assert file_values(path)[3] == 7.0
        print("ok")
        """,
        tmp_path,
        scalar_path,
    )
    assert out.split() == ["ok"]


@pytest.mark.parametrize("evicted", [True, False])
def test_writes_through_an_evictable_over_a_filebacked_secondary_stay_in_the_child(
    tmp_path: Path, scalar_path: dict[str, str], evicted: bool
) -> None:
    out = run(
        f"""
        ev = Evictable(CPU(0).new_like(np.arange(10, dtype=np.float32)), FileBacked(dtype=F32))
        ev.evict()
        path = ev.secondary.path
        if not {evicted!r}:
            ev.promote(); ev.evict()                  # a second round trip, then promoted
            path = ev.secondary.path
        def child():
            ev[3] = 42.0                              # pages in (CPU) in the child
            source = Tensor(CPU.from_numpy(np.array([7.0, 8.0], np.float32)), Layout((2,)))
            ev.scatter(source, Tensor(ev, Layout((0,))), Layout((2,)), 0)
            ev.evict()                                # into a file of the child's own
            assert ev.secondary.path != path
            assert [ev[i] for i in (0, 1, 3)] == [7.0, 8.0, 42.0]
        assert in_child(child) == 0
        assert file_values(path) == list(range(10))
        assert ev.is_evicted() and [ev[i] for i in range(10)] == list(range(10))
        print("ok")
        """,
        tmp_path,
        scalar_path,
    )
    assert out.split() == ["ok"]


def test_a_nested_evictable_over_a_filebacked_primary_stays_in_the_child(
    tmp_path: Path, scalar_path: dict[str, str]
) -> None:
    out = run(
        """
        primary = FileBacked(dtype=F32).new_like(np.arange(6, dtype=np.float32))
        path = primary.path
        inner = Evictable(primary, CPU(0))
        outer = Evictable(inner, FileBacked(dtype=F32))
        outer[1] = 1.5
        def child():
            outer[2] = 42.0
            assert outer[2] == 42.0 and outer[1] == 1.5
        assert in_child(child) == 0
        assert file_values(path) == [0.0, 1.5, 2.0, 3.0, 4.0, 5.0]
        assert outer[2] == 2.0
        print("ok")
        """,
        tmp_path,
        scalar_path,
    )
    assert out.split() == ["ok"]


def test_array_api_writes_over_a_forked_evictable_stay_in_the_child(
    tmp_path: Path, scalar_path: dict[str, str]
) -> None:
    out = run(
        """
        import stridewave.array_api as xp
        # A FileBacked primary: the namespace's writes go to the child's copy of the file.
        primary = FileBacked(dtype=F32).new_like(np.arange(8, dtype=np.float32))
        path = primary.path
        over_file = Evictable(primary, CPU(0))
        on_file = xp.asarray(Tensor(over_file, Layout((8,))))
        # A FileBacked secondary, evicted: the namespace's write pages in.
        spilled = Evictable(CPU(0).new_like(np.arange(8, dtype=np.float32)), FileBacked(dtype=F32))
        writable = xp.asarray(Tensor(spilled, Layout((8,))))
        assert float(xp.sum(on_file)) == 28.0 and float(xp.sum(writable)) == 28.0
        spilled.evict()                                # (reading pages in: evict after)
        secondary_path = spilled.secondary.path
        def child():
            on_file[3] = 42.0                          # through the namespace: the child's copy
            over_file[4] = 40.0                        # through the carrier: the same copy
            assert float(xp.sum(on_file)) == 103.0 and np.asarray(on_file)[3] == 42.0
            writable[3] = 42.0
            writable[5:7] = xp.asarray([50.0, 60.0], dtype=xp.float32)
            assert np.asarray(writable).tolist() == [0, 1, 2, 42, 4, 50, 60, 7]
            spilled.evict()
            assert spilled.secondary.path != secondary_path
        assert in_child(child) == 0
        assert file_values(path) == list(range(8)) and file_values(secondary_path) == list(range(8))
        assert np.asarray(on_file).tolist() == list(range(8))
        assert np.asarray(writable).tolist() == list(range(8))
        print("ok")
        """,
        tmp_path,
        scalar_path,
    )
    assert out.split() == ["ok"]


def test_an_owned_npy_file_is_copied_on_the_childs_first_write(
    tmp_path: Path, scalar_path: dict[str, str]
) -> None:
    out = run(
        """
        user = os.path.join(os.environ["TMPDIR"], "user.npy")
        np.save(user, np.arange(4, dtype=np.float32))
        opened = FileBacked.open(user, mode="r+")           # the user's file: shared
        owned = opened.new_like([1.0, 2.0, 3.0])           # a session file: the parent's
        wrapped = Evictable(opened.new_like([1.0, 2.0, 3.0]), CPU(0))
        paths = (owned.path, wrapped.primary.path)
        def child():
            owned[0] = 42.0
            wrapped[0] = 43.0
            source = Tensor(CPU.from_numpy(np.array([7.0], np.float32)), Layout((1,)))
            owned.scatter(source, Tensor(owned, Layout((0,))), Layout((1,)), 2)
            assert (owned.path, wrapped.primary.path) != paths
            assert [owned[0], owned[2], wrapped[0]] == [42.0, 7.0, 43.0]
            opened[3] = 30.0                                 # documented: reaches the file
            opened.flush()
        assert in_child(child) == 0
        assert [owned[0], owned[2], wrapped[0]] == [1.0, 3.0, 1.0]
        assert [np.load(p).tolist() for p in paths] == [[1.0, 2.0, 3.0]] * 2
        assert np.load(user).tolist() == [0.0, 1.0, 2.0, 30.0] and opened[3] == 30.0
        print("ok")
        """,
        tmp_path,
        scalar_path,
    )
    assert out.split() == ["ok"]
