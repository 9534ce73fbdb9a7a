"""The backend-neutral scatter planner and the NumPy executor, against a Python model."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stridewave.carriers import _scatter
from stridewave.carriers._scatter import plan_scatter, scatter_indices, scatter_numpy, unique_last
from stridewave.layout import Layout
from tests.strategies import injective_layouts, layouts

#: (destination, base slot, mapping, values): one scatter for the planner
PlanCase = tuple[np.ndarray[Any, Any], int, Layout, np.ndarray[Any, Any]]


def model_scatter(
    dest: list[object], base: int, mapping: Layout, values: Sequence[object]
) -> list[object]:
    """The specification as a list and a loop: later logical indices overwrite."""
    out = list(dest)
    for i in range(mapping.size):
        out[base + mapping.index(i)] = values[i]
    return out


@st.composite
def scatter_cases(
    draw: st.DrawFn, layout_strategy: st.SearchStrategy[Layout] | None = None
) -> PlanCase:
    mapping = draw(layout_strategy if layout_strategy is not None else layouts())
    base = -mapping.min_index + draw(st.integers(0, 3))
    size = max(base + mapping.max_index + 1, 0) + draw(st.integers(0, 3))
    dest = np.arange(size, dtype=np.float32) * -1 - 1
    values = np.arange(mapping.size, dtype=np.float32) + 1
    return dest, base, mapping, values


@given(scatter_cases())
def test_scatter_numpy_matches_model(case: PlanCase) -> None:
    dest, base, mapping, values = case
    expected = model_scatter(dest.tolist(), base, mapping, values.tolist())
    scatter_numpy(dest, base, mapping, values)
    assert dest.tolist() == expected


@given(scatter_cases())
def test_scatter_indices_match_model(case: PlanCase) -> None:
    dest, base, mapping, values = case
    expected = model_scatter(dest.tolist(), base, mapping, values.tolist())
    unique, positions = scatter_indices(base, mapping)
    assert unique.dtype == np.int64
    assert positions.dtype == np.int64
    assert np.unique(unique).size == unique.size
    dest[unique] = values[positions]
    assert dest.tolist() == expected


@contextlib.contextmanager
def forbid_index_arrays() -> Iterator[None]:
    """Make any index-array construction fail: the strided path must not need one."""

    def forbidden(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("an index array was built on the strided fast path")

    with (
        mock.patch.object(Layout, "indices", forbidden),
        mock.patch.object(_scatter, "unique_last", forbidden),
    ):
        yield


@pytest.fixture
def no_index_arrays() -> Iterator[None]:
    with forbid_index_arrays():
        yield


@given(scatter_cases(injective_layouts()))
def test_injective_mapping_takes_strided_path_without_index_array(case: PlanCase) -> None:
    dest, base, mapping, values = case
    expected = model_scatter(dest.tolist(), base, mapping, values.tolist())
    with forbid_index_arrays():
        scatter_numpy(dest, base, mapping, values)
    assert dest.tolist() == expected


def test_zero_stride_keeps_last_logical_index(no_index_arrays: None) -> None:
    dest = np.zeros(4, np.float32)
    values = np.arange(12, dtype=np.float32).reshape(3, 4).ravel()
    scatter_numpy(dest, 0, Layout((3, 4), (0, 1)), values)
    assert dest.tolist() == [8.0, 9.0, 10.0, 11.0]


def test_full_broadcast_keeps_last_value() -> None:
    dest = np.zeros(2, np.int32)
    scatter_numpy(dest, 1, Layout((5,), (0,)), np.arange(5, dtype=np.int32))
    assert dest.tolist() == [0, 4]


def test_overlapping_strides_keep_later_logical_index() -> None:
    dest = np.zeros(5, np.float32)
    values = np.arange(9, dtype=np.float32)
    # shape (3, 3) strides (1, 1): slot k receives i + j == k, the last such logical index
    scatter_numpy(dest, 0, Layout((3, 3), (1, 1)), values)
    assert dest.tolist() == model_scatter([0.0] * 5, 0, Layout((3, 3), (1, 1)), values.tolist())
    assert dest.tolist() == [0.0, 3.0, 6.0, 7.0, 8.0]


def test_plan_reduces_zero_stride_and_unit_axes() -> None:
    plan = plan_scatter(5, Layout((3, 1, 4), (0, 7, 2)))
    assert plan.dest == Layout((4,), (2,))
    assert plan.source == Layout((4,), (1,))
    assert plan.source_base == 8
    assert plan.dest_base == 5
    assert plan.injective


def test_source_sharing_destination_reads_before_writing() -> None:
    storage = np.arange(6, dtype=np.float32)
    source = storage[0:4]  # overlaps the destination slots 2..5
    scatter_numpy(storage, 2, Layout((4,)), source)
    assert storage.tolist() == [0.0, 1.0, 0.0, 1.0, 2.0, 3.0]


def test_source_sharing_destination_reversed() -> None:
    storage = np.arange(5, dtype=np.float32)
    scatter_numpy(storage, 4, Layout((5,), (-1,)), storage)
    assert storage.tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]


@given(st.lists(st.integers(0, 30), max_size=40), st.booleans())
def test_unique_last_keeps_last_position(raw: list[int], sparse: bool) -> None:
    indices = np.array(raw, dtype=np.int64) * (10**6 if sparse else 1)
    unique, positions = unique_last(indices)
    expected = {}
    for p, value in enumerate(indices.tolist()):
        expected[value] = p
    assert unique.tolist() == sorted(expected)
    assert positions.tolist() == [expected[v] for v in sorted(expected)]


@pytest.mark.parametrize(
    ("shape", "strides"),
    [((1500, 1400), (1, 1500)), ((2_100_000,), (-1,)), ((700, 3, 1000), (3000, 1, 3))],
)
def test_large_copies_tiled_and_threaded_match_numpy(
    shape: tuple[int, ...], strides: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", "2")
    mapping = Layout(shape, strides)
    base = -mapping.min_index
    dest = np.zeros(base + mapping.max_index + 1, np.float32)
    values = np.arange(mapping.size, dtype=np.float32)
    scatter_numpy(dest, base, mapping, values)
    expected = np.zeros_like(dest)
    expected[base + mapping.indices()] = values
    assert np.array_equal(dest, expected)


def test_threads_setting_is_read_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", "3")
    assert _scatter._threads() == 3
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", "nonsense")
    assert _scatter._threads() == 1


# -- tests that catch slips: survivors of carriers/_scatter.py -------------------
# The mutants each test kills are listed in docs/testing.md.


def test_unique_last_of_nothing_is_two_empty_int64_arrays() -> None:
    unique, positions = unique_last(np.empty(0, np.int64))
    assert unique.shape == positions.shape == (0,)
    assert unique.dtype == positions.dtype == np.int64


@pytest.mark.parametrize(
    ("shape", "strides"),
    [((3,), (2,)), ((3,), (-2,)), ((2, 3), (-3, 1)), ((2, 3, 4), (5, -1, 0)), ((1, 4), (7, -2))],
)
def test_the_element_named_out_of_range_is_the_extreme_one(
    shape: tuple[int, ...], strides: tuple[int, ...]
) -> None:
    mapping = Layout(shape, strides)
    for highest, extreme in ((True, mapping.max_index), (False, mapping.min_index)):
        element = _scatter._extreme_element(mapping, highest=highest)
        assert 0 <= element < mapping.size
        assert mapping.index(element) == extreme


def test_the_copy_threads_follow_the_cpus_up_to_eight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STRIDEWAVE_SCATTER_THREADS", raising=False)
    for cpus, threads in ((1, 1), (3, 3), (8, 8), (16, 8)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, n=cpus: set(range(n)))
        assert _scatter._threads() == threads
    # where the affinity is unknown (macOS, Windows), the CPU count, or one thread
    monkeypatch.delattr(os, "sched_getaffinity")
    for count, threads in ((None, 1), (4, 4), (64, 8)):
        monkeypatch.setattr(os, "cpu_count", lambda n=count: n)
        assert _scatter._threads() == threads
    for configured, threads in (("0", 1), ("1", 1), ("-3", 1), ("12", 12)):
        monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", configured)
        assert _scatter._threads() == threads


def test_the_copy_pool_is_kept_and_rebuilt_only_for_a_new_size() -> None:
    pool = _scatter._executor(2)
    assert _scatter._executor(2) is pool
    bigger = _scatter._executor(3)
    assert bigger is not pool and bigger._max_workers == 3
    assert _scatter._executor(3) is bigger
    done = bigger.submit(threading.current_thread)
    assert done.result(10).name.startswith("stridewave-copy")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_copies_on_a_pool_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # The parent's pool threads do not exist in a child: reusing its pool would wait
    # for ever. A threaded copy in the child must finish (the alarm ends a hung child).
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", "2")
    mapping = Layout((1500, 1400), (1, 1500))
    values = np.arange(mapping.size, dtype=np.float32)
    dest = np.zeros(mapping.size, np.float32)
    scatter_numpy(dest, 0, mapping, values)  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            signal.alarm(20)
            child = np.zeros(mapping.size, np.float32)
            scatter_numpy(child, 0, mapping, values)
            code = 0 if np.array_equal(child, dest) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert status == 0


@pytest.mark.parametrize("rows", [2, 3])
def test_a_large_copy_in_few_slabs_copies_every_slab(
    rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same inner axis on both sides: slabs along the outer axis, here of extent 2 or
    # 3 (fewer slabs than 4 per thread). Kills _copy_blocks 78 (no slab at all).
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", "2")
    mapping = Layout((rows, 1 << 20))
    values = np.arange(mapping.size, dtype=np.float32)
    dest = np.zeros(mapping.size, np.float32)
    scatter_numpy(dest, 0, mapping, values)
    assert np.array_equal(dest, values)


def test_a_broadcast_source_is_normalized_once_and_never_materialized() -> None:
    # CONTRACT 7: a broadcast source (one value seen n times) is normalized as one value
    # and stays a zero-stride view. Kills normalize_source 3, 4, 6, 9 to 17.
    seen: list[int] = []

    def rule(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        seen.append(values.size)
        return values.astype(np.float32)

    for n in (2, 1000):
        seen.clear()
        out = _scatter.normalize_source(np.broadcast_to(np.int32(7), (n,)), rule)
        assert seen == [1]
        assert out.shape == (n,) and out.strides == (0,) and out.dtype == np.float32
        assert out.tolist() == [7.0] * n
    seen.clear()
    out = _scatter.normalize_source(np.arange(3, dtype=np.int32), rule)
    assert seen == [3] and out.tolist() == [0.0, 1.0, 2.0]


def test_the_values_of_a_broadcast_source_are_one_slot_seen_everywhere() -> None:
    # Kills source_values 17 (a broadcast missed: copied n times), 34 and 36.
    from stridewave import CPU, DType, Tensor

    carrier = CPU(0, dtype=DType.Int32).new_like([5, 7])
    for layout, offset, value in (
        (Layout((3, 4), (0, 0)), 1, 7),
        (Layout((1, 5), (9, 0)), 0, 5),  # an axis of extent 1 may have any stride
    ):
        values = _scatter.source_values(Tensor(carrier, layout, offset=offset))
        assert values.shape == (layout.size,) and values.strides == (0,)
        assert values.tolist() == [value] * layout.size
    values = _scatter.source_values(Tensor(carrier, Layout((2,), (-1,)), offset=1))
    assert values.tolist() == [7, 5]


def test_a_released_source_is_named_with_the_read() -> None:
    # Kills source_values 2 to 4 (the refused action's words).
    from stridewave import CPU, Tensor

    source = CPU(0).new_like([1.0, 2.0])
    tensor = Tensor(source, Layout((2,)))
    receiver = CPU(2)
    source.release()
    with pytest.raises(RuntimeError, match=r"^cannot read the scatter source on CPU\("):
        receiver.scatter(tensor, Tensor(receiver, Layout((2,))), Layout((2,)))
    assert list(receiver) == [0.0, 0.0] and receiver.version == 0


def _whole(carrier: Any) -> Any:
    from stridewave import Tensor

    return Tensor(carrier, Layout((carrier.size(),)))


def test_scatter_refusals_name_the_argument_and_what_was_given() -> None:
    # Kills check_scatter_arguments 8, 13, 21, 22 (the value or the argument's name
    # lost from the message).
    import uuid

    from stridewave import CPU, DType, ScaledDType, Tensor

    receiver = CPU(2)
    with pytest.raises(TypeError, match=r"^scatter scatter_onto must be a stridewave Tensor, got "):
        receiver.scatter(_whole(receiver), [0, 1], Layout((2,)))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got list \[0, 1\]; wrap storage first"):
        receiver.scatter(_whole(receiver), [0, 1], Layout((2,)))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^scatter mapping must be a stridewave Layout, got "):
        receiver.scatter(_whole(receiver), _whole(receiver), (2,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got tuple \(2,\); pass Layout"):
        receiver.scatter(_whole(receiver), _whole(receiver), (2,))  # type: ignore[arg-type]
    dtype = ScaledDType(
        f"S_{uuid.uuid4().hex}", element=DType.Float32, scale=DType.Float32, block=2
    )
    compound = Tensor.compound(dtype, [_whole(CPU(2)), _whole(CPU(1))])
    with pytest.raises(ValueError, match=r"^scatter to_scatter is a compound Tensor") as info:
        receiver.scatter(compound, _whole(receiver), Layout((2,)))
    assert "pass to_scatter.subtensors[k]" in str(info.value)


def test_a_released_receiver_is_named_with_the_scatter() -> None:
    # Kills check_scatter_destination 1 to 3.
    from stridewave import CPU

    receiver, source = CPU(2), CPU(2)
    onto = _whole(receiver)
    receiver.release()
    with pytest.raises(RuntimeError, match=r"^cannot scatter on CPU\("):
        receiver.scatter(_whole(source), onto, Layout((2,)))


def test_a_receiver_released_during_the_bounds_check_is_named_as_released(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Another thread releases the receiver between the liveness check and the bounds
    # (simulated: size() releases it): the caller learns it was released, not that
    # every index is out of range. Kills check_scatter_destination 13 to 15.
    from stridewave import CPU

    receiver = CPU(2)
    real_size = CPU.size

    def size_then_released(self: CPU) -> int:
        self.release()
        return real_size(self)

    monkeypatch.setattr(CPU, "size", size_then_released)
    with pytest.raises(RuntimeError, match=r"^cannot scatter on CPU\(.*released"):
        _scatter.check_scatter_destination(receiver, 0, Layout((2,)), onto_offset=0)


def test_an_out_of_range_scatter_names_every_offset_and_the_strides() -> None:
    # Kills check_scatter_destination 35 to 37 and 46.
    from stridewave import CPU, Tensor

    receiver, source = CPU(8), CPU(3)
    onto = Tensor(receiver, Layout((4,)), offset=2)
    with pytest.raises(IndexError) as info:
        receiver.scatter(_whole(source), onto, Layout((3,), (2,)), 3)
    message = str(info.value)
    assert "scatter targets physical index 9 (source element 2)" in message, message
    assert (
        "check scatter_onto.offset=2, mapping_offset=3 and the mapping strides (2,) "
        "(destinations span [5, 9])"
    ) in message, message


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_a_large_copy_is_whole_on_any_number_of_threads(
    threads: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Kills _copy 33 (one thread: nothing copied), and _copy_blocks 43 (the tiles of a
    # tall transpose cut along the wrong axis: rows past the first tiles left out).
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", threads)
    for mapping in (Layout((1500, 1400), (1, 1500)), Layout((4000, 300), (1, 4000))):
        values = np.arange(mapping.size, dtype=np.float32)
        dest = np.zeros(mapping.size, np.float32)
        scatter_numpy(dest, 0, mapping, values)
        assert np.array_equal(dest[mapping.indices()], values)


class _ShutDownPool:
    """A pool at interpreter shutdown: it takes no new work."""

    def submit(self, *args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")


@pytest.mark.parametrize("threads", ["2", "3"])
def test_a_large_copy_at_shutdown_runs_every_part_on_the_calling_thread(
    threads: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An atexit hook may scatter after the pool stopped taking work: every part is
    # then copied on the calling thread. Kills _copy 42, 49, 50.
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", threads)
    monkeypatch.setattr(_scatter, "_executor", lambda workers: _ShutDownPool())
    for mapping in (Layout((1500, 1400), (1, 1500)), Layout((3, 1 << 20))):
        values = np.arange(mapping.size, dtype=np.float32)
        dest = np.zeros(mapping.size, np.float32)
        scatter_numpy(dest, 0, mapping, values)
        assert np.array_equal(dest[mapping.indices()], values)


def test_a_broadcast_source_is_scattered_without_materializing_it() -> None:
    # CONTRACT 7: n copies of one value are never built. Kills scatter_numpy 10, 11, 14
    import tracemalloc

    n = 1 << 20  # a materialized float32 copy would take 4 MiB
    # (overlapping strides, resolved through unique slots: kills scatter_numpy 33 to 38)
    for mapping in (Layout((n,), (0,)), Layout((n // 4, 4), (0, 1)), Layout((3, 3), (1, 1))):
        values = np.broadcast_to(np.float32(3.0), (mapping.size,))
        dest = np.zeros(6, np.float32)
        tracemalloc.start()
        try:
            scatter_numpy(dest, 1, mapping, values)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < (1 << 20), peak
        assert dest[1 : 1 + mapping.max_index + 1].tolist() == [3.0] * (mapping.max_index + 1)


def test_a_strided_view_never_reaches_outside_its_storage() -> None:
    # A view checked in O(1) from min_index and max_index, at both ends, with the
    # whole span named. Kills strided_view 9 to 12, 15, 18 to 28.
    array = np.arange(4, dtype=np.float32)
    assert _scatter.strided_view(array, 1, Layout((3,))).tolist() == [1.0, 2.0, 3.0]
    assert _scatter.strided_view(array, 2, Layout((3,), (-1,))).tolist() == [2.0, 1.0, 0.0]
    for base, layout, span in (
        (2, Layout((3,)), "[2, 4]"),  # one past the end
        (1, Layout((3,), (-1,)), "[-1, 1]"),  # one before the start
    ):
        with pytest.raises(IndexError) as info:
            _scatter.strided_view(array, base, layout)
        assert str(info.value).startswith(
            f"the view {layout!r} at offset {base} addresses elements {span} but the "
            "storage now holds 4 (C-contiguous: True);"
        ), str(info.value)
    with pytest.raises(IndexError, match=r"holds 4 \(C-contiguous: False\)"):
        _scatter.strided_view(np.arange(8, dtype=np.float32)[::2], 0, Layout((2,)))


def test_scatter_refusals_name_the_tensors_shapes_and_offset() -> None:
    # Kills check_scatter_arguments 23, 24, 29, 30, 36, 37, 43, 49 (an argument's name, the
    # compound dtype and its plane count, the viewed carrier, the source's shape or the
    # offset lost from the message).
    import uuid

    from stridewave import CPU, DType, ScaledDType, Tensor

    receiver, other = CPU(2), CPU(3)
    dtype = ScaledDType(
        f"S_{uuid.uuid4().hex}", element=DType.Float32, scale=DType.Float32, block=2
    )
    compound = Tensor.compound(dtype, [_whole(receiver), _whole(CPU(1))])
    with pytest.raises(ValueError) as info:
        receiver.scatter(_whole(CPU(2)), compound, Layout((2,)))
    message = str(info.value)
    assert message.startswith(f"scatter scatter_onto is a compound Tensor of {dtype!r}"), message
    assert "with 2 subtensors" in message and "scatter_onto.subtensors[k]" in message, message
    with pytest.raises(ValueError) as info:
        receiver.scatter(_whole(CPU(2)), _whole(other), Layout((2,)))
    assert str(info.value).startswith(
        f"scatter_onto views {other!r}, not the receiver {receiver!r}; "
    ), str(info.value)
    with pytest.raises(
        ValueError, match=r"mapping has shape \(2,\) but to_scatter has shape \(3,\)"
    ):
        receiver.scatter(_whole(other), _whole(receiver), Layout((2,)))
    with pytest.raises(ValueError, match=r"mapping_offset must be >= 0 \(elements\), got -1;"):
        receiver.scatter(_whole(CPU(2)), _whole(receiver), Layout((2,)), -1)


def test_unique_last_keeps_the_largest_slot_on_the_sparse_path() -> None:
    # The sparse path (slots far apart) marks the last of the sorted slots itself; the
    # mark array starts uninitialized, so a freed zero-filled block is offered first.
    # Kills unique_last 64 (the wrong element marked).
    for n in range(3, 40):
        indices = np.arange(n, dtype=np.int64) * 10**6
        indices[-1] = indices[-2]  # a repeat at the top: its later position wins
        expected_unique = sorted(set(indices.tolist()))
        expected_last = {v: p for p, v in enumerate(indices.tolist())}
        scratch = np.zeros(n, dtype=bool)
        del scratch
        unique, positions = unique_last(indices)
        assert unique.tolist() == expected_unique
        assert positions.tolist() == [expected_last[v] for v in expected_unique]


@pytest.mark.parametrize("threads", ["2", "3"])
def test_a_large_scatter_from_its_own_storage_reads_before_writing(
    threads: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reversing storage in place through a scatter from itself: the threaded copy must
    # read the whole source before any part is written. Kills scatter_numpy 39, 40.
    monkeypatch.setenv("STRIDEWAVE_SCATTER_THREADS", threads)
    n = 1 << 21
    dest = np.arange(n, dtype=np.float32)
    scatter_numpy(dest, n - 1, Layout((n,), (-1,)), dest)
    assert np.array_equal(dest, np.arange(n, dtype=np.float32)[::-1])
