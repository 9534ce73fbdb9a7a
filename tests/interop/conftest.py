"""The interop matrix: carrier kinds, each built holding known Float32 values.

Every entry makes a *mutable* carrier (so a write that bypassed the carrier would
land) holding ``VALUES``, and says whether its NumPy export is a zero-copy view
(host kinds) or a snapshot (Metal). Consumers that are not installed skip cleanly.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import stridewave as sw

VALUES = np.array([1.5, -2.0, 3.25, 0.0, 7.0, -0.5, 8.0, 9.5, 10.0, 11.0], dtype=np.float32)


def has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


needs_mlx = pytest.mark.skipif(not has("mlx"), reason="mlx is not installed")


@dataclass(frozen=True)
class Kind:
    name: str
    make: Callable[[Path], sw.Carrier]
    views: bool = True  # numpy.asarray is a zero-copy view (host kinds)
    marks: tuple[pytest.MarkDecorator, ...] = ()

    def __repr__(self) -> str:
        return self.name


def _npy(tmp: Path) -> sw.Carrier:
    path = tmp / "values.npy"
    np.save(path, VALUES.reshape(2, 5))
    return sw.FileBacked.open(path, mode="r+")


def _file_backed(tmp: Path) -> sw.Carrier:
    return sw.FileBacked(dtype=sw.DType.Float32).new_like(VALUES)


def _evictable(tmp: Path) -> sw.Carrier:
    return sw.Evictable(sw.CPU(0).new_like(VALUES), sw.FileBacked(dtype=sw.DType.Float32))


KINDS = [
    Kind("CPU", lambda tmp: sw.CPU(0).new_like(VALUES)),
    Kind("CPU.from_numpy", lambda tmp: sw.CPU.from_numpy(VALUES.copy())),
    Kind("Generic", lambda tmp: sw.Generic(VALUES, dtype=sw.DType.Float32)),
    Kind("FileBacked", _file_backed),
    Kind("FileBacked.open", _npy),
    Kind("Evictable", _evictable),
    Kind("Metal", lambda tmp: sw.Metal(0).new_like(VALUES), views=False, marks=(needs_mlx,)),
]


@pytest.fixture(params=[pytest.param(k, marks=k.marks, id=k.name) for k in KINDS])
def kind(request: pytest.FixtureRequest) -> Kind:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def carrier(kind: Kind, tmp_path: Path) -> Iterator[sw.Carrier]:
    made = kind.make(tmp_path)
    yield made
    if not made.is_owned():
        made.release()


def assert_untouched(carrier: sw.Carrier, version: int) -> None:
    """The carrier still holds VALUES at the same version (no write got through)."""
    assert carrier.version == version
    np.testing.assert_array_equal(np.array(carrier), VALUES)
