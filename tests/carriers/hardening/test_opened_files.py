"""Opened files are the user's (CONTRACT section 7): ``FileBacked.open`` never grows,
shrinks or rewrites a file it was not asked to write, and refuses, with ``ValueError``
before anything is mapped, a header that disagrees with the file's length, a negative
or overflowing shape, and a path that is not a regular file (never a hang).

Hostile headers are written byte by byte (``numpy.save`` cannot write them) and each
verdict is checked against ``numpy.load``'s.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stridewave as sw

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def npy_bytes(
    descr: str,
    shape: object,
    data: bytes,
    *,
    fortran: bool = False,
    version: tuple[int, int] = (1, 0),
) -> bytes:
    """Return the bytes of a ``.npy`` file whose header says anything at all."""
    header = f"{{'descr': {descr!r}, 'fortran_order': {fortran!r}, 'shape': {shape!r}, }}"
    prefix = 10 if version == (1, 0) else 12
    header += " " * (-(prefix + len(header) + 1) % 64) + "\n"
    length = struct.pack("<H" if version == (1, 0) else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + length + header.encode("latin1") + data


def digest(path: Path) -> tuple[int, str]:
    content = path.read_bytes()
    return len(content), hashlib.sha256(content).hexdigest()


FOUR = np.arange(4, dtype="<f4").tobytes()


@pytest.mark.parametrize("mode", ["r", "r+"])
def test_a_header_claiming_more_than_the_file_holds_is_refused_and_the_file_kept(
    tmp_path: Path, mode: str
) -> None:
    path = tmp_path / "short.npy"
    path.write_bytes(npy_bytes("<f4", (1_000_000,), FOUR))
    before = digest(path)
    with pytest.raises(ValueError, match="4000000 bytes of data"):
        sw.FileBacked.open(path, mode=mode)
    assert digest(path) == before  # never grown, never rewritten


@pytest.mark.parametrize(
    "shape",
    [(-2, -2), (-1, -4), (-1, 4), (4, -1), (2**62 + 1, 4), (2**32, 2**32), (2**64,), (0, 2**62)],
)
@pytest.mark.parametrize("mode", ["r", "r+"])
def test_negative_and_overflowing_shapes_are_refused(
    tmp_path: Path, shape: tuple[int, ...], mode: str
) -> None:
    path = tmp_path / "hostile.npy"
    path.write_bytes(npy_bytes("<f4", shape, FOUR))
    before = digest(path)
    with pytest.raises(ValueError, match=r"negative|overflows|holds \d+ bytes"):
        sw.FileBacked.open(path, mode=mode)
    if np.lib.NumpyVersion(np.__version__) >= "2.1.0":  # (2.0 let overflowing shapes wrap)
        with pytest.raises((ValueError, OverflowError)):
            np.load(path)  # numpy refuses these too
    assert digest(path) == before


def test_trailing_bytes_after_the_data_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.npy"
    path.write_bytes(npy_bytes("<f4", (2,), FOUR))
    with pytest.raises(ValueError, match="8 bytes of data"):
        sw.FileBacked.open(path, mode="r+")


# -- hostile headers, judged against numpy.load ------------------------------------------

_DESCRS = ["<f4", "<i4", ">f4", "<f8", "|u1", "<i2", "|b1", "<c8", "<U2", "|V4", "|O"]


@st.composite
def hostile_npy(draw: st.DrawFn) -> tuple[bytes, str, tuple[int, ...], bool, int]:
    """A ``.npy`` file with a hostile header: returns (bytes, descr, shape, fortran, data bytes)."""
    descr = draw(st.sampled_from(_DESCRS))
    dim = st.one_of(
        st.integers(0, 6),
        st.integers(-8, -1),
        st.sampled_from([2**31, 2**32, 2**62 + 1, 2**63 - 1, 2**63, 2**64, 2**64 + 3]),
    )
    shape = tuple(draw(st.lists(dim, max_size=3)))
    fortran = draw(st.booleans())
    version = draw(st.sampled_from([(1, 0), (2, 0), (3, 0)]))
    itemsize = np.dtype(descr).itemsize if descr != "|O" else 8
    claimed = int(np.prod([max(n, 0) for n in shape], dtype=object)) if shape else 1
    natural = claimed * itemsize if claimed <= 64 else 0
    length = draw(
        st.one_of(
            st.just(natural),
            st.integers(0, 64),
            st.sampled_from([max(natural - 1, 0), natural + 1, natural + itemsize]),
        )
    )
    data = bytes(draw(st.binary(min_size=length, max_size=length)))
    return (
        npy_bytes(descr, shape, data, fortran=fortran, version=version),
        descr,
        shape,
        fortran,
        length,
    )


def numpy_verdict(path: Path) -> np.ndarray | None:
    try:
        loaded: np.ndarray = np.load(path, allow_pickle=False)
    except Exception:  # noqa: BLE001 (any refusal by numpy is a refusal)
        return None
    return loaded


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=hostile_npy(), mode=st.sampled_from(["r", "r+"]))
def test_hostile_headers_are_judged_as_numpy_load_judges_them(
    tmp_path: Path, case: tuple[bytes, str, tuple[int, ...], bool, int], mode: str
) -> None:
    content, descr, shape, fortran, length = case
    path = tmp_path / "case.npy"
    path.write_bytes(content)
    loaded = numpy_verdict(path)
    # What the library maps on top of numpy's rules: its two dtypes, a flat C-order run
    # (so no multi-dimensional Fortran order), and exactly the bytes the header claims.
    size = int(np.prod(shape, dtype=object)) if shape else 1
    mappable = (
        loaded is not None
        and descr in ("<f4", "<i4")
        and all(n >= 0 for n in shape)
        and not (fortran and sum(1 for n in shape if n != 1) > 1)
        and length == size * 4
    )
    try:
        carrier = sw.FileBacked.open(path, mode=mode)
    except ValueError:
        assert not mappable, (descr, shape, fortran, length)
    else:
        assert mappable, (descr, shape, fortran, length)
        assert loaded is not None
        np.testing.assert_array_equal(np.asarray(carrier), loaded.ravel())
        carrier.release()
    assert path.read_bytes() == content


# -- paths that are not regular files ------------------------------------------------------


def _open_in_subprocess(target: str, mode: str, tmp_path: Path) -> str:
    script = textwrap.dedent(
        f"""
        import stridewave as sw
        try:
            sw.FileBacked.open({target!r}, mode={mode!r})
        except ValueError as exc:
            print("ValueError:", exc)
        """
    )
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@posix_only
@pytest.mark.parametrize("mode", ["r", "r+"])
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path, mode: str) -> None:
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    out = _open_in_subprocess(str(fifo), mode, tmp_path)
    assert out.startswith("ValueError:") and "not a regular file" in out and "FIFO" in out


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused(tmp_path: Path) -> None:
    out = _open_in_subprocess("/dev/zero", "r", tmp_path)
    assert out.startswith("ValueError:") and "not a regular file" in out


def test_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.npy").mkdir()
    with pytest.raises(ValueError, match="not a regular file"):
        sw.FileBacked.open(tmp_path / "dir.npy")
