"""A Metal carrier's 1-D views, kept for the main thread's next call, see every write.

A repeated ``x[::2] * 2`` reuses the MLX slice its first call built (``Metal._views``):
a view of the carrier's buffer, dropped wherever the storage is replaced (an MLX
write, a resize) or released. Whatever writes the carrier between two calls, the
second one reads the new values; another thread builds its own views and leaves the
main thread's alone; the carrier keeps a bounded number of them.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stridewave.array_api as xp
from stridewave.array_api._mlx_namespace import VIEWS_KEPT
from stridewave.carriers import Metal
from tests.metal_scripts import host as _host
from tests.metal_scripts import requires_mlx

pytestmark = requires_mlx

METAL = xp.Device("Metal")


def _metal(values: Any) -> xp.Array:
    return xp.asarray(np.asarray(values, dtype=np.float32), device=METAL)


def _views(x: xp.Array) -> dict[tuple[int, int], tuple[Any, Any, Any]] | None:
    carrier = x._carrier
    assert isinstance(carrier, Metal)
    return carrier._views


def test_a_repeated_strided_read_keeps_one_view_and_gives_its_values() -> None:
    x = _metal(np.arange(10))
    first = _host(x[::2] * 2)
    views = _views(x)
    assert views is not None and len(views) == 1
    second = _host(x[::2] * 2)
    np.testing.assert_array_equal(first, np.arange(0, 10, 2) * 2)
    np.testing.assert_array_equal(second, first)
    assert len(views) == 1  # (the same view, not a second one)


def _write_item(x: xp.Array, model: np.ndarray[Any, Any]) -> None:
    x[2] = 100.0
    model[2] = 100.0


def _write_slice(x: xp.Array, model: np.ndarray[Any, Any]) -> None:
    x[::2] = xp.asarray(np.full(5, 100.0, dtype=np.float32), device=METAL)
    model[::2] = 100.0


def _write_in_place(x: xp.Array, model: np.ndarray[Any, Any]) -> None:
    x += 100.0
    model += 100.0


def _write_carrier(x: xp.Array, model: np.ndarray[Any, Any]) -> None:
    x._carrier.set_value(2, 100.0)
    model[2] = 100.0


def _write_through_numpy(x: xp.Array, model: np.ndarray[Any, Any]) -> None:
    np.asarray(x)[2] = 100.0
    model[2] = 100.0


WRITES = [_write_item, _write_slice, _write_in_place, _write_carrier, _write_through_numpy]


@pytest.mark.parametrize("write", WRITES, ids=[w.__name__.lstrip("_") for w in WRITES])
def test_a_kept_view_reads_the_values_written_since(write: Any) -> None:
    x = _metal(np.arange(10))
    model = np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(_host(x[::2] * 2), model[::2] * 2)
    write(x, model)
    np.testing.assert_array_equal(_host(x[::2] * 2), model[::2] * 2)
    np.testing.assert_array_equal(_host(x[::2] + x[1::2]), model[::2] + model[1::2])
    np.testing.assert_array_equal(_host(xp.sum(x[::2])), model[::2].sum())


def test_a_released_carrier_drops_its_views_and_refuses_the_read() -> None:
    x = _metal(np.arange(10))
    _host(x[::2] * 2)
    x._carrier.release()
    assert _views(x) is None
    with pytest.raises(RuntimeError, match="released"):
        x[::2] * 2


def test_another_thread_builds_its_own_views_and_leaves_the_main_threads() -> None:
    x = _metal(np.arange(10))
    _host(x[::2] * 2)
    kept = dict(_views(x) or {})
    assert kept  # (the main thread's view of x[::2])
    found: list[Any] = []
    worker = threading.Thread(target=lambda: found.append(_host(x[1::2] * 3)))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(found[0], np.arange(1, 10, 2) * 3)
    assert _views(x) == kept


def test_a_carrier_keeps_a_bounded_number_of_views() -> None:
    x = _metal(np.arange(100))
    for start in range(3 * VIEWS_KEPT):
        np.testing.assert_array_equal(
            _host(x[start::3] * 2), np.arange(100, dtype=np.float32)[start::3] * 2
        )
        assert len(_views(x) or {}) <= VIEWS_KEPT


_SLICES = st.builds(
    slice,
    st.one_of(st.none(), st.integers(-12, 12)),
    st.one_of(st.none(), st.integers(-12, 12)),
    st.one_of(st.none(), st.integers(-3, 3).filter(bool)),
)
_STEPS = st.one_of(
    st.tuples(st.just("read"), _SLICES),
    st.tuples(st.just("write"), st.integers(0, 9), st.integers(-50, 50)),
)


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(_STEPS, min_size=1, max_size=12))
def test_reads_and_writes_in_any_order_agree_with_numpy(steps: list[Any]) -> None:
    x = _metal(np.arange(10))
    model = np.arange(10, dtype=np.float32)
    for step in steps:
        if step[0] == "read":
            np.testing.assert_array_equal(_host(x[step[1]] * 2), model[step[1]] * 2)
        else:
            x[step[1]] = float(step[2])
            model[step[1]] = step[2]


def test_a_view_of_a_replaced_stored_array_is_not_used() -> None:
    # A view built from the stored array a racing move replaced, and kept after the
    # move emptied the views (the race's outcome, set here by hand), is not used.
    x = _metal(np.arange(10))
    _host(x[::2] * 2)
    carrier = x._carrier
    assert isinstance(carrier, Metal)
    stale = dict(carrier._views or {})
    assert stale
    x += 100.0  # (an MLX write: a new stored array)
    carrier._views = stale
    np.testing.assert_array_equal(_host(x[::2] * 2), (np.arange(0, 10, 2) + 100.0) * 2)


def test_moves_racing_the_main_threads_reads_leave_no_stale_view_behind() -> None:
    # Another thread's MLX writes (each one a new stored array, the views dropped
    # under the carrier's lock) race the main thread's reads of x[::2], whose view is
    # built from the stored array read before and kept after: switches forced every
    # microsecond, bounded trials. Each read gives one whole state of x; the read
    # after the writer has ended gives its last one.
    base = np.arange(64, dtype=np.float32)
    writes = 30
    raced = 0
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            x = _metal(base)

            def write(x: xp.Array = x) -> None:
                for _ in range(writes):
                    x += 1.0

            writer = threading.Thread(target=write)
            writer.start()
            while writer.is_alive():
                got = _host(x[::2] * 2)
                step = got[0] / 2
                np.testing.assert_array_equal(got, (base[::2] + step) * 2)
                raced += 0 < step < writes
            writer.join()
            np.testing.assert_array_equal(_host(x[::2] * 2), (base[::2] + writes) * 2)
    finally:
        sys.setswitchinterval(interval)
    assert raced, "no read landed between two writes: the race was never run"
