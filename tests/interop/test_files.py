"""Real files: FileBacked.open maps a user's .npy without a copy; save writes one."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import stridewave as sw

from .conftest import VALUES, Kind


@pytest.fixture
def npy(tmp_path: Path) -> Path:
    path = tmp_path / "user.npy"
    np.save(path, VALUES.reshape(2, 5))
    return path


def test_open_maps_the_file_without_a_copy(npy: Path) -> None:
    opened = sw.FileBacked.open(npy)
    assert type(opened) is sw.carriers.NpyFile and sw.FileBacked not in type(opened).__mro__
    assert opened.size() == 10 and opened.dtype() is sw.DType.Float32
    assert opened.file_shape == (2, 5) and opened.mode == "r" and opened.path == str(npy)
    view = np.asarray(opened)
    np.testing.assert_array_equal(view, VALUES)
    # zero-copy: a write by another mapping of the file shows through the carrier
    other = np.load(npy, mmap_mode="r+")
    other[0, 0] = 42.0
    other.flush()
    assert opened[0] == 42.0


def test_read_only_mode_is_an_immutable_carrier(npy: Path) -> None:
    opened = sw.FileBacked.open(npy, mode="r")
    assert not opened.is_mutable()
    with pytest.raises(RuntimeError):
        opened[0] = 1.0
    assert opened.version == 0
    np.testing.assert_array_equal(np.load(npy).ravel(), VALUES)


def test_writes_go_through_version_and_reach_the_file(npy: Path) -> None:
    opened = sw.FileBacked.open(npy, mode="r+")
    opened[3] = 6.5
    opened.set_value(4, 2)
    assert opened.version == 2
    with pytest.raises(TypeError):
        opened[0] = True  # the normalization table still applies
    assert opened.version == 2
    source = sw.Tensor(sw.Generic([1.0, 2.0], dtype=sw.DType.Float32), sw.Layout((2,)))
    opened.scatter(source, sw.Tensor(opened, sw.Layout((10,))), sw.Layout((2,), (5,)))
    assert opened.version == 3
    opened.flush()
    expected = VALUES.copy()
    expected[[3, 4, 0, 5]] = [6.5, 2.0, 1.0, 2.0]
    np.testing.assert_array_equal(np.load(npy).ravel(), expected)


def test_release_unmaps_and_never_deletes_the_file(npy: Path) -> None:
    opened = sw.FileBacked.open(npy, mode="r+")
    view = np.asarray(opened)
    opened.release()
    assert npy.exists()
    np.testing.assert_array_equal(view, VALUES)  # the view kept its own mapping
    del opened
    assert npy.exists()
    np.testing.assert_array_equal(np.load(npy).ravel(), VALUES)


def test_pickles_by_reference(npy: Path) -> None:
    opened = sw.FileBacked.open(npy, mode="r+")
    payload = pickle.dumps(opened)
    assert VALUES.tobytes() not in payload and str(npy).encode() in payload
    twin = pickle.loads(payload)
    assert twin.path == opened.path and twin.mode == "r+" and twin is not opened
    twin[0] = 9.0
    assert opened[0] == 9.0  # the same file
    twin.release()
    assert npy.exists()


def test_unpickling_refuses_a_file_that_changed(npy: Path) -> None:
    payload = pickle.dumps(sw.FileBacked.open(npy))
    np.save(npy, np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="changed"):
        pickle.loads(payload)


def test_copies_and_factories_are_owned_session_files(npy: Path) -> None:
    opened = sw.FileBacked.open(npy)
    for fresh in (opened.new_like([1.0, 2.0]), opened.allocate_like(3), copy.copy(opened)):
        assert fresh.owns_file() and os.path.basename(os.path.dirname(fresh.path)).startswith(
            ".stridewave-"
        )
        path = fresh.path
        assert os.path.exists(path)
        fresh.release()
        assert not os.path.exists(path)  # the session directory's rule: removed on release
    assert npy.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (np.arange(3, dtype=np.float64), "float64"),
        (np.arange(3, dtype=">f4"), "little-endian"),
        (np.asfortranarray(np.ones((2, 3), np.float32)), "Fortran"),
    ],
)
def test_open_refuses_unsupported_files(tmp_path: Path, content: np.ndarray, message: str) -> None:
    path = tmp_path / "bad.npy"
    np.save(path, content)
    with pytest.raises(ValueError, match=message):
        sw.FileBacked.open(path)


def test_open_argument_errors(npy: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'r' .*'r\+'"):
        sw.FileBacked.open(npy, mode="w")
    with pytest.raises(TypeError):
        sw.FileBacked.open(npy, mode=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sw.FileBacked.open(3.5)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        sw.FileBacked.open(tmp_path / "missing.npy")
    (tmp_path / "raw.npy").write_bytes(b"not a numpy file at all")
    with pytest.raises(ValueError, match=r"not a readable \.npy"):
        sw.FileBacked.open(tmp_path / "raw.npy")


def test_open_and_save_refuse_the_session_directory() -> None:
    inside = sw.FileBacked(dtype=sw.DType.Float32)
    with pytest.raises(ValueError, match="session directory"):
        sw.CPU(2).save(os.path.join(os.path.dirname(inside.path), "mine.npy"))
    with pytest.raises(ValueError, match="session directory"):
        sw.FileBacked.open(inside.path)
    inside.release()


def test_empty_and_scalar_files(tmp_path: Path) -> None:
    np.save(tmp_path / "empty.npy", np.zeros(0, np.int32))
    np.save(tmp_path / "scalar.npy", np.int32(7))
    empty = sw.FileBacked.open(tmp_path / "empty.npy")
    assert empty.size() == 0 and empty.dtype() is sw.DType.Int32
    assert sw.FileBacked.open(tmp_path / "scalar.npy")[0] == 7


def test_save_writes_a_file_plain_numpy_loads(
    kind: Kind, carrier: sw.Carrier, tmp_path: Path
) -> None:
    target = tmp_path / "saved"  # no suffix is added
    assert carrier.save(target) == str(target)
    np.testing.assert_array_equal(np.load(target), VALUES)
    reopened = sw.FileBacked.open(target)
    np.testing.assert_array_equal(np.asarray(reopened), VALUES)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".stridewave-save")] == []


def test_save_is_all_or_nothing(tmp_path: Path) -> None:
    target = tmp_path / "kept.npy"
    np.save(target, np.arange(3, dtype=np.float32))
    with pytest.raises(OSError):
        sw.CPU(2).save(tmp_path / "no-such-dir" / "x.npy")
    np.testing.assert_array_equal(np.load(target), [0, 1, 2])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.npy"]


def test_a_process_that_opens_a_file_leaves_it_behind(npy: Path, tmp_path: Path) -> None:
    code = (
        "import stridewave as sw, sys; c = sw.FileBacked.open(sys.argv[1], mode='r+'); "
        "c[0] = 5.0; c.flush()"
    )
    env = dict(os.environ, TMPDIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", code, str(npy)], check=True, env=env, timeout=120)
    assert npy.exists() and np.load(npy).ravel()[0] == 5.0
