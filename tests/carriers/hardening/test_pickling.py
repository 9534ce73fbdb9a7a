"""Pickling and copying carriers: independent carriers of the same kind,
dtype, mutability and values, in this process and across a spawned one."""

from __future__ import annotations

import copy
import gc
import multiprocessing
import os
import pickle
from typing import Any

import numpy as np
import pytest

from stridewave import CPU, Carrier, DType, FileBacked

from ..conftest import KIND_DTYPES, KINDS, SAMPLE, Kind  # noqa: TID252  (the shared Kind table)


def _clones(carrier: Carrier) -> list[Carrier]:
    return [
        copy.copy(carrier),
        copy.deepcopy(carrier),
        pickle.loads(pickle.dumps(carrier)),
        pickle.loads(pickle.dumps(carrier, protocol=2)),
    ]


@pytest.mark.parametrize(("kind", "dtype"), KIND_DTYPES)
@pytest.mark.parametrize("mutable", [True, False])
def test_copies_keep_kind_dtype_mutability_and_values(
    kind: Kind, dtype: DType, mutable: bool
) -> None:
    values = [SAMPLE[dtype][0], SAMPLE[dtype][1], SAMPLE[dtype][0]]
    carrier = kind.make(values, dtype, mutable)
    for clone in _clones(carrier):
        assert type(clone) is type(carrier)
        assert clone.dtype() is dtype
        assert clone.is_mutable() is mutable
        assert list(clone) == values and kind.raw_values(clone) == values
        assert clone.version == 0 and not clone.is_owned()
        if mutable:
            clone[0] = values[1]
            assert list(carrier) == values  # the original did not change
        if isinstance(clone, FileBacked):
            assert isinstance(carrier, FileBacked)
            assert clone.path != carrier.path and os.path.exists(clone.path)
        clone.release()
    carrier.release()


def test_deepcopy_inside_a_container_keeps_identity_sharing(kind: Kind) -> None:
    carrier = kind.make([1.0], DType.Float32, True)
    pair = copy.deepcopy([carrier, carrier])
    assert pair[0] is pair[1] and pair[0] is not carrier


def test_a_wrapped_pointer_becomes_an_owned_copy() -> None:
    array = np.arange(4, dtype=np.float32)
    wrapped = CPU(4, pointer=array.ctypes.data, dtype=DType.Float32)
    for clone in _clones(wrapped):
        assert isinstance(clone, CPU) and not clone.is_wrapping()
        assert clone.pointer() != wrapped.pointer()
        assert list(clone) == [0.0, 1.0, 2.0, 3.0]
    wrapped.release()


def test_from_numpy_keeps_the_array_alive() -> None:
    carrier = CPU.from_numpy(np.arange(1000, dtype=np.int32))  # the only reference
    gc.collect()
    junk = [np.full(1000, -1, dtype=np.int32) for _ in range(50)]  # reuse freed memory
    assert carrier[999] == 999 and list(carrier)[:3] == [0, 1, 2]
    del junk


# -- across a real process boundary (spawn: a fresh interpreter) --------------------------


def _receive(payload: bytes) -> tuple[str, str, bool, list[Any], str]:
    """Child: unpickle, check independence, report kind, dtype, mutability, values, path."""
    clone = pickle.loads(payload)
    path = getattr(clone, "path", "")
    if path:
        from stridewave.carriers._file_backed import session_directory

        assert os.path.dirname(path) == session_directory()  # the child's own directory
        assert str(os.getpid()) in os.path.basename(session_directory())
    result = (type(clone).__name__, clone.dtype().name, clone.is_mutable(), list(clone), path)
    clone.release()
    return result


@pytest.fixture(scope="module")
def spawn_pool() -> Any:
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        yield pool


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_pickle_crosses_a_spawned_process(kind: Kind, spawn_pool: Any) -> None:
    dtype = kind.dtypes[-1]
    values = [SAMPLE[dtype][0], SAMPLE[dtype][1]]
    carrier = kind.make(values, dtype, False)
    name, dtype_name, mutable, got, path = spawn_pool.apply(_receive, (pickle.dumps(carrier),))
    assert (name, dtype_name, mutable, got) == (type(carrier).__name__, dtype.name, False, values)
    if path:
        assert path != getattr(carrier, "path", None)
        assert not os.path.exists(path)  # the child released its file
    assert list(carrier) == values


def test_released_carriers_refuse_every_copy(kind: Kind) -> None:
    carrier = kind.make([1.0], DType.Float32, True)
    carrier.release()
    for action in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(RuntimeError, match="released"):
            action(carrier)


# -- crafted pickles are data (CONTRACT section 7) ----------------------------


class _Crafted:
    """Pickles as an arbitrary call of one of the library's reconstructors."""

    def __init__(self, *recipe: object) -> None:
        self.recipe = recipe

    def __reduce__(self) -> tuple[object, ...]:
        return self.recipe


def _crafted_cases() -> list[tuple[str, _Crafted]]:
    from stridewave import Evictable, Generic
    from stridewave.carriers._base import _rebuild_carrier
    from stridewave.carriers._evictable import _rebuild_evictable

    f32 = np.zeros(3, np.float32)
    return [
        (
            "FileBacked holding Bool",
            _Crafted(_rebuild_carrier, (FileBacked, np.zeros(3, bool), DType.Bool, True)),
        ),
        ("mutable='no'", _Crafted(_rebuild_carrier, (CPU, f32, DType.Float32, "no"))),
        ("mutable=1", _Crafted(_rebuild_carrier, (CPU, f32, DType.Float32, 1))),
        ("a category", _Crafted(_rebuild_carrier, (CPU, f32, DType.Floating, True))),
        ("values of another dtype", _Crafted(_rebuild_carrier, (CPU, f32, DType.Int32, True))),
        (
            "2-D values",
            _Crafted(
                _rebuild_carrier, (Generic, np.zeros((2, 2), np.float32), DType.Float32, True)
            ),
        ),
        ("a list for values", _Crafted(_rebuild_carrier, (CPU, [1.0], DType.Float32, True))),
        ("not a carrier kind", _Crafted(_rebuild_carrier, (dict, f32, DType.Float32, True))),
        (
            "the abstract Carrier",
            _Crafted(_rebuild_carrier, (Carrier, f32, DType.Float32, True)),
        ),
        ("Evictable by value", _Crafted(_rebuild_carrier, (Evictable, f32, DType.Float32, True))),
        (
            "a secondary named, not given",
            _Crafted(_rebuild_evictable, (CPU, "CPU", f32, DType.Float32, True)),
        ),
        (
            "an Evictable secondary",
            _Crafted(_rebuild_evictable, (CPU, Evictable, f32, DType.Float32, True)),
        ),
        (
            "a bad nested spec",
            _Crafted(_rebuild_evictable, (("Evictable", CPU), CPU, f32, DType.Float32, True)),
        ),
        (
            "Bool tiers of FileBacked",
            _Crafted(
                _rebuild_evictable, (FileBacked, FileBacked, np.zeros(3, bool), DType.Bool, True)
            ),
        ),
    ]


@pytest.mark.parametrize("case", range(14))
def test_unpickling_validates_everything_it_rebuilds(case: int) -> None:
    _name, crafted = _crafted_cases()[case]
    data = pickle.dumps(crafted)
    with pytest.raises(ValueError, match="cannot unpickle"):
        pickle.loads(data)


def test_nested_evictables_pickle_and_unpickle() -> None:
    from stridewave import Evictable, Generic

    inner = Evictable(CPU(0).new_like([1.0, 2.0, 3.0]), Generic([], dtype=DType.Float32))
    outer = Evictable(inner, FileBacked(dtype=DType.Float32))
    outer.evict()
    copy = pickle.loads(pickle.dumps(outer))
    assert isinstance(copy, Evictable) and isinstance(copy.primary, Evictable)
    assert type(copy.primary.secondary) is Generic and type(copy.secondary) is FileBacked
    assert list(copy) == [1.0, 2.0, 3.0] and copy.version == 0
    copy[0] = 5.0
    assert list(outer) == [1.0, 2.0, 3.0]
