"""Behaviour unique to FileBacked: files, names, resize, flush, cleanup and fork safety."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest

from stridewave import DType, FileBacked
from stridewave.carriers._file_backed import session_directory

F32, I32 = DType.Float32, DType.Int32


def _files() -> set[str]:
    """The session directory's file names (a failed call must add none).

    Compared as a subset: a carrier of an earlier test that the garbage collector
    finalizes meanwhile removes its file, which made an equality check flaky.
    """
    return set(os.listdir(session_directory()))


def test_generate_file_backed_storage() -> None:
    carrier = FileBacked(dtype=F32)
    assert carrier.size() == 0
    assert carrier.dtype() is F32
    assert os.path.dirname(carrier.path) == session_directory()
    assert os.path.basename(session_directory()).startswith(".")
    assert os.path.getsize(carrier.path) == 0
    other = FileBacked(dtype=F32)
    assert other.path != carrier.path


def test_require_the_keyword_only_dtype_before_file_creation() -> None:
    before = _files()
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'dtype'"):
        FileBacked()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional argument"):
        FileBacked("x.raw", F32)  # type: ignore[call-arg, arg-type]
    with pytest.raises(TypeError, match="positional argument"):
        FileBacked(None, True, F32)  # type: ignore[call-arg]
    assert _files() <= before  # nothing created (a collected carrier may remove one)


@pytest.mark.parametrize("name", ["a/b", "../x", "/tmp/x", "a\\b", ".", "..", "", "a\0b"])
def test_reject_a_path_like_filename(name: str) -> None:
    before = _files()
    with pytest.raises(ValueError, match="path components"):
        FileBacked(name, dtype=F32)
    assert _files() <= before  # nothing created (a collected carrier may remove one)


def test_reject_category_backed_file_storage(extension_category: DType, compound: DType) -> None:
    before = _files()
    for category in (DType.Any, DType.Floating, DType.Integer, extension_category):
        with pytest.raises(ValueError, match="category"):
            FileBacked(dtype=category)
    for other in (DType.Bool, DType.Float64, DType.Int8):
        with pytest.raises(ValueError, match="FileBacked storage accepts"):
            FileBacked(dtype=other)
    with pytest.raises(ValueError, match="multiple planes"):
        FileBacked(dtype=compound)
    with pytest.raises(TypeError):
        FileBacked(dtype="Float32")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        FileBacked(3, dtype=F32)  # type: ignore[arg-type]
    assert _files() <= before  # nothing created (a collected carrier may remove one)


def test_duplicate_filename_fails_without_replacing_the_file() -> None:
    name = f"dup-{uuid.uuid4().hex}.f32"
    first = FileBacked(name, dtype=I32)
    first.resize(2)
    first[1] = 42
    with pytest.raises(FileExistsError, match="already exists"):
        FileBacked(name, dtype=I32)
    assert np.fromfile(first.path, "<i4").tolist() == [0, 42]
    assert list(first) == [0, 42]


def test_file_encodes_little_endian_values() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.5, -2.0])
    with open(carrier.path, "rb") as handle:
        assert handle.read() == np.array([1.5, -2.0], "<f4").tobytes()
    ints = FileBacked(dtype=I32).new_like([1, -1])
    with open(ints.path, "rb") as handle:
        assert handle.read() == np.array([1, -1], "<i4").tobytes()


def test_resize_grows_with_zeros_and_shrinks_without_version_change() -> None:
    carrier = FileBacked(dtype=F32)
    carrier.resize(3)
    assert list(carrier) == [0.0, 0.0, 0.0]
    carrier[2] = 2.5
    assert carrier.version == 1
    carrier.resize(5)
    assert list(carrier) == [0.0, 0.0, 2.5, 0.0, 0.0]
    assert os.path.getsize(carrier.path) == 20
    carrier.resize(1)
    assert list(carrier) == [0.0]
    carrier.resize(0)
    assert carrier.size() == 0 and os.path.getsize(carrier.path) == 0
    carrier.resize(2)
    assert list(carrier) == [0.0, 0.0]
    assert carrier.version == 1


def test_shrink_keeps_views_exported_earlier_valid() -> None:
    carrier = FileBacked(dtype=F32).new_like(np.arange(1000, dtype=np.float32))
    view = np.asarray(carrier)
    carrier.resize(1)
    gc.collect()
    assert view[999] == 999.0  # the old mapping keeps its pages
    assert list(carrier) == [0.0]


def test_resize_refusals() -> None:
    carrier = FileBacked(dtype=F32)
    with pytest.raises(TypeError):
        carrier.resize(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        carrier.resize(-1)
    frozen = FileBacked(dtype=F32, mutable=False)
    with pytest.raises(RuntimeError, match="mutable=False"):
        frozen.resize(2)
    carrier.release()
    with pytest.raises(RuntimeError, match="released"):
        carrier.resize(2)


def test_writes_are_visible_to_another_reader_and_flush() -> None:
    carrier = FileBacked(dtype=I32)
    carrier.resize(3)
    carrier[1] = 7
    assert np.fromfile(carrier.path, "<i4").tolist() == [0, 7, 0]
    carrier.flush()
    FileBacked(dtype=I32).flush()  # empty: no mapping, no error
    carrier.release()
    with pytest.raises(RuntimeError):
        carrier.flush()


def test_int32_writes_require_integers() -> None:
    carrier = FileBacked(dtype=I32).new_like([0])
    with pytest.raises(TypeError):
        carrier[0] = 1.0
    assert carrier[0] == 0


def test_immutable_file_backed_exports_a_read_only_buffer() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.0, 2.0], mutable=False)
    view = np.asarray(carrier)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view.setflags(write=True)
    assert not carrier._array.flags.writeable  # mapped read-only as well


def test_release_removes_the_file() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.0])
    path = carrier.path
    assert os.path.exists(path)
    carrier.release()
    assert not os.path.exists(path)
    carrier.release()


def test_release_with_exported_view_keeps_the_view_readable() -> None:
    carrier = FileBacked(dtype=F32).new_like([3.0, 4.0])
    view = np.asarray(carrier)
    path = carrier.path
    carrier.release()
    assert not os.path.exists(path)
    gc.collect()
    assert view.tolist() == [3.0, 4.0]


def test_garbage_collection_removes_the_file() -> None:
    carrier = FileBacked(dtype=F32).new_like([1.0])
    path = carrier.path
    del carrier
    gc.collect()
    assert not os.path.exists(path)


def test_failed_factory_creates_no_file() -> None:
    carrier = FileBacked(dtype=F32)
    before = _files()
    with pytest.raises(TypeError):
        carrier.new_like([1.0, "x"])
    with pytest.raises(OverflowError):
        carrier.new_like(np.array([1e300]))
    with pytest.raises(ValueError):
        carrier.allocate_like(3, dtype=DType.Bool)
    assert _files() <= before  # nothing created (a collected carrier may remove one)


def test_scatter_is_not_a_file_backed_capability() -> None:
    from .conftest import KINDS

    assert [k.scatters for k in KINDS if k.cls is FileBacked] == [False]


# -- cleanup at exit and fork safety, in real subprocesses --------------------------------

_PRELUDE = textwrap.dedent(
    """
    import gc, os, sys, multiprocessing
    from stridewave import DType, FileBacked
    from stridewave.carriers._file_backed import session_directory
    """
)


def _run(script: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PRELUDE + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_interpreter_exit_removes_files_and_directory() -> None:
    directory, kept = _run(
        """
        kept = FileBacked(dtype=DType.Float32).new_like([1.0, 2.0])
        print(session_directory(), kept.path)
        """
    )
    assert not os.path.exists(kept)
    assert not os.path.exists(directory)


def test_forked_child_exit_does_not_delete_parent_files() -> None:
    out = _run(
        """
        parent = FileBacked(dtype=DType.Int32).new_like([1, 2, 3])
        directory = session_directory()
        pid = os.fork()
        if pid == 0:
            # the child drops its copy, makes its own storage, and exits normally
            own = FileBacked(dtype=DType.Int32).new_like([9])
            print("child-dir", session_directory(), file=sys.stderr)
            del parent
            gc.collect()
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0
        assert os.path.exists(parent.path), "child deleted the parent's file"
        assert os.path.isdir(directory), "child deleted the parent's directory"
        assert list(parent) == [1, 2, 3]
        print(directory, parent.path)
        """
    )
    assert len(out) == 2
    assert not os.path.exists(out[0])


def test_multiprocessing_fork_child_does_not_delete_parent_files() -> None:
    _run(
        """
        def child(path, queue):
            carrier = FileBacked(dtype=DType.Float32).new_like([5.0])
            queue.put(session_directory())
            assert os.path.exists(path)

        if __name__ == "__main__":
            parent = FileBacked(dtype=DType.Float32).new_like([1.0])
            context = multiprocessing.get_context("fork")
            queue = context.Queue()
            process = context.Process(target=child, args=(parent.path, queue))
            process.start()
            child_dir = queue.get(timeout=30)
            process.join()
            assert child_dir != session_directory()
            assert not os.path.exists(child_dir), "the child's own directory was left behind"
            assert process.exitcode == 0
            assert os.path.exists(parent.path), "fork child deleted the parent's file"
            assert os.path.isdir(session_directory())
            assert list(parent) == [1.0]
        """
    )


def test_child_gets_its_own_session_directory() -> None:
    out = _run(
        """
        first = session_directory()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.write(write, session_directory().encode())
            os._exit(0)
        os.close(write)
        child_dir = os.read(read, 4096).decode()
        os.waitpid(pid, 0)
        assert child_dir != first
        assert os.path.isdir(first)
        print(child_dir)
        """
    )
    # the child left via os._exit (no exit handlers): its directory (and the lock file
    # that proved it live) may remain until a sweep; tidy up
    if os.path.isdir(out[0]):
        shutil.rmtree(out[0])


def test_a_shrink_that_cannot_map_its_new_file_leaves_the_carrier_on_its_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno

    import numpy as np
    import pytest

    from stridewave import DType, FileBacked

    f = FileBacked(dtype=DType.Int32)
    f.resize(4)
    for i in range(4):
        f[i] = i + 1

    def no_more_descriptors(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EMFILE, "Too many open files")

    from stridewave.carriers import _file_backed

    monkeypatch.setattr(_file_backed, "_map_fd", no_more_descriptors)
    with pytest.raises(OSError, match="out of file descriptors") as info:
        f.resize(2)
    assert info.value.errno == errno.EMFILE
    monkeypatch.undo()
    assert f.size() == 4 and list(f) == [1, 2, 3, 4]
    f[1] = 99
    f.flush()  # the carrier still maps the file that carries its name
    assert np.fromfile(f.path, "<i4").tolist() == [1, 99, 3, 4]
    assert sorted(os.listdir(os.path.dirname(f.path))).count(os.path.basename(f.path)) == 1


def test_a_size_too_large_for_the_system_is_an_os_error_and_changes_nothing() -> None:
    import pytest

    from stridewave import DType, FileBacked

    f = FileBacked(dtype=DType.Float32)
    f.resize(3)
    with pytest.raises(OSError, match="could not grow its file"):
        f.resize(2**62)
    assert f.size() == 3 and os.path.getsize(f.path) == 12


def test_flush_after_evict_syncs_the_evicted_values() -> None:
    import numpy as np

    from stridewave import CPU, DType, Evictable, FileBacked

    secondary = FileBacked(dtype=DType.Float32)
    e = Evictable(CPU(0).new_like([1.0, 2.0, 3.0]), secondary)
    e.evict()
    secondary.flush()  # the file was replaced by the library itself, not behind its back
    assert np.fromfile(secondary.path, "<f4").tolist() == [1.0, 2.0, 3.0]
