"""Copies out of a memory-mapped file unmap its pages as they go, and change no value.

``CPU.new_like`` of a ``numpy.memmap`` (a promoted FileBacked tier, a user's
``numpy.load(mmap_mode=...)``) reads the file a chunk at a time and hands each chunk's
pages back to the kernel; a copy-on-write map keeps its private changes.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from stridewave import CPU, DType
from stridewave.carriers import _mapped

N = 3 * (_mapped.CHUNK_BYTES // 4) + 5  # three chunks and a partial one of Float32


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "values.raw"
    np.arange(N, dtype="<f4").tofile(path)
    return path


@pytest.mark.parametrize("mode", ["r", "r+"])
def test_a_copy_of_a_shared_map_is_exact_and_streams(
    tmp_path: Path, mode: Literal["r", "r+"]
) -> None:
    mapped = np.memmap(_file(tmp_path), dtype="<f4", mode=mode)
    if mode == "r+":
        mapped[1::7] = -1.0  # dirty pages, not yet written back: dropping them keeps them
    expected = np.array(mapped)
    assert _mapped.shared_mapping(mapped) is not None
    assert _mapped.shared_mapping(mapped[10:]) is not None  # views of it too
    copy = CPU(0).new_like(mapped)
    assert np.array_equal(np.asarray(copy), expected)
    assert np.array_equal(mapped, expected)  # the map still reads the same values
    if mode == "r+":
        mapped.flush()
        assert np.array_equal(np.fromfile(tmp_path / "values.raw", dtype="<f4"), expected)


def test_a_copy_on_write_map_keeps_its_private_changes(tmp_path: Path) -> None:
    mapped = np.memmap(_file(tmp_path), dtype="<f4", mode="c")
    mapped[::5] = 42.0  # private to this map: unmapping its pages would lose them
    assert _mapped.shared_mapping(mapped) is None
    copy = CPU(0).new_like(mapped)
    assert np.asarray(copy)[::5].tolist() == [42.0] * len(range(0, N, 5))
    assert mapped[::5].tolist() == [42.0] * len(range(0, N, 5))
    assert np.fromfile(tmp_path / "values.raw", dtype="<f4")[5] == 5.0  # file untouched


def test_memory_and_bare_maps_are_never_treated_as_shared(tmp_path: Path) -> None:
    import mmap

    assert _mapped.shared_mapping(np.arange(10, dtype=np.float32)) is None
    with open(_file(tmp_path), "rb") as handle:
        region = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        # a bare mmap could be private: no numpy.memmap in the chain says it is shared
        bare = np.frombuffer(region, dtype="<f4")
        assert _mapped.shared_mapping(bare) is None
        assert CPU(0, dtype=DType.Float32).new_like(bare).get_value(N - 1) == float(N - 1)
        del bare
    finally:
        region.close()


def test_spans_cover_the_array_once_in_order() -> None:
    array = np.empty(N, dtype=np.float32)
    spans = list(_mapped.spans(array))
    assert spans[0].start == 0 and spans[-1].stop == N
    assert all(a.stop == b.start for a, b in itertools.pairwise(spans))
    assert all(s.stop - s.start <= _mapped.CHUNK_BYTES // 4 for s in spans)
    assert list(_mapped.spans(np.empty(0, dtype=np.float32))) == []
