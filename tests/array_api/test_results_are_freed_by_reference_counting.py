"""Arrays, Tensors and their carriers go when their last reference goes, as NumPy's do.

An object in a reference cycle waits for the cyclic garbage collector, which runs on
allocation counts, not bytes: a loop over bands of a large table then holds every
band it made (the demo's PCA grew by 200 MB that way). Each operation below runs with
the collector off and ``DEBUG_SAVEALL``, and must leave nothing for it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import stridewave.array_api as xp
from stridewave import CPU, DType, Layout, Tensor

from .conftest import DEVICE_PARAMS

#: Every device (the table of places).
DEVICES = DEVICE_PARAMS

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)


def _operations(device: Any) -> dict[str, Callable[[], object]]:
    def a() -> Any:
        return xp.asarray(TABLE, device=device)

    def set_one() -> None:
        x = a()
        if device.name != "FileBacked":  # FileBacked arrays are read-only
            x[0, 0] = 5.0

    return {
        "asarray": a,
        "subtract": lambda: a() - 1,
        "add": lambda: xp.add(a(), a()),
        "sum": lambda: xp.sum(a(), axis=0),
        "mean": lambda: xp.mean(a()),
        "matmul": lambda: xp.matrix_transpose(a()) @ a(),
        "getitem": lambda: a()[1:, ::2],
        "setitem": set_one,
        "boolean index": lambda: a()[a() > 3],
        "concat": lambda: xp.concat([a(), a()]),
        "where": lambda: xp.where(a() > 3, a(), 0.0),
        "take": lambda: xp.take(a(), xp.asarray([0, 2], device=device), axis=1),
        "reshape": lambda: xp.reshape(a(), (3, 4)),
        "astype": lambda: xp.astype(a(), xp.int32),
        "sort": lambda: xp.sort(a(), axis=0),
        "svd": lambda: xp.linalg.svd(a(), full_matrices=False),
        "to CPU": lambda: a().to_device(xp.Device("CPU")),
        "numpy.asarray": lambda: np.asarray(a()),
    }


@pytest.fixture
def no_collector() -> Iterator[list[object]]:
    """Turn the collector off and keep what it finds (returned list), then restore."""
    gc.collect()
    enabled, debug = gc.isenabled(), gc.get_debug()
    found: list[object] = []
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
    finally:
        gc.set_debug(debug)
        if enabled:
            gc.enable()
        gc.garbage.clear()
        gc.collect()


def _cyclic_garbage_of(operation: Callable[[], object], found: list[object]) -> list[str]:
    gc.collect()
    found.extend(gc.garbage)  # kept referenced: a cleared list would free them again
    gc.garbage.clear()
    result = operation()
    del result
    gc.collect()
    names = sorted({type(o).__name__ for o in gc.garbage})
    found.extend(gc.garbage)
    gc.garbage.clear()
    return names


@pytest.mark.parametrize("device_name", DEVICES)
def test_no_operation_leaves_a_reference_cycle(
    device_name: str, no_collector: list[object]
) -> None:
    device = xp.Device(device_name)
    operations = _operations(device)
    for operation in operations.values():  # first calls may build caches
        operation()
    leaks = {name: _cyclic_garbage_of(op, no_collector) for name, op in operations.items()}
    assert {name: kinds for name, kinds in leaks.items() if kinds} == {}


def test_a_tensor_and_its_carrier_go_with_the_last_reference(no_collector: list[object]) -> None:
    def view() -> Tensor:
        tensor = Tensor(CPU(6, dtype=DType.Float32), Layout((2, 3)))
        assert tensor.subtensors == (tensor,)
        return tensor

    assert _cyclic_garbage_of(view, no_collector) == []
