"""The backend-neutral scatter planner and the NumPy executor, against a Python model."""

from __future__ import annotations

import contextlib
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
